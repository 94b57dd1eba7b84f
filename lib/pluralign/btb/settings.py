"""The settings of the Beyond the Binary pages: :class:`BtbSettings`, one field per page parameter (besides
``profile``, ``seed`` and ``models``), each default and its meaning written once, validated on construction.

The nested settings ``labeller``, ``judge``, ``evaluation`` and ``training`` are dictionaries whose missing keys
take the defaults :data:`LABELLER`, :data:`JUDGE`, :data:`EVALUATION` and :data:`TRAINING`
(:func:`pluralign.settings.merge`, in :meth:`BtbSettings.__post_init__` only); a key that is not a default's is an
error naming it (``training`` also passes any other key to ``RewardModel.train``). A field given as None takes its
default: a page's parameter left at None means the study's default.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any

from pluralign.btb.evaluation import PAPER_IN_DOMAIN, PAPER_OUT_OF_DOMAIN
from pluralign.btb.sources import check_sources
from pluralign.btb.training import lr_grid
from pluralign.data.difficulty import JUDGE_N, JUDGE_NOISE
from pluralign.settings import Settings, merge, setting

__all__ = ["BtbSettings", "DEMO_DATA", "LABELLER", "JUDGE", "EVALUATION", "TRAINING", "JUDGE_SOURCES"]

#: The demo's data: the simulator's 1,200 pairs with planted p* and categories.
DEMO_DATA = [{"simulate": {"n_pairs": 1200, "seed": 0}}]

#: The LLM labeller of Appendix B (categories, p*): ``model`` (:func:`pluralign.llm.load` arguments, a list of
#: them for distinct labellers, or a key of ``models``), ``samples`` answers each (they differ only when
#: sampled: ``temperature`` > 0), ``job`` (a resumable job name).
LABELLER = {"model": None, "samples": 3, "temperature": 1.0, "top_p": 0.9, "job": "btb-labels"}

#: Where the synthetic judgments of Eq. 3 come from: ``from`` = ``"simulated"`` (the offline stand-in judge
#: with log-odds ``noise``), ``"llm"`` (``model`` with ``method`` "sample" — the paper's nucleus sampling,
#: ``top_p`` — or "logprob") or ``"annotators"`` (the data's own annotators); ``n`` judgments per pair
#: (§3.3: 10); ``job`` a resumable job name.
JUDGE = {
    "from": "simulated",
    "n": JUDGE_N,
    "top_p": 0.9,
    "noise": JUDGE_NOISE,
    "model": None,
    "method": "sample",
    "job": "btb-margins",
}
#: The judges :data:`JUDGE` ``from`` may name.
JUDGE_SOURCES = ("simulated", "llm", "annotators")

#: The test set of Tables 1–2: ``test_only`` (evaluation-only data specs, each sub-sampled to
#: ``test_per_dataset``), ``ood_by`` (a truth / pairs column whose ``values`` are out-of-domain), ``test_size``
#: held-out in-domain pairs, the data-set names (``dataset_column``: "dataset" or a truth column;
#: ``display_names``), which are ``in_domain`` / ``out_of_domain``, ``n_boot`` bootstrap resamples and
#: ``paper_sized_check`` (the size of a random test subset to compare the interval width on; 0 = skip).
EVALUATION = {
    "test_only": [],
    "test_per_dataset": 0,
    "ood_by": None,
    "test_size": 0,
    "dataset_column": "dataset",
    "display_names": {},
    "in_domain": list(PAPER_IN_DOMAIN),
    "out_of_domain": list(PAPER_OUT_OF_DOMAIN),
    "n_boot": 2000,
    "paper_sized_check": 0,
}

#: The reward models: ``reward_model`` (:func:`pluralign.rewards.load` arguments or a key of ``models``;
#: None = a linear head on frozen all-MiniLM-L6-v2), ``baseline_model`` (None: ``reward_model`` trained with
#: Eq. 1 and the same sweep; or an already trained RM), the learning rates ``lr_sweep`` chosen on
#: ``validation_size`` pairs by ``select_on`` (``"paper"`` = footnote 6's grid,
#: :data:`pluralign.btb.training.LR_SWEEP`, or a list; :func:`pluralign.btb.training.lr_grid`); every other key
#: is passed to ``RewardModel.train``.
TRAINING = {
    "reward_model": None,
    "baseline_model": None,
    "lr_sweep": "paper",
    "select_on": "accuracy",
    "validation_size": 2000,
}

_NESTED = {"labeller": LABELLER, "judge": JUDGE, "evaluation": EVALUATION}


@dataclasses.dataclass(frozen=True)
class BtbSettings(Settings):
    """Every parameter of the Part III pages (Beyond the Binary, Padmakumar et al. 2024)."""

    data: list = setting(
        DEMO_DATA,
        "data specs (pluralign.data.spec.from_spec), concatenated; the default is the simulator's 1,200 pairs with "
        "planted p* and categories. On the rewards page this is the training data (one binary judgment per pair)",
    )
    per_dataset: Any = setting(
        0,
        "pairs of each data set: 0 = all; n > 0 = a random n of each (the paper: 25); {data-set name: n} for the "
        "named ones only",
    )
    p_star_from: Any = setting(
        "truth",
        "where p* (Eq. 2) comes from: truth (the simulator's planted population share), annotators (the share of a "
        "data set's real annotators), labels (human answers to Appendix B task 3 in labels_file: pair_id, "
        "labeller, prefer_a out of 10, averaged), llm (task 3 asked of the labeller), none; or a list of these, "
        "tried in order per pair (e.g. [labels, annotators, llm]: human labels where labels_file has them, the "
        "data's annotators where a pair has at least 3, the LLM labeller for the rest)",
    )
    categories: Any = setting(
        "truth",
        "where the categories of §3.1 come from: truth (the simulator's planted kind / distinguishability), llm "
        "(Appendix B tasks 1-2 asked of the labeller), labels (human labels in labels_file, majority vote), "
        "{kind: {data-set name: single | multiple}} (one category per data set), none; or a list of these. An LLM "
        "labeller of the margin judge's model family makes the evaluation circular (the pages warn)",
    )
    labels_file: str | None = setting(
        None, "a CSV of human answers to Appendix B (pair_id, labeller, prefer_a [0-10], kind, distinguishable)"
    )
    labeller: dict = setting(
        LABELLER,
        "the LLM labeller of Appendix B (keys and defaults: LABELLER): model (pluralign.llm.load arguments, an API "
        "key only through api_key_env, or a list of them, or a key of `models`), samples per model (distinct "
        "'labellers' only if sampled: temperature > 0), temperature, top_p, job",
    )
    judge: dict = setting(
        JUDGE,
        "where the synthetic judgments of Eq. 3 come from (keys and defaults: JUDGE): from = simulated (the "
        "offline stand-in: the population share with log-odds noise, demo only), llm (model: pluralign.llm.load "
        "arguments or a key of `models`, with method 'sample': n sampled 'Choice: A/B' completions with nucleus "
        "sampling top_p, as the paper, or 'logprob': n draws from the model's P(A)) or annotators (the data's own "
        "annotators); n = n in Eq. 3 (§3.3: 10); job: a resumable job name",
    )
    evaluation: dict = setting(
        EVALUATION,
        "the test set of Tables 1-2 (keys and defaults: EVALUATION): evaluation-only data specs (test_only, never "
        "trained on), each sub-sampled to test_per_dataset pairs (the paper: 25; or {data-set name: n}); pairs "
        "held out as out-of-domain by a column of the simulator's truth (ood_by: {column, values}); test_size "
        "in-domain held-out pairs (0: test on test_only only); the data-set names of Tables 1-2 (dataset_column: "
        "'dataset' or a truth column; display_names: the paper's names) and which are in_domain / out_of_domain; "
        "n_boot bootstrap resamples; paper_sized_check: also the paired CI of Δ on a random test subset of this "
        "size (0 = skip)",
    )
    training: dict = setting(
        TRAINING,
        "the reward models (keys and defaults: TRAINING): reward_model = pluralign.rewards.load arguments or a key "
        "of `models` (None = frozen all-MiniLM-L6-v2 + linear head); baseline_model = None (train reward_model "
        "with Eq. 1 and the same sweep) or an already trained RM (the paper: "
        "OpenAssistant/reward-model-deberta-v3-large-v2); lr_sweep: the learning rates of the sweep (footnote 6; "
        "'paper' = 1e-4, 1e-5, 1e-6 for fine-tuning DeBERTa-v3, pluralign.btb.training.LR_SWEEP; a linear head on "
        "frozen embeddings needs larger steps), chosen on validation_size pairs by select_on (accuracy or loss; "
        "footnote 6 names none); any other key (epochs, batch_size, ...) is passed to RewardModel.train",
    )
    n_examples: int = setting(1, "example pairs shown per category (the subjectivity page)")
    embedded_pairs: int = setting(
        8,
        "pairs judged by the embedded base model (Gemma 3 270M) on the margins page, to show the real LLM path "
        "(0 = skip)",
    )
    show_prompt: bool = setting(True, "show the Appendix A judgment prompt filled with the first pair")

    def __post_init__(self):
        for f in dataclasses.fields(self):  # None: the default (a page's parameter left at None)
            if getattr(self, f.name) is None:
                self._set(f.name, f.default_factory() if f.default is dataclasses.MISSING else f.default)
        for name, defaults in _NESTED.items():
            self._set(name, merge(defaults, getattr(self, name), what=name))
        known = {k: v for k, v in self.training.items() if k in TRAINING}
        extra = {k: v for k, v in self.training.items() if k not in TRAINING}  # RewardModel.train's options
        training = {**merge(TRAINING, known, what="training"), **extra}
        training["lr_sweep"] = lr_grid(training["lr_sweep"])
        self._set("training", training)
        if isinstance(self.data, dict):
            self._set("data", [self.data])
        if not isinstance(self.data, (list, tuple)):
            raise ValueError(f"data must be a list of data specs, not {self.data!r}")
        check_sources(self.p_star_from, self.categories)
        if self.judge["from"] not in JUDGE_SOURCES:
            raise ValueError(f"judge.from must be one of {list(JUDGE_SOURCES)}, not {self.judge['from']!r}")
        if not isinstance(self.judge["n"], numbers.Integral) or self.judge["n"] < 1:
            raise ValueError(f"judge.n must be a positive integer, not {self.judge['n']!r}")
        for name in ("n_examples", "embedded_pairs"):
            v = getattr(self, name)
            if not isinstance(v, numbers.Integral) or v < 0:
                raise ValueError(f"{name} must be a non-negative integer, not {v!r}")

    def _set(self, name: str, value) -> None:
        object.__setattr__(self, name, value)  # a frozen dataclass normalizes its own fields on construction
