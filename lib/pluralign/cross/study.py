"""The Part IV study (across the three papers): :func:`setup` turns a page's parameters into a :class:`Study`, which
holds the data, the agreement classes, p*, the margins, the trained reward models and SEAL's rewards that the four
pages share (as cached properties). Each page's sections are functions of the study in
:mod:`pluralign.cross.pages` (``margins_page``, ``uncertainty_page``, ``regimes_page``,
``training_page``).

Everything is computed by the parts' own functions (agreement classes: :mod:`pluralign.diverging.agreement`;
margins: :mod:`pluralign.btb.margins`; regimes: :mod:`pluralign.seal.resistance`; losses:
:mod:`pluralign.rewards.objectives`); trained models and embeddings are cached on disk, so a page that asks for
what another part already trained on the same data and split reuses it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from pluralign.btb.settings import Judge
from pluralign.cross import margins_by_class as q1
from pluralign.cross import regimes as q3
from pluralign.cross import training as q4
from pluralign.cross.settings import CrossSettings
from pluralign.cross.studies import Studies
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.named_models import resolve_model
from pluralign.params import part_setup
from pluralign.seal.settings import AlignmentDesign

__all__ = ["Study", "Studies", "setup"]


@dataclass(eq=False)
class Study:
    """The data, settings and shared computations of Part IV's pages (:func:`setup`)."""

    profile: str
    seed: int
    settings: CrossSettings
    data: object
    models: dict | None = None
    #: the models the settings name, resolved to their options (:func:`pluralign.named_models.resolve_model`): the
    #: judge, the labeller, the reward model and SEAL's study design with its named pre-D / post-D RMs
    judge: Judge = field(init=False)
    labeller: LLMOptions | None = field(init=False)
    reward_model: ModelOptions = field(init=False)
    seal_design: AlignmentDesign = field(init=False)

    def __post_init__(self):
        s, models = self.settings, self.models
        self.judge = s.judge.replace(model=resolve_model(s.judge.model, models, LLMOptions, what="judge.model"))
        self.labeller = resolve_model(s.labeller, models, LLMOptions, what="labeller")
        self.reward_model = resolve_model(s.reward_model, models, ModelOptions, what="reward_model") or ModelOptions()
        self.seal_design = s.seal.resolved(models, what="seal.")

    @property
    def n_boot(self) -> int:
        return self.settings.n_boot

    # ---- the pairs: agreement classes, p*, margins ---------------------------------------------------
    @cached_property
    def classified(self) -> pd.DataFrame:
        """Diverging Preferences' agreement classes of every pair (:func:`pluralign.diverging.agreement_classes`)."""
        from pluralign.diverging import agreement_classes

        return agreement_classes(self.data, ties=self.settings.ties)

    @cached_property
    def p_star(self) -> pd.Series | None:
        """p* (Beyond the Binary Eq. 2) per pair, from ``p_star_from`` (:func:`pluralign.btb.p_star_from`)."""
        from pluralign.btb import p_star_from

        return p_star_from(self.settings.p_star_from, self.data, labeller=self.labeller)

    @property
    def has_truth(self) -> bool:
        t = self.data.truth
        return t is not None and "share_a" in t.columns

    @cached_property
    def planted_margin(self) -> pd.Series | None:
        """The planted population margin |2p* − 1| (simulated data only)."""
        if not self.has_truth:
            return None
        return (2 * self.data.truth["share_a"] - 1).abs().rename("planted margin")

    @cached_property
    def gold_judgments(self) -> pd.DataFrame:
        """Eq. 3 over each pair's own annotators (the 'gold standard', Beyond the Binary §2)."""
        from pluralign.btb.margins import margins_from_annotators

        return margins_from_annotators(self.data).set_index("pair_id")

    @cached_property
    def synthetic_judgments(self) -> pd.DataFrame | None:
        """Eq. 3 judgments of the study's synthetic judge (:func:`pluralign.btb.margins.judgments_from`), or None."""
        j = self.judge
        if not self.settings.has_judge:
            return None
        p_star = self.data.truth["share_a"] if j.source == "simulated" and self.has_truth else self.p_star
        return j.judgments(self.data, seed=self.seed, p_star=p_star).set_index("pair_id")

    @cached_property
    def margins(self) -> dict:
        """``{source: margin Series}``: the synthetic margin (when there is a judge) and the gold one. Pairs the
        judge gave no parseable verdict are left out of the synthetic one (counted in ``margins_left_out``)."""
        out = {}
        sj = self.synthetic_judgments
        if sj is not None:
            out[f"synthetic (n = {self.judge.n})"] = sj["margin"].dropna()
        out[q1.GOLD] = self.gold_judgments["margin"].dropna()
        return out

    @property
    def margins_left_out(self) -> dict:
        n = len(self.data.pairs)
        return {k: n - len(v) for k, v in self.margins.items()}

    @cached_property
    def separation(self) -> pd.DataFrame:
        """Question 1's AUROC per margin source (:func:`pluralign.cross.margins_by_class.margin_separation`)."""
        return q1.margin_separation(
            self.margins, self.classified, planted=self.planted_margin, n_boot=self.n_boot, seed=self.seed
        )

    # ---- the reward models of question 4 (question 2 reuses its mean-variance model) -------------------
    @cached_property
    def rm(self):
        from pluralign import rewards

        return rewards.load(**self.reward_model.kwargs())

    @cached_property
    def training_margins(self) -> tuple[pd.Series | None, str]:
        """The margins Eq. 4's model trains on (None: the gold ones) and what they are, in words. A pair the judge
        gave no parseable verdict has no synthetic margin here; it trains with margin 0 (the page counts them,
        :func:`pluralign.cross.training.fill_missing_margins`)."""
        from pluralign.btb.margins import training_margins

        sj = self.synthetic_judgments
        if self.settings.train_margin == "synthetic" and sj is not None:
            judged = sj.reset_index().dropna(subset=["margin"])
            return training_margins(judged), f"synthetic margins (n = {self.judge.n})"
        return None, "gold margins (the pairs' own annotators, Eq. 3)"

    @cached_property
    def run(self):
        """The five reward models of question 4 trained on one split (:func:`pluralign.cross.training.train_models`)
        and their held-out outputs."""
        s = self.settings
        margins, _ = self.training_margins
        return q4.train_models(
            self.rm, self.data, self.classified, split=s.split, seed=self.seed, options=s.train, margins=margins
        )

    @cached_property
    def measures(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
        """Question 4's measures on the held-out pairs: Table 2's measure per model and class, the decisiveness
        gaps and Pearson r with p* (None without p*), the planted population values beside on simulated data."""
        r = self.run
        cl = self.classified.loc[r.heldout.pairs["pair_id"]]
        p_star = None if self.p_star is None else self.p_star.reindex(cl.index)
        planted = self.data.truth["share_a"].reindex(cl.index) if self.has_truth else None
        kw = {"n_boot": self.n_boot, "seed": self.seed}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measure = q4.measure_by_class(cl, r.p_a, r.gap, p_star=planted, **kw)
            gaps = q4.decisiveness_gaps(cl, r.p_a, r.gap, p_star=planted, **kw)
            probs = q4.model_probabilities(r.p_a, r.gap)
            pearson = q4.pearson_by_class(p_star, probs, cl, **kw) if p_star is not None else None
        return measure, gaps, pearson

    # ---- SEAL's reward models of question 3 -------------------------------------------------------------
    @cached_property
    def seal_rewards(self) -> tuple[pd.DataFrame, object, pd.DataFrame]:
        """SEAL's rewards of D = the study's data under its pre-D and post-D RMs
        (:meth:`pluralign.seal.settings.AlignmentDesign.models`, a single other data set as it is /
        :func:`~pluralign.seal.design.alignment_rewards`), the models and SEAL's chosen / rejected view."""
        from pluralign.seal.design import alignment_rewards
        from pluralign.seal.pairs import chosen_rejected

        rms, _, _ = self.seal_design.models(self.data, self.seed, single_other_as_is=True)
        return alignment_rewards(self.data, rms=rms), rms, chosen_rejected(self.data).table

    @cached_property
    def population(self) -> pd.Series | None:
        """SEAL's δ of the simulated population itself per pair (:func:`~pluralign.cross.regimes.population_alignment`;
        simulated data only)."""
        if not self.has_truth:
            return None
        _, _, view = self.seal_rewards
        return q3.population_alignment(view, self.data.truth["share_a"])


@part_setup(CrossSettings)
def setup(s: CrossSettings, profile: str, seed: int, models: dict | None) -> Study | Studies:
    """The Part IV study from a page's parameters: ``settings`` (:class:`~pluralign.cross.settings.CrossSettings`
    or a mapping of its fields) with ``overrides`` (its field names) laid over them; a model setting may name a key
    of ``models`` (the profile's models, common.yml). A list of data specs gives :class:`Studies`: each data set
    analysed apart, a page's results joined.
    ``page``: the notebook's name, which a page of the book gives (:func:`pluralign.params.part_setup`)."""
    from pluralign.data import spec

    if isinstance(s.data, list):
        subs = {}
        for one in s.data:
            st = setup(profile, seed, models=models, settings=s.replace(data=one))
            subs[st.data.name] = st
        return Studies(subs)
    return Study(profile=profile, seed=int(seed), settings=s, data=spec.from_spec(s.data, seed), models=models)
