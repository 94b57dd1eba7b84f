"""The settings of the Beyond the Binary pages: :class:`BtbSettings`, one field per page parameter (besides
``profile``, ``seed`` and ``models``), each default and its meaning written once, validated on construction.

Nested settings are small frozen pydantic models: :class:`Labeller` (Appendix B's LLM labeller), :class:`Judge` (the
synthetic judgments of Eq. 3, shared with Part IV), :class:`Evaluation` (the test set of Tables 1–2) and
:class:`Training` (the two reward models); a mapping given for one is laid over its default key by key, and a key
that is not a field is an error naming it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from pluralign.btb.evaluation import PAPER_IN_DOMAIN, PAPER_OUT_OF_DOMAIN
from pluralign.btb.sources import CATEGORY_SOURCES, P_STAR_SOURCES
from pluralign.btb.training import LR_SWEEP, lr_grid
from pluralign.data.spec import DataSpec, OodBy
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.settings import Section, Settings, setting
from pluralign.stats import N_BOOT
from pluralign.train_options import TrainOptions

__all__ = [
    "BtbSettings",
    "DEMO_DATA",
    "Labeller",
    "Judge",
    "Evaluation",
    "Training",
    "JUDGE_SOURCES",
    "PStarSource",
    "CategorySource",
]

#: The demo's data: the simulator's 1,200 pairs with planted p* and categories.
DEMO_DATA = [{"simulate": {"n_pairs": 1200, "seed": 0}}]

#: Where the synthetic judgments of Eq. 3 may come from (:attr:`Judge.source`); None / "none": no judge.
JUDGE_SOURCES = ("simulated", "llm", "annotators")
#: Where p* (Eq. 2) may come from (:data:`pluralign.btb.sources.P_STAR_SOURCES`), and the categories of §3.1
#: (:data:`pluralign.btb.sources.CATEGORY_SOURCES`, or ``{kind: {data-set name: single | multiple}}``).
PStarSource = Literal[P_STAR_SOURCES]
CategorySource = Literal[CATEGORY_SOURCES] | dict[str, dict[str, Literal["single", "multiple"]]]


class Labeller(Section):
    """The LLM labeller of Appendix B (categories, p*)."""

    model: LLMOptions | str | list[LLMOptions | str] | None = setting(
        None,
        "pluralign.llm.load arguments (an API key only through api_key_env), a list of them for distinct "
        "labellers, or a key of `models`",
    )
    samples: int = setting(3, "answers per model (distinct 'labellers' only if sampled: temperature > 0)", ge=1)
    temperature: float = setting(1.0, "the sampling temperature", ge=0)
    top_p: float = setting(0.9, "nucleus sampling's top_p", gt=0, le=1)
    job: str = setting("btb-labels", "a resumable job name")


class Judge(Section):
    """Where the synthetic judgments of Eq. 3 come from (Beyond the Binary §3.3), and how many per pair."""

    source: Literal[(*JUDGE_SOURCES, "none")] | None = setting(
        "simulated",
        "simulated (the offline stand-in: the population share with log-odds noise, demo only), llm (model, with "
        "method 'sample': n sampled 'Choice: A/B' completions with nucleus sampling top_p, as the paper, or "
        "'logprob': n draws from the model's P(A)), annotators (the data's own annotators); None: no judge",
    )
    n: int = setting(10, "judgments per pair: n in Eq. 3 (§3.3: '10 synthetic annotations' per example)", ge=1)
    noise: float = setting(
        1.0,
        "the simulated judge's log-odds noise (demo only: a stated round value, since no paper reports how far an LLM "
        "judge's P(A) sits from a population's split; pluralign.data.difficulty lists it)",
        ge=0,
    )
    top_p: float = setting(0.9, "nucleus sampling's top_p (method 'sample')", gt=0, le=1)
    model: LLMOptions | str | None = setting(None, "the judging LLM: pluralign.llm.load arguments or a key of `models`")
    method: Literal["sample", "logprob"] = setting("sample", "'sample' (the paper's) or 'logprob'")
    job: str = setting("btb-margins", "a resumable job name")

    @property
    def active(self) -> bool:
        """Whether a judge gives synthetic margins (``source`` is not None / "none")."""
        return self.source not in (None, "none")

    def judgments(self, data, *, seed: int, p_star=None):
        """Per-pair judgments and margins (Eq. 3) of ``data`` from this judge
        (:func:`pluralign.btb.margins.judgments_from`)."""
        from pluralign.btb.margins import judgments_from

        return judgments_from(
            self.source,
            data,
            n=self.n,
            seed=seed,
            p_star=p_star,
            noise=self.noise,
            judge=self.model,
            method=self.method,
            top_p=self.top_p,
            job=self.job,
        )


class Evaluation(Section):
    """The test set of Tables 1–2 and its bootstrap."""

    test_only: list[DataSpec] = setting([], "evaluation-only data specs (never trained on)")
    test_per_dataset: Annotated[int, Field(ge=0)] | dict[str, Annotated[int, Field(ge=0)]] = setting(
        0, "pairs of each test_only data set: 0 = all; n > 0 = a random n (the paper: 25); or {data-set name: n}"
    )
    ood_by: OodBy | None = setting(None, "pairs held out as out-of-domain by a truth column: {column, values}")
    test_size: int = setting(0, "in-domain held-out pairs (0: test on test_only only)", ge=0)
    dataset_column: str = setting("dataset", "the data-set names of Tables 1-2: 'dataset' or a truth column")
    display_names: dict[str, str] = setting({}, "{data-set name: the paper's name}")
    in_domain: list[str] = setting(list(PAPER_IN_DOMAIN), "the in-domain data sets (display names)")
    out_of_domain: list[str] = setting(list(PAPER_OUT_OF_DOMAIN), "the out-of-domain data sets (display names)")
    n_boot: int = setting(N_BOOT, "bootstrap resamples", ge=1)
    paper_sized_check: int = setting(0, "also the paired CI of Δ on a random test subset of this size (0 = skip)", ge=0)


class Training(Section):
    """The two reward models of §3.3: Eq. 1's baseline and Eq. 4's margin-regularized model."""

    reward_model: ModelOptions | str | None = setting(
        None, "pluralign.rewards.load arguments or a key of `models` (None = frozen all-MiniLM-L6-v2 + linear head)"
    )
    baseline_model: ModelOptions | str | None = setting(
        None,
        "None (train reward_model with Eq. 1 and the same sweep) or an already trained RM (the paper: "
        "OpenAssistant/reward-model-deberta-v3-large-v2)",
    )
    lr_sweep: Annotated[list[float], BeforeValidator(lr_grid)] = setting(
        list(LR_SWEEP),
        "the learning rates of the sweep (footnote 6; 'paper' = 1e-4, 1e-5, 1e-6 for fine-tuning DeBERTa-v3, "
        "pluralign.btb.training.LR_SWEEP; a linear head on frozen embeddings needs larger steps)",
    )
    select_on: str = setting(
        "accuracy", "what picks the learning rate on validation: accuracy or loss (footnote 6 names none)"
    )
    validation_size: int = setting(2000, "validation pairs", ge=0)
    train: TrainOptions = setting(TrainOptions(), "how both RMs are trained (TrainOptions: epochs, batch_size, ...)")


class BtbSettings(Settings):
    """Every parameter of the Part III pages (Beyond the Binary, Padmakumar et al. 2024)."""

    data: list[DataSpec] = setting(
        DEMO_DATA,
        "data specs (pluralign.data.spec.from_spec), concatenated; the default is the simulator's 1,200 pairs with "
        "planted p* and categories. On the rewards page this is the training data (one binary judgment per pair)",
    )
    per_dataset: Annotated[int, Field(ge=0)] | dict[str, Annotated[int, Field(ge=0)]] = setting(
        0,
        "pairs of each data set: 0 = all; n > 0 = a random n of each (the paper: 25); {data-set name: n} for the "
        "named ones only",
    )
    p_star_from: PStarSource | list[PStarSource] = setting(
        "truth",
        "where p* (Eq. 2) comes from: truth (the simulator's planted population share), annotators (the share of a "
        "data set's real annotators), labels (human answers to Appendix B task 3 in labels_file: pair_id, "
        "labeller, prefer_a out of 10, averaged), llm (task 3 asked of the labeller), none; or a list of these, "
        "tried in order per pair (e.g. [labels, annotators, llm]: human labels where labels_file has them, the "
        "data's annotators where a pair has at least 3, the LLM labeller for the rest)",
    )
    categories: CategorySource | list[CategorySource] = setting(
        "truth",
        "where the categories of §3.1 come from: truth (the simulator's planted kind / distinguishability), llm "
        "(Appendix B tasks 1-2 asked of the labeller), labels (human labels in labels_file, majority vote), "
        "{kind: {data-set name: single | multiple}} (one category per data set), none; or a list of these. An LLM "
        "labeller of the margin judge's model family makes the evaluation circular (the pages warn)",
    )
    labels_file: str | None = setting(
        None, "a CSV of human answers to Appendix B (pair_id, labeller, prefer_a [0-10], kind, distinguishable)"
    )
    labeller: Labeller = setting(Labeller(), "the LLM labeller of Appendix B (Labeller)")
    judge: Judge = setting(Judge(), "where the synthetic judgments of Eq. 3 come from, n per pair (Judge)")
    evaluation: Evaluation = setting(Evaluation(), "the test set of Tables 1-2 and its bootstrap (Evaluation)")
    training: Training = setting(
        Training(), "the reward models, their learning-rate sweep and RewardModel.train arguments (Training)"
    )
    n_examples: int = setting(
        1, "example pairs shown per category (the subjectivity page)", ge=0, pages=("btb_subjectivity",)
    )
    embedded_pairs: int = setting(
        8,
        "pairs judged by the embedded base model (Gemma 3 270M) on the margins page, to show the real LLM path "
        "(0 = skip)",
        ge=0,
    )
    show_prompt: bool = setting(
        True, "show the Appendix A judgment prompt filled with the first pair", pages=("btb_margins",)
    )

    @field_validator("data", mode="before")
    @classmethod
    def _one_or_many(cls, value):
        """One data spec is a list of one."""
        return [value] if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _a_judge(self):
        """Part III needs a judge (Part IV may run without one)."""
        if self.judge.source not in JUDGE_SOURCES:
            raise ValueError(f"judge.source must be one of {list(JUDGE_SOURCES)}, not {self.judge.source!r}")
        return self
