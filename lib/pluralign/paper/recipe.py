"""The recipe the three papers state: every setting of their experiments that a paper writes down (sample sizes,
sampling parameters, learning rates, training schedules, thresholds), transcribed once with where the paper states
it and its words, as :data:`RECIPE` (:func:`recipe`).

The ``paper`` profile writes each of them in its own parameter files (``params/paper/*.yml``), beside a comment
naming the section, whether or not it equals a library default: a change of a default (the demo's difficulty, say)
never changes the paper profile. ``uses`` says where: ``(file, key)``, the file of ``params/paper/`` and the dotted
key (a nested setting's field, ``judge.n``, or a named model's argument in ``common.yml``,
``models.diverging_llama3_8b.load_in_8bit``). A test reads those files through the project's parameter reader and
checks each value against this table.

What a paper leaves unsaid but the profile needs is this project's choice, listed apart as :data:`CHOSEN`
(:class:`Chosen`: the value, why, and where the profile writes it, beside a comment saying it is a choice):
Diverging Preferences' LoRA rank and maximum input length, the validation sizes of Diverging Preferences and Beyond
the Binary and what picks Beyond the Binary's learning rate, the sampling of the Appendix B labeller that stands in
for Beyond the Binary's human annotators. These too are written in the profile's files, so no default moves them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Stated", "RECIPE", "recipe", "Chosen", "CHOSEN"]


@dataclass(frozen=True)
class Stated:
    """One setting a paper states: ``paper`` (``diverging`` / ``seal`` / ``btb``, as :data:`pluralign.paper.PAPERS`),
    ``where`` it says so (a section, footnote or appendix), ``what`` it sets, its ``value``, the paper's own words
    (``quote``), and ``uses``: the ``(file, dotted key)`` pairs of ``params/paper/`` that write it."""

    paper: str
    where: str
    what: str
    value: Any
    quote: str
    uses: tuple[tuple[str, str], ...]


RECIPE: tuple[Stated, ...] = (
    # Diverging Preferences (Zhang et al. 2024)
    Stated(
        "diverging",
        "§3",
        "held-out test pairs per data set",
        500,
        "evaluate on 500 held-out test examples from each dataset",
        (("diverging-study.yml", "split.test"), ("cross-study.yml", "split.test")),
    ),
    Stated(
        "diverging",
        "App. A",
        "the reward models' learning rate",
        5e-5,
        "We train all reward models with a learning rate of 5e-5",
        (("diverging-study.yml", "train.lr"), ("cross-study.yml", "train.lr")),
    ),
    Stated(
        "diverging",
        "App. A",
        "the reward models' batch size",
        16,
        "and a batch size of 16",
        (("diverging-study.yml", "train.batch_size"), ("cross-study.yml", "train.batch_size")),
    ),
    Stated(
        "diverging",
        "App. A",
        "the reward models' maximum epochs",
        10,
        "and were trained for a maximum of 10 epochs",
        (("diverging-study.yml", "train.epochs"), ("cross-study.yml", "train.epochs")),
    ),
    Stated(
        "diverging",
        "App. A",
        "checkpoint evaluation interval (epochs)",
        0.25,
        "selecting the best performing checkpoint evaluated after every 0.25 epochs",
        (("diverging-study.yml", "train.eval_every"), ("cross-study.yml", "train.eval_every")),
    ),
    Stated(
        "diverging",
        "App. A",
        "keep the best checkpoint",
        True,
        "selecting the best performing checkpoint evaluated after every 0.25 epochs",
        (("diverging-study.yml", "train.keep_best"), ("cross-study.yml", "train.keep_best")),
    ),
    Stated(
        "diverging",
        "App. A",
        "8-bit quantization of the reward models",
        True,
        "For training and inference, we use 8-bit quantization [4] with LoRA [10, 5]",
        (("common.yml", "models.diverging_llama3_8b.load_in_8bit"),),
    ),
    Stated(
        "diverging",
        "§2.1",
        "pairs per data set on the cause-annotation sheets",
        50,
        "Three of the authors then cross annotated 50 new sampled examples from each dataset",
        (("diverging-causes.yml", "annotation.n"),),
    ),
    # SEAL (Revel et al. 2024)
    Stated(
        "seal",
        "footnote 6",
        "the VIF threshold of the regressions (Eq. 1-3)",
        5,
        "Features with VIF above 5 are removed from the regression, following standard practice.",
        (("seal-study.yml", "vif_threshold"),),
    ),
    Stated(
        "seal",
        "§2.1, App. D.5",
        "the LM-labellers' sampling temperature",
        0.0,
        "Using gpt-4-turbo-2024-04-09 at temperature 0 and in JSON mode (§ 2.1); Gemma 7B and Mistral 7B v0.2 "
        "Instruct, also at temperature 0.0 (App. D.5)",
        (("seal-study.yml", "labeller_temperature"),),
    ),
    Stated(
        "seal",
        "footnote 13",
        "the LM rewriter's sampling temperature",
        0.1,
        "Rewriting was performed with the prompt listed in Appendix C.5 using an FP16 version of Mistral 7B ran at "
        "temperature 0.1 via Ollama.",
        (("seal-robustness.yml", "rewrite_temperature"),),
    ),
    Stated(
        "seal",
        "App. D.5",
        "the share of D re-labelled by the stability labellers",
        0.01,
        "we run this exercise on a randomly chosen subset (1%) of D using two open-source models",
        (("seal-imprint.yml", "stability_share"),),
    ),
    Stated(
        "seal",
        "§2.3",
        "the share of D rewritten",
        0.01,
        "We perform surface-level rewriting of a random 1% subset of D with Mistral 7B v0.1 Instruct",
        (("seal-robustness.yml", "rewrite_share"),),
    ),
    Stated(
        "seal",
        "footnote 13, App. D.7",
        "the similarity model of originals and rewrites",
        "BAAI/bge-m3",
        "We also use BGE-m3 (Multi-Granularity 2024), a general-purpose text-similarity model, to measure cosine "
        "similarity",
        (("seal-robustness.yml", "similarity_model"),),
    ),
    # Beyond the Binary (Padmakumar et al. 2024)
    Stated(
        "btb",
        "§3.3",
        "synthetic judgments per pair (Eq. 3's n)",
        10,
        "we first obtain 10 synthetic annotations, j'_{i=1...10}, for each example in the 4 training datasets",
        (("btb-study.yml", "judge.n"), ("cross-study.yml", "judge.n")),
    ),
    Stated(
        "btb",
        "§3.3",
        "the judge's nucleus sampling top-p",
        0.9,
        "We generate synthetic annotations with nucleus sampling setting the top-p parameter to 0.9",
        (("btb-study.yml", "judge.top_p"), ("cross-study.yml", "judge.top_p")),
    ),
    Stated(
        "btb",
        "§3.3",
        "sampled (not scored) judgments",
        "sample",
        "We generate synthetic annotations with nucleus sampling",
        (("btb-study.yml", "judge.method"), ("cross-study.yml", "judge.method")),
    ),
    Stated(
        "btb",
        "footnote 6",
        "the learning rates of the sweep",
        [1e-4, 1e-5, 1e-6],
        "We run a hyperparameter sweep of learning rates from 1e-04 to 1e-06 and select the best-performing model on "
        "the validation data.",
        (("btb-rewards.yml", "training.lr_sweep"),),
    ),
    Stated(
        "btb",
        "§3.1",
        "test pairs per data set",
        25,
        "We construct our test set of 150 examples by randomly selecting 25 examples from each of six datasets.",
        (("btb-rewards.yml", "evaluation.test_per_dataset"), ("btb-subjectivity.yml", "per_dataset")),
    ),
    Stated(
        "btb",
        "§3.2",
        "annotators of each test pair (the Appendix B answers per pair)",
        3,
        "We recruit three human annotators to label the 150 example pairs manually.",
        (("btb-study.yml", "labeller.samples"),),
    ),
)
"""Every setting the three papers state that the ``paper`` profile uses (:class:`Stated`)."""


def recipe(paper: str | None = None) -> list[Stated]:
    """The stated settings of one paper (``diverging`` / ``seal`` / ``btb``), or of all three."""
    from pluralign.paper import PAPERS

    if paper is not None and paper not in PAPERS:
        raise KeyError(f"unknown paper {paper!r}; one of {', '.join(PAPERS)}")
    return [s for s in RECIPE if paper is None or s.paper == paper]


@dataclass(frozen=True)
class Chosen:
    """A setting the ``paper`` profile needs where the papers say nothing: ``paper`` (whose experiment), ``what`` it
    sets, this project's ``value`` and ``why``, and the ``(file, dotted key)`` pairs of ``params/paper/`` that write
    it (as :class:`Stated`'s ``uses``)."""

    paper: str
    what: str
    value: Any
    why: str
    uses: tuple[tuple[str, str], ...]


CHOSEN: tuple[Chosen, ...] = (
    Chosen(
        "diverging",
        "validation pairs per data set",
        500,
        "App. A selects the best checkpoint without saying on which data: pairs held out of the training side",
        (("diverging-study.yml", "split.validation"), ("cross-study.yml", "split.validation")),
    ),
    Chosen(
        "diverging",
        "LoRA rank",
        16,
        "App. A uses LoRA without its rank or alpha: PEFT-common values",
        (("common.yml", "models.diverging_llama3_8b.lora.r"),),
    ),
    Chosen(
        "diverging",
        "maximum input length (tokens)",
        1024,
        "App. A does not report one",
        (("common.yml", "models.diverging_llama3_8b.max_length"),),
    ),
    Chosen(
        "btb",
        "validation pairs of the learning-rate sweep",
        2000,
        "footnote 6 picks the learning rate 'on the validation data' without its size",
        (("btb-rewards.yml", "training.validation_size"),),
    ),
    Chosen(
        "btb",
        "what picks the learning rate",
        "accuracy",
        "footnote 6 says 'the best-performing model' without the measure",
        (("btb-rewards.yml", "training.select_on"),),
    ),
    Chosen(
        "btb",
        "the Appendix B labeller's sampling temperature",
        1.0,
        "three sampled answers stand in for § 3.2's three human annotators; at temperature 0 they would be identical",
        (("btb-study.yml", "labeller.temperature"),),
    ),
    Chosen(
        "btb",
        "the Appendix B labeller's nucleus sampling top-p",
        0.9,
        "the judge's top-p (§ 3.3), for the labeller that stands in for the human annotators",
        (("btb-study.yml", "labeller.top_p"),),
    ),
)
"""The settings the ``paper`` profile chooses where the papers are silent (:class:`Chosen`)."""
