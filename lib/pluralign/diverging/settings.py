"""The settings of the Diverging Preferences pages: :class:`DivergingSettings`, one field per page parameter (besides
``profile``, ``seed`` and ``models``), each default and its meaning written once, validated on construction.

Nested settings (``split``, ``annotation``, ``cause_classifier``, ``judge_llm``) are dictionaries whose missing
keys take the defaults written here (:func:`pluralign.settings.merge`, in :meth:`DivergingSettings.__post_init__`
only); a key that is not a default's is an error naming it.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any

from pluralign.diverging.reward_models import MSE_AGGREGATES
from pluralign.settings import Settings, merge, setting

__all__ = ["DivergingSettings", "JUDGE_LLM", "HEADS"]

#: How the demo and sample profiles' reward-model heads are named in the pages.
HEADS = {"linear": "linear", "mlp": "small MLP"}

#: The keys of ``judge_llm`` and their defaults: ``load`` (:func:`pluralign.llm.load` arguments, or the name of an
#: entry of ``models``) or ``simulated`` (the demo's stand-in judge, :func:`pluralign.diverging.knowing.simulated_judge`
#: arguments, e.g. ``{noise: 1.0}``) — exactly one of the two; ``n_pairs``: held-out pairs judged per data set
#: (None: all); ``label``: the judge's name on the page.
JUDGE_LLM = {"load": None, "simulated": None, "n_pairs": None, "label": "LLM judge"}

_TIES = ("majority", "plurality")
_REFERENCES = ("planted", None)


@dataclasses.dataclass(frozen=True)
class DivergingSettings(Settings):
    """Every parameter of the Part I pages (Diverging Preferences, Zhang et al. 2024)."""

    datasets: list = setting(
        [
            {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "multipref"}},
            {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}},
        ],
        "data specs of pluralign.data.load, one data set each (kept apart, never combined)",
    )
    ties: str = setting(
        "majority", "how §3's 'the majority of annotators labeled the instance as a tie' is read: majority | plurality"
    )
    paper_reference: dict = setting(
        {},
        "{data-set name: multipref | helpsteer2}: the paper's data set a stand-in data set is compared with "
        "(e.g. {pandalm: multipref}); names containing 'multipref' / 'helpsteer2' are matched without it",
    )
    split: dict = setting(
        {"test": 300, "validation": 100},
        "held-out pairs per data set (500 in the paper) and the pairs that pick the best checkpoint",
    )
    reward_model: Any = setting(
        None,
        "keyword arguments of pluralign.rewards.load, or the name of an entry of `models` "
        "(None: frozen all-MiniLM-L6-v2 + linear head)",
    )
    train: dict = setting({}, "keyword arguments of RewardModel.train (lr, epochs, batch_size, eval_every, ...)")
    n_boot: int = setting(2000, "bootstrap resamples for the 95% confidence intervals")
    judges: dict | None = setting(
        None, "published LLM-judge verdicts: {humans: data spec, verdicts: data spec, annotators: [judge ids]}, or None"
    )
    judge_llm: dict | None = setting(
        None, "an LLM judge's P(A) on the held-out pairs (keys and defaults: JUDGE_LLM), or None"
    )
    annotation: dict = setting(
        {"n": 50, "dir": None, "files": {}, "reference": None},
        "the cause-annotation sheets: n pairs per sheet (§2.1: 50), dir (None: a temporary folder), files "
        "({data set: [filled-in .xlsx]}), reference ('planted': the simulator's causes, demo only; or None)",
    )
    cause_classifier: dict = setting(
        {"llm": None, "pairs": 50},
        "the LLM cause classifier: llm (pluralign.llm.load arguments or the name of an entry of `models`; None: "
        "not run) and pairs (diverging pairs per data set sent to it)",
    )
    mse_aggregate: str = setting(
        "majority", "MSE (Agg)'s label: majority (the paper's majority vote, §3) or mean (the mean Likert score)"
    )

    def __post_init__(self):
        for name in ("split", "annotation", "cause_classifier"):
            self._set(name, merge(_default(name), getattr(self, name), what=name))
        if self.judge_llm is not None:
            judge = merge(JUDGE_LLM, self.judge_llm, what="judge_llm")
            if (judge["simulated"] is None) == (judge["load"] is None):
                raise ValueError(
                    "judge_llm needs exactly one of 'load' (pluralign.llm.load arguments) and 'simulated' "
                    f"(the demo's stand-in, e.g. {{noise: 1.0}}), got keys {sorted(self.judge_llm)}"
                )
            self._set("judge_llm", judge)
        if self.judges is not None:
            missing = sorted({"humans", "verdicts", "annotators"} - set(self.judges))
            if missing:
                raise ValueError(f"judges: missing key(s) {missing} in {self.judges!r}")
        if not isinstance(self.datasets, (list, tuple)):
            raise ValueError(f"datasets must be a list of data specs, not {self.datasets!r}")
        self._set("datasets", list(self.datasets))
        self._set("paper_reference", dict(self.paper_reference or {}))
        self._set("train", dict(self.train or {}))
        if self.ties not in _TIES:
            raise ValueError(f"ties must be one of {list(_TIES)}, not {self.ties!r}")
        if self.mse_aggregate not in MSE_AGGREGATES:
            raise ValueError(f"mse_aggregate must be one of {list(MSE_AGGREGATES)}, not {self.mse_aggregate!r}")
        if not isinstance(self.n_boot, numbers.Integral) or self.n_boot < 1:
            raise ValueError(f"n_boot must be a positive integer, not {self.n_boot!r}")
        if self.annotation["reference"] not in _REFERENCES:
            raise ValueError(f"annotation.reference must be 'planted' or None, not {self.annotation['reference']!r}")
        for key in ("test", "validation"):
            if not isinstance(self.split[key], numbers.Integral) or self.split[key] < 0:
                raise ValueError(f"split.{key} must be a non-negative integer, not {self.split[key]!r}")

    def _set(self, name: str, value) -> None:
        object.__setattr__(self, name, value)  # a frozen dataclass normalizes its own fields on construction

    @property
    def head(self) -> str:
        """The reward-model head as the pages name it ("linear" / "small MLP"; :func:`pluralign.rewards.load`'s
        default head is linear)."""
        spec = self.reward_model if isinstance(self.reward_model, dict) else {}
        return HEADS.get(spec.get("head", "linear"), "linear")


def _default(name: str) -> dict:
    """The default of the dictionary field ``name`` (written once, in the field)."""
    field = next(f for f in dataclasses.fields(DivergingSettings) if f.name == name)
    return field.default_factory()  # type: ignore[misc]
