"""The SEAL study every Part II page starts from (§ 2, Fig. 1): :func:`setup` builds a :class:`Study` from a page's
parameters — the alignment data set D, the pre-D and post-D reward models and their rewards, the entries' features
and the typed settings (:class:`~pluralign.seal.settings.SealSettings`) — and holds what several sections share
(the reward shifts θ, the regimes, γ, the imprints of Eq. 1, the § 2.3 rewriting and the robustness scores of
Eq. 4), each computed once. The sections themselves are functions of the study, one module per page
(:mod:`pluralign.seal.pages`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.named_models import resolve_model
from pluralign.params import part_setup
from pluralign.seal.design import (
    AlignmentModels,
    EntryFeatures,
    alignment_rewards,
    default_scoring_input,
    entry_features,
    labeller_gamma,
)
from pluralign.seal.label_failures import LabelFailures, label_failures
from pluralign.seal.pairs import chosen_rejected
from pluralign.seal.resistance import LABELLER_RULES
from pluralign.seal.rewriting import RewriteRun, rewrite_run, robustness_fits
from pluralign.seal.settings import SealSettings
from pluralign.seal.stand_ins import study_stand_ins

__all__ = ["Study", "RewriteRun", "setup"]


@dataclass
class Study:
    """The SEAL study design on one profile (§ 2, Fig. 1): the alignment data set ``D`` seen as chosen /
    rejected entries (``view``, the table of :func:`~pluralign.seal.pairs.chosen_rejected`, which dropped
    ``n_ties_dropped`` pairs whose majority label is a tie and ``n_splits_dropped`` without a majority), the other
    data the pre-D RM was trained on (``other``, in parts ``other_parts``), the pre-D and post-D reward models
    (``rms``) and their rewards (``R``: ``pre_chosen``, ``pre_rejected``, ``post_chosen``, ``post_rejected``), the
    entries' features (``F``; None when the page needs none), what the RMs scored (``scoring_input``), the design's
    offline ``stand_ins``, and ``profile``, ``seed``, ``settings`` (each model they name as its options) and the
    profile's named ``models``."""

    D: Any
    other: Any
    other_parts: list
    view: pd.DataFrame
    rms: AlignmentModels
    R: pd.DataFrame
    F: EntryFeatures | None = None
    stand_ins: list = field(default_factory=list)
    n_ties_dropped: int = 0
    n_splits_dropped: int = 0
    profile: str | None = None
    seed: int = 0
    settings: SealSettings = field(default_factory=SealSettings)
    models: dict | None = None
    scoring_input: str | None = None

    def rewards_of(self, k: str) -> tuple[np.ndarray, np.ndarray]:
        """The ``k``-D RM's rewards (``k`` "pre" or "post") of the chosen and rejected entries, one per pair."""
        return self.R[f"{k}_chosen"].to_numpy(float), self.R[f"{k}_rejected"].to_numpy(float)

    @property
    def features(self) -> EntryFeatures:
        """The entries' features ``F``; an error naming the setting when the study has none."""
        if self.F is None:
            raise ValueError("this section needs entry features: setup(..., features='planted' | 'rules' | 'llm')")
        return self.F

    @property
    def source(self) -> str:
        """How the pages name this run's features: the simulator's (planted) or a labeller's."""
        return "simulator feature" if self.F is not None and self.F.source == "planted" else "labelled feature"

    @functools.cached_property
    def theta(self) -> np.ndarray:
        """The reward shifts θ_i (Definition 1, signed; :func:`~pluralign.seal.shifts.reward_shift`)."""
        from pluralign.seal.shifts import reward_shift

        return reward_shift(self.R)

    @functools.cached_property
    def theta_centred(self) -> np.ndarray:
        """The reward shifts θ_i on rewards centred per model (:func:`~pluralign.seal.shifts.centred_reward_shift`:
        invariant to the offset between the two RMs, which Bradley–Terry training leaves undetermined)."""
        from pluralign.seal.shifts import centred_reward_shift

        return centred_reward_shift(self.R)

    @functools.cached_property
    def reward_offsets(self):
        """Each RM's mean reward over D's entries and their offset (:func:`~pluralign.seal.shifts.reward_offsets`)."""
        from pluralign.seal.shifts import reward_offsets

        return reward_offsets(self.R)

    @functools.cached_property
    def other_weights(self) -> pd.DataFrame:
        """The planted weights of D's population and of the pre-D RM's other data, with the features they weigh
        with opposite signs (:func:`~pluralign.seal.other_data.opposite_weights`; empty without planted weights)."""
        from pluralign.seal.other_data import opposite_weights

        return opposite_weights(self.D, self.other_parts)

    @functools.cached_property
    def regimes(self) -> np.ndarray:
        """The alignment regime of every pair (Table 1; :func:`~pluralign.seal.resistance.alignment_regimes`)."""
        from pluralign.seal.resistance import alignment_regimes

        return alignment_regimes(self.R)

    @functools.cached_property
    def gamma(self) -> np.ndarray:
        """γ_i per pair under the page's ``labeller_rule`` (App. D.4; :func:`labeller_gamma`), None where a target
        label is missing."""
        return labeller_gamma(self.features, priority=LABELLER_RULES[self.settings.labeller_rule])

    @functools.cached_property
    def label_failures(self) -> LabelFailures | None:
        """The LM-labeller's failed labels (:func:`~pluralign.seal.label_failures.label_failures`); None for
        planted or rule-based features."""
        return label_failures(self.F)

    @functools.cached_property
    def imprint(self) -> dict:
        """The feature imprints (Eq. 1) of the pre-D and post-D RMs, ``{"pre": fit, "post": fit, "seal_code":
        {"pre": fit, "post": fit}, "table": the regression's entries}``: this project's pair fixed-effects fits
        (:func:`~pluralign.seal.imprint.feature_imprint`) and SEAL's code's variant
        (:func:`~pluralign.seal.imprint.feature_imprint_seal_code`: OLS, no FE, classical SEs, VIF with pair
        dummies), as :class:`~pluralign.seal.imprint.ImprintFit`."""
        from pluralign.seal.imprint import feature_imprint, feature_imprint_seal_code, imprint_table

        F = self.features
        table = imprint_table(
            self.R["pair_id"], F.chosen, F.rejected, pre=self.rewards_of("pre"), post=self.rewards_of("post")
        )
        vif = self.settings.vif_threshold
        return {
            "table": table,
            **{k: feature_imprint(table, k, F.regressors, vif_threshold=vif) for k in ("pre", "post")},
            "seal_code": {
                k: feature_imprint_seal_code(table, k, F.regressors, vif_threshold=vif) for k in ("pre", "post")
            },
        }

    @functools.cached_property
    def rewriting(self) -> RewriteRun | None:
        """The § 2.3 rewriting of a random subset of D (:func:`~pluralign.seal.rewriting.rewrite_run`); None when
        the page names no ``rewriter``."""
        return rewrite_run(self)

    @functools.cached_property
    def robustness_fits(self) -> dict | None:
        """The robustness scores (Eq. 4) of the rewritten pairs in both variants, ``{"linear": fit, "logit": fit}``
        (:func:`~pluralign.seal.rewriting.robustness_fits`); None without rewriting or without any label flip."""
        return robustness_fits(self.rewriting, self.view)

    @functools.cached_property
    def robustness_scores(self):
        """The robustness scores of the page's ``robustness_model``
        (:class:`~pluralign.seal.robustness.RobustnessFit`, with ``.table``); None without any."""
        fits = self.robustness_fits
        return None if fits is None else fits[self.settings.robustness_model]


def _resolved(s: SealSettings, models: dict | None) -> SealSettings:
    """The settings with every model they name as its options (:func:`pluralign.named_models.resolve_model`): the
    design's pre-D and post-D RMs, the App. D.1 reward-gap RMs, the labeller, the rewriter and the stability
    labellers; an unknown key of ``models`` is an error before any work."""
    llm = {k: resolve_model(getattr(s, k), models, LLMOptions, what=k) for k in ("labeller", "stability_labellers")}
    if s.rewriter not in (None, "simulator"):
        llm["rewriter"] = resolve_model(s.rewriter, models, LLMOptions, what="rewriter")
    gaps = resolve_model(s.reward_gap_models, models, ModelOptions, what="reward_gap_models")
    return s.replace(design=s.design.resolved(models), reward_gap_models=gaps, **llm)


@part_setup(SealSettings)
def setup(s: SealSettings, profile: str, seed: int, models: dict | None) -> Study:
    """The SEAL study every Part II page starts from, from the page's parameters: ``settings`` and ``overrides``
    are :class:`~pluralign.seal.settings.SealSettings` fields (every page parameter but ``profile``, ``seed`` and
    ``models``; an unknown name is an error naming it). ``models``: the profile's named models, which the design's
    ``reward_models``, the ``labeller`` and the ``rewriter`` may name by key.

    The design (:class:`~pluralign.seal.settings.AlignmentDesign`, the demo's by default) gives D and the other
    data, the pre-D / post-D reward models (:func:`~pluralign.seal.design.alignment_models`) and what they score
    (``scoring_input``;
    default :func:`~pluralign.seal.design.default_scoring_input`); ``features`` the entries' features
    (:func:`~pluralign.seal.design.entry_features`). Models, rewards and labels are cached on disk, so the four
    pages share one computation.
    ``page``: the notebook's name, which a page of the book gives (:func:`pluralign.params.part_setup`)."""
    from pluralign.data import spec

    s = _resolved(s, models)
    d = s.design
    D = spec.from_spec(d.data, seed)
    rms, other, other_parts = d.models(D, seed)
    pairs = chosen_rejected(D)
    scoring_input = d.scoring_input or default_scoring_input(rms)
    R = alignment_rewards(D, rms=rms, scoring_input=scoring_input)
    F = None
    if s.features is not None:
        llm = s.labeller.load() if s.features == "llm" else None
        F = entry_features(D, pairs.table, s.features, llm=llm, temperature=s.labeller_temperature)
    return Study(
        D=D,
        other=other,
        other_parts=other_parts,
        view=pairs.table,
        rms=rms,
        R=R,
        F=F,
        stand_ins=study_stand_ins(d.reward_models, F),
        n_ties_dropped=pairs.n_ties_dropped,
        n_splits_dropped=pairs.n_splits_dropped,
        profile=profile,
        seed=seed,
        settings=s,
        models=models,
        scoring_input=scoring_input,
    )
