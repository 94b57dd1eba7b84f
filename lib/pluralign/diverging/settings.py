"""The settings of the Diverging Preferences pages: :class:`DivergingSettings`, one field per page parameter (besides
``profile``, ``seed`` and ``models``), each default and its meaning written once, validated on construction.

Nested settings are small frozen dataclasses: :class:`Split` (held-out pairs, shared with Part IV),
:class:`Annotation` (the cause-annotation sheets), :class:`CauseClassifier` and :class:`JudgeLLM`; a mapping given
for one is laid over its default key by key, and a key that is not a field is an error naming it.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any

from pluralign.data.simulate import DEMO_DATASETS
from pluralign.diverging.reward_models import MSE_AGGREGATES
from pluralign.model_options import ModelOptions
from pluralign.settings import Section, Settings, setting
from pluralign.stats import N_BOOT

__all__ = ["DivergingSettings", "Split", "Annotation", "CauseClassifier", "JudgeLLM", "PublishedJudges", "HEADS"]

#: How the demo and sample profiles' reward-model heads are named in the pages.
HEADS = {"linear": "linear", "mlp": "small MLP"}

_TIES = ("majority", "plurality")
_REFERENCES = ("planted", None)


def _count(what: str, value, minimum: int = 0) -> None:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        kind = "a positive" if minimum else "a non-negative"
        raise ValueError(f"{what} must be {kind} integer, not {value!r}")


@dataclasses.dataclass(frozen=True)
class Split(Section):
    """Held-out pairs per data set (Diverging Preferences §3: 500 test pairs) and the validation pairs that pick the
    best checkpoint (:func:`pluralign.data.spec.split`)."""

    test: int = setting(300, "held-out test pairs per data set (the paper: 500)")
    validation: int = setting(100, "validation pairs that pick the best checkpoint")

    def __post_init__(self):
        _count("split.test", self.test)
        _count("split.validation", self.validation)


@dataclasses.dataclass(frozen=True)
class Annotation(Section):
    """The cause-annotation sheets of §2.1."""

    n: int = setting(50, "pairs per sheet (§2.1: 50)")
    dir: str | None = setting(None, "where the sheets are written (None: a temporary folder)")
    files: dict = setting({}, "{data set: [filled-in .xlsx files]}: annotators' filled-in sheets")
    reference: str | None = setting(None, "'planted': the simulator's causes as the reference (demo only); or None")

    def __post_init__(self):
        if self.reference not in _REFERENCES:
            raise ValueError(f"annotation.reference must be 'planted' or None, not {self.reference!r}")


@dataclasses.dataclass(frozen=True)
class CauseClassifier(Section):
    """The LLM cause classifier (the taxonomy of §2 asked of an LLM)."""

    llm: Any = setting(None, "pluralign.llm.load arguments or the name of an entry of `models`; None: not run")
    pairs: int = setting(50, "diverging pairs per data set sent to the classifier")


@dataclasses.dataclass(frozen=True)
class JudgeLLM(Section):
    """An LLM judge's P(A) on the held-out pairs (§4): ``load`` or ``simulated``, exactly one of the two."""

    load: Any = setting(None, "pluralign.llm.load arguments, or the name of an entry of `models`")
    simulated: dict | None = setting(
        None, "the demo's stand-in judge: pluralign.diverging.knowing.simulated_judge arguments, e.g. {noise: 1.0}"
    )
    n_pairs: int | None = setting(None, "held-out pairs judged per data set (None: all)")
    label: str = setting("LLM judge", "the judge's name on the page")

    def __post_init__(self):
        if (self.simulated is None) == (self.load is None):
            raise ValueError(
                "judge_llm needs exactly one of 'load' (pluralign.llm.load arguments) and 'simulated' "
                f"(the demo's stand-in, e.g. {{noise: 1.0}}), got load={self.load!r}, simulated={self.simulated!r}"
            )


@dataclasses.dataclass(frozen=True)
class PublishedJudges(Section):
    """Published LLM-judge verdicts on pairs with human annotations (§4)."""

    humans: Any = setting(None, "the human-annotated pairs (a pluralign.data.load spec)")
    verdicts: Any = setting(None, "the judges' verdicts on them (a pluralign.data.load spec)")
    annotators: list = setting([], "the judge ids among the verdicts' annotators")

    def __post_init__(self):
        missing = [k for k in ("humans", "verdicts", "annotators") if not getattr(self, k)]
        if missing:
            raise ValueError(f"judges: missing key(s) {missing}")


@dataclasses.dataclass(frozen=True)
class DivergingSettings(Settings):
    """Every parameter of the Part I pages (Diverging Preferences, Zhang et al. 2024)."""

    datasets: list = setting(
        DEMO_DATASETS, "data specs of pluralign.data.load, one data set each (kept apart, never combined)"
    )
    ties: str = setting(
        "majority", "how §3's 'the majority of annotators labeled the instance as a tie' is read: majority | plurality"
    )
    paper_reference: dict = setting(
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
    train: dict = setting({}, "keyword arguments of RewardModel.train (lr, epochs, batch_size, eval_every, ...)")
    n_boot: int = setting(N_BOOT, "bootstrap resamples for the 95% confidence intervals")
    judges: PublishedJudges | None = setting(
        None, "published LLM-judge verdicts: {humans: data spec, verdicts: data spec, annotators: [judge ids]}, or None"
    )
    judge_llm: JudgeLLM | None = setting(None, "an LLM judge's P(A) on the held-out pairs (JudgeLLM), or None")
    annotation: Annotation = setting(
        Annotation(),
        "the cause-annotation sheets (Annotation): n pairs per sheet (§2.1: 50), dir (None: a temporary folder), "
        "files ({data set: [filled-in .xlsx]}), reference ('planted': the simulator's causes, demo only; or None)",
    )
    cause_classifier: CauseClassifier = setting(
        CauseClassifier(),
        "the LLM cause classifier (CauseClassifier): llm (pluralign.llm.load arguments or the name of an entry of "
        "`models`; None: not run) and pairs (diverging pairs per data set sent to it)",
    )
    mse_aggregate: str = setting(
        "majority", "MSE (Agg)'s label: majority (the paper's majority vote, §3) or mean (the mean Likert score)"
    )

    @classmethod
    def normalize(cls, values: dict) -> dict:
        out = dict(values)
        for name in ("paper_reference", "train"):
            if name in out:
                out[name] = dict(out[name] or {})
        if isinstance(out.get("datasets"), tuple):
            out["datasets"] = list(out["datasets"])
        return out

    def __post_init__(self):
        if not isinstance(self.datasets, list):
            raise ValueError(f"datasets must be a list of data specs, not {self.datasets!r}")
        if self.ties not in _TIES:
            raise ValueError(f"ties must be one of {list(_TIES)}, not {self.ties!r}")
        if self.mse_aggregate not in MSE_AGGREGATES:
            raise ValueError(f"mse_aggregate must be one of {list(MSE_AGGREGATES)}, not {self.mse_aggregate!r}")
        _count("n_boot", self.n_boot, minimum=1)

    @property
    def head(self) -> str:
        """The reward-model head as the pages name it ("linear" / "small MLP"; :func:`pluralign.rewards.load`'s
        default head is linear)."""
        rm = self.reward_model
        return HEADS.get(rm.head if isinstance(rm, ModelOptions) else "linear", "linear")
