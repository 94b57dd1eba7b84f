"""The settings of the Diverging Preferences pages: :class:`DivergingSettings`, one field per page parameter (besides
``profile``, ``seed`` and ``models``), each default and its meaning written once, validated on construction.

Nested settings are small frozen pydantic models: :class:`Split` (held-out pairs, shared with Part IV),
:class:`Annotation` (the cause-annotation sheets), :class:`CauseClassifier` and :class:`JudgeLLM`; a mapping given
for one is laid over its default key by key, and a key that is not a field is an error naming it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from pluralign.data.simulate import DEMO_DATASETS
from pluralign.data.spec import DataSpec
from pluralign.diverging.reward_models import MSE_AGGREGATES
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.settings import Arguments, Section, Settings, setting
from pluralign.stats import N_BOOT
from pluralign.train_options import TrainOptions

__all__ = [
    "DivergingSettings",
    "Split",
    "Annotation",
    "CauseClassifier",
    "JudgeLLM",
    "PublishedJudges",
    "SimulatedJudge",
    "HEADS",
]

#: How the demo and sample profiles' reward-model heads are named in the pages.
HEADS = {"linear": "linear", "mlp": "small MLP"}


class Split(Section):
    """Held-out pairs per data set (Diverging Preferences §3: 500 test pairs) and the validation pairs that pick the
    best checkpoint (:func:`pluralign.data.spec.split`)."""

    test: int = setting(300, "held-out test pairs per data set (the paper: 500)", ge=0)
    validation: int = setting(100, "validation pairs that pick the best checkpoint", ge=0)


class Annotation(Section):
    """The cause-annotation sheets of §2.1."""

    n: int = setting(50, "pairs per sheet (§2.1: 50)", ge=0)
    dir: str | None = setting(None, "where the sheets are written (None: a temporary folder)")
    files: dict[str, list[str]] = setting({}, "{data set: [filled-in .xlsx files]}: annotators' filled-in sheets")
    reference: Literal["planted"] | None = setting(
        None, "'planted': the simulator's causes as the reference (demo only); or None"
    )


class CauseClassifier(Section):
    """The LLM cause classifier (the taxonomy of §2 asked of an LLM)."""

    llm: LLMOptions | str | None = setting(
        None, "pluralign.llm.load arguments or the name of an entry of `models`; None: not run"
    )
    pairs: int = setting(50, "diverging pairs per data set sent to the classifier", ge=0)


class SimulatedJudge(Arguments):
    """The demo's stand-in LLM judge (:func:`pluralign.diverging.knowing.simulated_judge`'s arguments)."""

    noise: float | None = setting(None, "the judge's log-odds noise around the planted population share", ge=0)


class JudgeLLM(Section):
    """An LLM judge's P(A) on the held-out pairs (§4): ``load`` or ``simulated``, exactly one of the two."""

    load: LLMOptions | str | None = setting(None, "pluralign.llm.load arguments, or the name of an entry of `models`")
    simulated: SimulatedJudge | None = setting(
        None, "the demo's stand-in judge: pluralign.diverging.knowing.simulated_judge arguments, e.g. {noise: 1.0}"
    )
    n_pairs: int | None = setting(None, "held-out pairs judged per data set (None: all)", gt=0)
    label: str = setting("LLM judge", "the judge's name on the page")

    @model_validator(mode="after")
    def _one_judge(self):
        if (self.simulated is None) == (self.load is None):
            raise ValueError(
                "judge_llm needs exactly one of 'load' (pluralign.llm.load arguments) and 'simulated' "
                "(the demo's stand-in, e.g. {noise: 1.0})"
            )
        return self


class PublishedJudges(Section):
    """Published LLM-judge verdicts on pairs with human annotations (§4)."""

    humans: DataSpec = Field(description="the human-annotated pairs (a pluralign.data.load spec)")
    verdicts: DataSpec = Field(description="the judges' verdicts on them (a pluralign.data.load spec)")
    annotators: list[str] = Field(min_length=1, description="the judge ids among the verdicts' annotators")


class DivergingSettings(Settings):
    """Every parameter of the Part I pages (Diverging Preferences, Zhang et al. 2024)."""

    datasets: list[DataSpec] = setting(
        DEMO_DATASETS, "data specs of pluralign.data.load, one data set each (kept apart, never combined)"
    )
    ties: Literal["majority", "plurality"] = setting(
        "majority", "how §3's 'the majority of annotators labeled the instance as a tie' is read: majority | plurality"
    )
    paper_reference: dict[str, Literal["multipref", "helpsteer2"]] = setting(
        {},
        "{data-set name: multipref | helpsteer2}: the paper's data set a stand-in data set is compared with "
        "(e.g. {pandalm: multipref}); names containing 'multipref' / 'helpsteer2' are matched without it",
    )
    split: Split = setting(
        Split(), "held-out pairs per data set (500 in the paper) and the pairs that pick the best checkpoint"
    )
    reward_model: ModelOptions | str | None = setting(
        None,
        "keyword arguments of pluralign.rewards.load, or the name of an entry of `models` "
        "(None: frozen all-MiniLM-L6-v2 + linear head)",
    )
    train: TrainOptions = setting(
        TrainOptions(), "how the RMs are trained (TrainOptions: lr, epochs, batch_size, eval_every, ...)"
    )
    n_boot: int = setting(N_BOOT, "bootstrap resamples for the 95% confidence intervals", ge=1)
    judges: PublishedJudges | None = setting(
        None,
        "published LLM-judge verdicts: {humans: data spec, verdicts: data spec, annotators: [judge ids]}, or None",
        pages=("diverging_know",),
    )
    judge_llm: JudgeLLM | None = setting(
        None, "an LLM judge's P(A) on the held-out pairs (JudgeLLM), or None", pages=("diverging_know",)
    )
    annotation: Annotation = setting(
        Annotation(),
        "the cause-annotation sheets (Annotation): n pairs per sheet (§2.1: 50), dir (None: a temporary folder), "
        "files ({data set: [filled-in .xlsx]}), reference ('planted': the simulator's causes, demo only; or None)",
    )
    cause_classifier: CauseClassifier = setting(
        CauseClassifier(),
        "the LLM cause classifier (CauseClassifier): llm (pluralign.llm.load arguments or the name of an entry of "
        "`models`; None: not run) and pairs (diverging pairs per data set sent to it)",
        pages=("diverging_causes_llm",),
    )
    mse_aggregate: Literal[tuple(MSE_AGGREGATES)] = setting(
        "majority", "MSE (Agg)'s label: majority (the paper's majority vote, §3) or mean (the mean Likert score)"
    )

    @property
    def head(self) -> str:
        """The reward-model head as the pages name it ("linear" / "small MLP"; :func:`pluralign.rewards.load`'s
        default head is linear)."""
        rm = self.reward_model
        return HEADS.get(rm.head if isinstance(rm, ModelOptions) else "linear", "linear")
