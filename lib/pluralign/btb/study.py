"""The Part III study (Beyond the Binary, Padmakumar et al. 2024): :func:`setup` turns a page's parameters
(:class:`pluralign.btb.settings.BtbSettings`) into a :class:`Study`, the small core its three pages share: the
data, p* (Eq. 2), the categories (§3.1), the synthetic judgments and margins (Eq. 3), the splits and the
comparison of the two reward models (Eqs. 1 and 4, Tables 1–2). Each page's sections are functions of the study
in :mod:`pluralign.btb.pages`.

Heavy steps (LLM judgments and labels, embeddings, trained models) are cached on disk by the modules they
call, so the three pages share one computation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from pluralign.btb import categories as category_sources
from pluralign.btb import p_star as p_star_sources
from pluralign.btb import training
from pluralign.btb.comparison import Comparison, compare_reward_models
from pluralign.btb.settings import BtbSettings
from pluralign.btb.sources import model_name
from pluralign.data.core import PreferenceData
from pluralign.data.spec import load_specs
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.named_models import resolve_model
from pluralign.params import part_setup

__all__ = ["Study", "setup"]


@dataclass(eq=False)
class Study:
    """The data and settings of Part III's pages (:func:`setup`), and the computations they share."""

    profile: str
    seed: int
    settings: BtbSettings
    data: PreferenceData
    parts: list
    models: dict | None = field(default=None, repr=False)

    @property
    def ids(self) -> pd.Index:
        return pd.Index(self.data.pairs["pair_id"], name="pair_id")

    @property
    def pairs(self) -> pd.DataFrame:
        return self.data.pairs.set_index("pair_id")

    @property
    def p_star_from(self):
        """The source (or fallback chain) of p* (:attr:`BtbSettings.p_star_from`)."""
        return self.settings.p_star_from

    @property
    def category_source(self):
        """The source (or fallback chain) of the categories (:attr:`BtbSettings.categories`)."""
        return self.settings.categories

    def labelling(self) -> dict:
        """The labeller's keyword arguments of the p* and category sources (``labels_file`` included)."""
        lab = self.settings.labeller
        return dict(
            labeller=lab.model,
            samples=lab.samples,
            temperature=lab.temperature,
            top_p=lab.top_p,
            job=lab.job,
            labels_file=self.settings.labels_file,
        )

    # ---- p* and the categories (§3.1-3.2) --------------------------------------------------------
    def p_star_of(self, data: PreferenceData, ids=None) -> pd.Series | None:
        """p* (Eq. 2) of ``data``'s pairs ``ids`` from the study's ``p_star_from`` source."""
        return p_star_sources.p_star_from(self.p_star_from, data, ids, **self.labelling())

    def categories_of(self, data: PreferenceData, ids=None) -> tuple[pd.Series, pd.Series | None]:
        """The categories (§3.1) of ``data``'s pairs ``ids`` from the study's category source
        (:func:`pluralign.btb.categories.categories_from`): ``kind`` and ``distinguishable`` (None when
        no pair has one), as :func:`pluralign.btb.evaluation.table_groups` takes them."""
        c = category_sources.categories_from(self.category_source, data, ids, **self.labelling())
        dist = c["distinguishable"]
        return c["kind"], (dist if bool(dist.notna().any()) else None)

    @cached_property
    def p_star(self) -> pd.Series | None:
        """p* (Eq. 2) of the page's pairs (None with ``p_star_from: none``)."""
        return self.p_star_of(self.data)

    @cached_property
    def categories(self) -> tuple[pd.Series, pd.Series | None]:
        """``(kind, distinguishable)`` of the page's pairs (:meth:`categories_of`)."""
        return self.categories_of(self.data)

    def p_star_missing(self, p: pd.Series | None = None) -> dict | None:
        """Pairs of the page without p* (Eq. 2): ``missing`` of ``pairs``, and ``text`` saying how many and why —
        e.g. how many of the LLM labeller's Appendix B task 3 answers were unparseable
        (:func:`pluralign.btb.p_star.p_star_from` counts them); None when every pair has p* (or none is
        asked for). ``p``: the p* of other pairs than the page's data (the rewards page: its test pairs)."""
        p = self.p_star if p is None else p
        if p is None or not p.isna().any():
            return None
        n, a = int(p.isna().sum()), p.attrs
        why = (
            f"{a['llm_unparsed']} of {a['llm_answers']} answers of the LLM labeller to Appendix B task 3 were "
            "unparseable (no number of 10 people)"
            if a.get("llm_answers")
            else f"no source of {self.p_star_from} covers them"
        )
        return {
            "missing": n,
            "pairs": len(p),
            "all": n == len(p),
            "text": f"p\\* is missing for {n} of {len(p)} pairs: {why}",
        }

    # ---- synthetic judgments and margins (§3.3) --------------------------------------------------
    @property
    def judge_source(self) -> str:
        """The judge of Eq. 3 as the pages name it."""
        j = self.settings.judge
        return {
            "simulated": f"simulated judge (log-odds noise {j.noise:g})",
            "llm": f"{model_name(j.model)} ({j.method})",
            "annotators": "the data set's own annotators",
        }[j.source]

    def judgments_of(self, data: PreferenceData, p_star: pd.Series | None = None) -> pd.DataFrame:
        """Per-pair judgments and margins (Eq. 3) of ``data`` from the study's judge
        (:func:`pluralign.btb.margins.judgments_from`)."""
        return self.settings.judge.judgments(data, seed=self.seed, p_star=p_star)

    @cached_property
    def judgments(self) -> pd.DataFrame:
        """The judgments and margins (Eq. 3) of the page's pairs, indexed by ``pair_id``."""
        return self.judgments_of(self.data, self.p_star).set_index("pair_id")

    # ---- the reward models (§3.3-3.4, Tables 1-2) ------------------------------------------------
    @cached_property
    def data_splits(self) -> training.Splits:
        """Train / validation (one binary judgment each) and test pairs (all annotators)."""
        ev = self.settings.evaluation
        return training.evaluation_splits(
            self.data,
            test_only=ev.test_only,
            test_per_dataset=ev.test_per_dataset,
            ood_by=ev.ood_by,
            test_size=ev.test_size,
            validation_size=self.settings.training.validation_size,
            seed=self.seed,
        )

    @cached_property
    def comparison(self) -> Comparison:
        """Both reward models trained (learning rate chosen on validation) and compared with p* (Tables 1–2)."""
        return compare_reward_models(self)


@part_setup(BtbSettings)
def setup(s: BtbSettings, profile: str, seed: int, models: dict | None) -> Study:
    """The Part III study from a page's parameters: ``settings`` and ``overrides`` are
    :class:`~pluralign.btb.settings.BtbSettings` fields (an unknown name is an error naming it). Model entries
    (the labeller's, the judge's, ``reward_model``, ``baseline_model``) that name a key of ``models`` (the
    profile's models) are resolved to their options with :func:`pluralign.named_models.resolve_model`.
    ``page``: the notebook's name, which a page of the book gives (:func:`pluralign.params.part_setup`)."""
    s = s.replace(
        labeller={"model": resolve_model(s.labeller.model, models, LLMOptions, what="labeller")},
        judge={"model": resolve_model(s.judge.model, models, LLMOptions, what="judge")},
        training={
            key: resolve_model(getattr(s.training, key), models, ModelOptions, what=key)
            for key in ("reward_model", "baseline_model")
        },
    )
    data, parts = load_specs(s.data, per_dataset=s.per_dataset, seed=seed)
    return Study(profile=profile, seed=int(seed), settings=s, data=data, parts=parts, models=models)
