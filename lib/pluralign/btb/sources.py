"""Where p* and the categories of Beyond the Binary come from: the sources a page may name (human first, an LLM
labeller as the fallback, §3.2), the pairs each labels, and the circularity of a labeller that is also the margin
judge (or of its model family)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pandas as pd

from pluralign.keywords import check_options
from pluralign.llm.options import LLMOptions

__all__ = [
    "MIN_HUMAN_ANNOTATORS",
    "Labelling",
    "SOURCE_KINDS",
    "P_STAR_SOURCES",
    "CATEGORY_SOURCES",
    "fallback_chain",
    "pair_index",
    "pairs_to_label",
    "uses",
    "source_counts",
    "MODEL_FAMILIES",
    "model_name",
    "model_family",
    "circularity",
]

#: §3.2: "three annotators" estimate p* and assign the categories. In a fallback chain the data's own
#: annotators count as that human population only for pairs with at least this many judgments.
MIN_HUMAN_ANNOTATORS = 3
#: What each source is (the pages say it beside the pair counts).
SOURCE_KINDS = {
    "labels": "human (labels_file)",
    "annotators": "human (the data's annotators)",
    "llm": "LLM labeller",
    "truth": "planted (simulator)",
    "per data set": "by construction of the data set",
}


@dataclasses.dataclass(frozen=True)
class Labelling:
    """How a source that labels pairs is asked (§3.2, Appendix B tasks 1-3): the LLM ``labeller``
    (:func:`pluralign.llm.load` argument dicts or loaded backends, a list for several labellers) with ``samples``
    answers each at ``temperature`` / ``top_p`` under the resumable ``job``, and the human ``labels_file`` (CSV).
    The keywords of :func:`~pluralign.btb.p_star.p_star_from` and :func:`~pluralign.btb.categories.categories_from`
    and their fallback chains."""

    labeller: Any = None
    labels_file: Any = None
    samples: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    job: str | None = None

    @classmethod
    def of(cls, options: dict, what: str) -> Labelling:
        """``options`` (keywords given to the function ``what``) as a :class:`Labelling`; an unknown one is refused,
        naming the nearest field."""
        check_options(cls, options, what=what)
        return cls(**options)

    def asking(self) -> dict:
        """The keywords of the Appendix B task functions: ``samples``, ``temperature``, ``top_p``, ``job``."""
        return dict(samples=self.samples, temperature=self.temperature, top_p=self.top_p, job=self.job)


def fallback_chain(source, what: str) -> list:
    """A fallback chain of sources (a non-empty list without 'none'), or an error naming ``what``."""
    chain = list(source)
    if not chain or any(s in (None, "none") for s in chain):
        raise ValueError(f"{what}: a fallback chain is a non-empty list of sources without 'none', not {source!r}")
    return chain


def pair_index(data, ids=None) -> pd.Index:
    """The pairs a source is asked about: ``ids``, or every pair of ``data``, as an index named ``pair_id``."""
    return pd.Index(data.pairs["pair_id"] if ids is None else list(ids), name="pair_id")


def pairs_to_label(data, ids: pd.Index):
    """The data an LLM labeller is shown: ``data`` itself when ``ids`` are all its pairs, else its subset ``ids``
    (so a fallback chain asks the labeller only about the pairs no earlier source covered)."""
    if len(ids) == len(data) and set(ids) == set(data.pairs["pair_id"]):
        return data
    return data.subset(list(ids), reason="pairs to label")


P_STAR_SOURCES = ("truth", "annotators", "labels", "llm", "none")
CATEGORY_SOURCES = ("truth", "labels", "llm", "none")


def source_counts(p_star_sources: pd.Series | None, category_sources: pd.Series | None) -> pd.DataFrame:
    """Pairs per source of p* and of the categories (from :func:`p_star_with_source` /
    :func:`categories_with_source`'s ``source`` columns): ``quantity, source, what it is, pairs``; pairs
    without a value are counted as ``"none"``, never dropped."""
    rows = []
    for quantity, src in (("p*", p_star_sources), ("categories", category_sources)):
        if src is None:
            continue
        for name, n in src.fillna("none").value_counts(sort=False).items():
            kind = SOURCE_KINDS.get(name.split(" (")[0], "—") if name != "none" else "no value"
            rows.append({"quantity": quantity, "source": name, "what it is": kind, "pairs": int(n)})
    return pd.DataFrame(rows, columns=["quantity", "source", "what it is", "pairs"])


#: Model families, by a word in the model's name (lower case): two models of one family (e.g. two Llamas)
#: share pre-training data and habits, so one labelling the other's target is not an independent check.
MODEL_FAMILIES = {
    "llama": "Llama",
    "gemma": "Gemma",
    "gemini": "Gemini",
    "qwen": "Qwen",
    "mixtral": "Mistral",
    "mistral": "Mistral",
    "gpt": "GPT",
    "claude": "Claude",
    "deepseek": "DeepSeek",
    "phi": "Phi",
    "falcon": "Falcon",
    "olmo": "OLMo",
    "command": "Command",
    "yi-": "Yi",
    "internlm": "InternLM",
}


def model_name(model) -> str | None:
    """The name of a model given as its options (:class:`~pluralign.llm.options.LLMOptions`, or
    :func:`pluralign.llm.load` keywords), a string or a loaded backend (its ``name`` / ``model`` attribute); None
    when there is none."""
    if model is None:
        return None
    if isinstance(model, str):
        return model
    if isinstance(model, dict):
        model = LLMOptions.of(model)
    return getattr(model, "name", None) or getattr(model, "model", None)


def model_family(model) -> str | None:
    """The family of a model (:data:`MODEL_FAMILIES`) read from its name, e.g.
    ``meta-llama/Meta-Llama-3-70B-Instruct`` → ``"Llama"``, ``openai:gpt-4o`` → ``"GPT"``; None when no
    family word occurs (then only an identical name counts as the same model)."""
    name = model_name(model)
    if not isinstance(name, str):
        return None
    low = name.lower()
    hits = [fam for key, fam in MODEL_FAMILIES.items() if re.search(rf"(^|[^a-z]){re.escape(key)}", low)]
    return hits[0] if hits else None


def uses(source, name: str) -> bool:
    """Does ``source`` (a name or a fallback chain) name ``name``?"""
    return name in (source if isinstance(source, (list, tuple)) else [source])


def circularity(p_star_from, categories, labeller, judge) -> pd.DataFrame:
    """Is the evaluation circular? Per quantity (``"p*"``, ``"categories"``) whose source (or fallback chain)
    includes the LLM ``labeller`` while the margins of Eq. 3 come from an LLM ``judge`` (a
    :class:`~pluralign.btb.settings.Judge` whose ``source`` is "llm"): each labeller's name and family, the judge's,
    and ``same`` — ``"model"`` (the same name), ``"family"`` (the same :func:`model_family`, e.g. both Llama) or
    ``""`` (different). Beyond the Binary trains
    the regularized RM on Llama-3-70B's margins and evaluates it against human p* (§3.2–3.3); p* from the judge
    itself (or its family) would make the RM's target the judge's own view, which favours it over the baseline
    by construction. Empty when no LLM labels either quantity or the margins are not an LLM's."""
    rows = []
    if judge.source != "llm":
        return pd.DataFrame(rows, columns=["quantity", "labeller", "labeller family", "judge", "judge family", "same"])
    jm = judge.model
    jname, jfam = model_name(jm), model_family(jm)
    labs = labeller if isinstance(labeller, (list, tuple)) else [labeller]
    for quantity, source in (("p*", p_star_from), ("categories", categories)):
        if not uses(source, "llm"):
            continue
        for lab in labs:
            lname, lfam = model_name(lab), model_family(lab)
            same = (
                "model"
                if lname is not None and lname == jname
                else "family"
                if lfam is not None and lfam == jfam
                else ""
            )
            rows.append(
                {
                    "quantity": quantity,
                    "labeller": lname,
                    "labeller family": lfam or "—",
                    "judge": jname,
                    "judge family": jfam or "—",
                    "same": same,
                }
            )
    return pd.DataFrame(rows, columns=["quantity", "labeller", "labeller family", "judge", "judge family", "same"])
