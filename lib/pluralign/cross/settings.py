"""The settings of Part IV's study (across the three papers): one field per page parameter of the four cross pages
(``notebooks/cross_*.py``, ``params/<profile>/cross-study.yml``), each default and its documentation written here
once. Its nested settings are the other parts' own: the synthetic judge of Beyond the Binary Eq. 3
(:class:`pluralign.btb.settings.Judge`), Diverging Preferences' held-out split
(:class:`pluralign.diverging.settings.Split`) and SEAL's pre-D / post-D reward models
(:class:`pluralign.seal.settings.AlignmentDesign`, with D the study's own data); a mapping given for one is laid
over its default key by key."""

from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from pluralign.btb.settings import Judge, PStarSource
from pluralign.data.spec import DataSpec
from pluralign.diverging.settings import Split
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.seal.settings import AlignmentDesign
from pluralign.settings import Settings, setting
from pluralign.stats import N_BOOT
from pluralign.train_options import TrainOptions

__all__ = ["CrossSettings", "DEMO_DATA"]

#: The demo's data: the simulator's HelpSteer2-format pairs (four annotators with Likert scores, so the MSE model
#: trains too), the same pairs Part I's second demo data set uses (its embeddings and models are reused).
DEMO_DATA = {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}}


class CrossSettings(Settings):
    """What Part IV's four pages analyse and how (:func:`pluralign.cross.setup`)."""

    data: DataSpec | list[DataSpec] = setting(
        DEMO_DATA,
        "one multi-annotator data spec (pluralign.data.spec.from_spec), or a list of them, each analysed apart "
        "(the paper profile: MultiPref and HelpSteer2, never combined)",
    )
    ties: Literal["majority", "plurality"] = setting(
        "majority", "the reading of Diverging Preferences §3's tie class: 'majority' or 'plurality'"
    )
    p_star_from: PStarSource | list[PStarSource] = setting(
        "truth",
        "where p* (Beyond the Binary Eq. 2) comes from: truth, annotators, labels, llm or none (a list: fallbacks)",
    )
    labeller: LLMOptions | str | None = setting(
        None, "the LLM labeller of p_star_from 'llm' (llm.load arguments or a key of models)"
    )
    judge: Judge = setting(
        Judge(job="cross-margins"),
        "the synthetic judge of Eq. 3 (pluralign.btb.settings.Judge); source None: no synthetic margin, only the "
        "annotators' gold one",
    )
    split: Split = setting(Split(), "held-out pairs (pluralign.diverging.settings.Split: test, validation)")
    reward_model: ModelOptions | str | None = setting(
        None, "the reward model: pluralign.rewards.load arguments or a key of models (None: load's defaults)"
    )
    train: TrainOptions = setting(TrainOptions(), "how the five models of question 4 are trained (TrainOptions)")
    train_margin: Literal["synthetic", "gold"] = setting(
        "synthetic", "what Eq. 4's margin-regularized RM trains on: 'synthetic' (gold when there is no judge) or 'gold'"
    )
    seal: AlignmentDesign = setting(
        AlignmentDesign(data=None, scoring_input=None),
        "SEAL's pre-D / post-D reward models (pluralign.seal.settings.AlignmentDesign without data: D is the "
        "study's own data)",
    )
    n_boot: int = setting(N_BOOT, "bootstrap resamples of every 95% CI", ge=1)

    @model_validator(mode="after")
    def _own_data(self):
        """Part IV's D is the study's own data, scored as it was loaded."""
        if self.seal.data is not None:
            raise ValueError("seal.data: Part IV's D is the study's own data (leave seal.data out)")
        if self.seal.scoring_input is not None:
            raise ValueError("seal.scoring_input: Part IV scores its own pairs as they were loaded (leave it out)")
        return self

    @property
    def has_judge(self) -> bool:
        """Whether a synthetic judge gives margins (:attr:`pluralign.btb.settings.Judge.active`)."""
        return self.judge.active
