"""The causes of diverging preferences: the taxonomy of Diverging Preferences Table 1 and §2.1, cause labels and
their agreement.

Ten causes in four classes (Task, Response Style, Refusals, Errors), each with its definition from the
§2.1 text; its Table 1 frequency on MultiPref (MP) and HelpSteer2 (HS2) — the share of sampled diverging
pairs that carry the cause; a pair can carry several, so a column sums to more than 100% — is read from
:mod:`pluralign.paper.diverging`. :func:`cause_frequencies` puts cause frequencies beside Table 1's.

Cause labels are a ``DataFrame(pair_id, annotator, causes)`` with ``causes`` a ``frozenset`` of cause ids; they
come from people (the spreadsheet round-trip of :mod:`pluralign.diverging.cause_annotation`), an LLM
(:mod:`pluralign.diverging.cause_classifier`), the simulator's planted causes (:func:`planted_causes`) or a
reader of surface features (:func:`rule_causes`, the demo's second "annotator").

Agreement on label sets, :func:`label_agreement`, as in §2.1: "we evaluate agreement using both Cohen's κ
(comparing full label set equivalence), as well as Krippendorff's α with MASI distance".

* **κ** — each item's category is its full label set (two annotators agree only when their sets are
  identical); Cohen's κ (``sklearn.metrics.cohen_kappa_score``) for every pair of annotators over the
  items both labelled, averaged over annotator pairs when there are more than two (Light's κ; the
  paper had three annotators and does not say how it combined them).
* **α** — Krippendorff's α (``krippendorff.alpha``) whose distance between two label sets is MASI
  (``nltk.metrics.distance.masi_distance``, Passonneau 2006), over all annotators at once; items with
  fewer than two labels are not pairable and drop out, as in Krippendorff's definition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import krippendorff
import numpy as np
import pandas as pd

from pluralign import paper
from pluralign.data.core import PreferenceData
from pluralign.diverging.agreement import PAPER_DATASETS, paper_dataset, paper_label

__all__ = [
    "Cause",
    "CAUSES",
    "CAUSE_IDS",
    "CLASSES",
    "paper_agreement",
    "taxonomy_table",
    "cohen_kappa_sets",
    "masi_alpha",
    "label_agreement",
    "cause_frequencies",
    "planted_causes",
    "rule_causes",
    "VERBOSITY_RATIO",
    "MIN_EXTRA_WORDS",
    "agreement_table",
]


@dataclass(frozen=True)
class Cause:
    """One cause of diverging preferences (a row of Table 1)."""

    id: str  # short id (the column name; the same names as pluralign.data.simulate's causes)
    name: str  # Table 1's category name
    cls: str  # Table 1's high-level class
    definition: str  # from §2.1 (quoted where the paper defines it; see ``source``)
    source: str  # where the definition comes from


CAUSES: tuple[Cause, ...] = (
    Cause(
        "task-underspecification",
        "Task Underspecification",
        "Task",
        "Disagreements arise from underspecification in the prompt, where both responses consider and "
        "address distinct, valid interpretations of the task.",
        "§2.1 'Task Underspecification'",
    ),
    Cause(
        "verbosity",
        "Verbosity",
        "Response Style",
        "Disagreements arise over the preferred levels of detail, explanation, or examples in each response; "
        "individuals frequently disagree on the preferred level of detail or explanation in a response.",
        "§2.1 'Verbosity'",
    ),
    Cause(
        "format",
        "Format",
        "Response Style",
        "Disagreement over how responses should be organized: paragraphs, lists or headings — when such "
        "formatting is appropriate and how headings and lists should be semantically structured.",
        "§2.1 'Format'",
    ),
    Cause(
        "aesthetic-taste",
        "Aesthetic Taste",
        "Response Style",
        "Creative writing or writing-assistance requests where a preference comes down to a matter of personal taste.",
        "§2.1 'Aesthetic tastes'",
    ),
    Cause(
        "complexity",
        "Complexity",
        "Response Style",
        "Responses differ in the level of assumed domain expertise of the user and the level of technical "
        "depth with which to consider the user's request; they cater to individuals with different "
        "backgrounds and goals.",
        "§2.1 'Complexity'",
    ),
    Cause(
        "safety",
        "Safety",
        "Refusals",
        "A refusal (or pushback) based on safety concerns is the subject of disagreement; judgments of "
        "social acceptability or offensive language vary with annotators' personal background and identity.",
        "§2.1 'Refusals' (safety) and Table 1 example",
    ),
    Cause(
        "capabilities",
        "Capabilities",
        "Refusals",
        "A refusal based on the model's capabilities (e.g. saying the request cannot be done, where the "
        "other response attempts an interpretation) is the subject of disagreement.",
        "§2.1 'Refusals' (capabilities) and Table 1 example",
    ),
    Cause(
        "comply-vs-refuse",
        "Comply vs. Refuse",
        "Refusals",
        "One response complies with the request and the other refuses it; annotators disagree on whether "
        "refusing was appropriate.",
        "Table 1 example (the §2.1 text names the category only)",
    ),
    Cause(
        "refuse-vs-refuse",
        "Refuse vs. Refuse",
        "Refusals",
        "Both responses are refusals of different kinds (e.g. soft versus hard refusals, or correcting the "
        "premise versus declining); preferences among such refusal variations diverge.",
        "§2.1 'refusals versus refusals'",
    ),
    Cause(
        "errors",
        "Hallucinations, Degenerate Outputs, and Errors",
        "Errors",
        "A response contains a hallucination, degenerate output or error that is difficult for annotators "
        "to detect, or whose impact is perceived differently across annotators.",
        "§2.1 'Errors'",
    ),
)
CAUSE_IDS: tuple[str, ...] = tuple(c.id for c in CAUSES)
CLASSES: tuple[str, ...] = ("Task", "Response Style", "Refusals", "Errors")


def paper_agreement(key: str | None) -> dict:
    """§2.1's agreement of the three authors on 50 diverging pairs of the paper's data set ``key``
    ("multipref" / "helpsteer2"): ``{"kappa": κ, "alpha": α (MASI)}`` from :mod:`pluralign.paper`; ``{}``
    for ``None``."""
    if key is None:
        return {}
    t = paper.numbers("diverging", "§2.1")
    t = t[t["row"] == PAPER_DATASETS[key]].set_index("column")["value"]
    return {"kappa": float(t["κ"]), "alpha": float(t["α (MASI)"])}


def taxonomy_table() -> pd.DataFrame:
    """Table 1 as a DataFrame indexed by cause id: class, category, definition, source, and the paper's
    frequencies ``paper MP`` / ``paper HS2`` (:mod:`pluralign.paper.diverging`)."""
    freq = paper.numbers("diverging", "Table 1").pivot(index="row", columns="column", values="value")
    return pd.DataFrame(
        [
            {
                "cause": c.id,
                "class": c.cls,
                "category": c.name,
                "definition": c.definition,
                "source": c.source,
                "paper MP": float(freq.at[c.name, "MultiPref"]),
                "paper HS2": float(freq.at[c.name, "HelpSteer2"]),
            }
            for c in CAUSES
        ]
    ).set_index("cause")


def planted_causes(
    truth: pd.DataFrame, pair_ids: Iterable[str] | None = None, *, annotator: str = "planted"
) -> pd.DataFrame:
    """The simulator's planted cause as a reference labelling (the demo profile's stand-in for human cause
    annotation): ``DataFrame(pair_id, annotator, causes)`` for the pairs (default: all) whose ``truth["cause"]``
    is one of :data:`CAUSE_IDS` (pairs planted as ``"none"`` are left out)."""
    t = truth if pair_ids is None else truth.loc[list(pair_ids)]
    t = t[t["cause"].isin(CAUSE_IDS)]
    return pd.DataFrame(
        {"pair_id": t.index.astype(str), "annotator": annotator, "causes": [frozenset({c}) for c in t["cause"]]},
        columns=["pair_id", "annotator", "causes"],
    )


# ---- agreement on label sets ---------------------------------------------------------------------------
def _wide(labels: pd.DataFrame) -> pd.DataFrame:
    dup = labels.duplicated(["pair_id", "annotator"])
    if dup.any():
        r = labels[dup].iloc[0]
        raise ValueError(f"pair {r['pair_id']!r} labelled twice by {r['annotator']!r}")
    return labels.assign(causes=labels["causes"].map(frozenset)).pivot(
        index="pair_id", columns="annotator", values="causes"
    )


def _set_key(s: frozenset) -> str:
    return "|".join(sorted(s))


def cohen_kappa_sets(a: Sequence[frozenset], b: Sequence[frozenset]) -> float:
    """Cohen's κ of two annotators where each item's category is its full label set (exact-set match)."""
    from sklearn.metrics import cohen_kappa_score

    ka, kb = [_set_key(frozenset(x)) for x in a], [_set_key(frozenset(x)) for x in b]
    if len(ka) != len(kb) or not ka:
        raise ValueError("need two equally long, non-empty label lists")
    if len(set(ka) | set(kb)) == 1:
        return 1.0  # both annotators used one and the same label set throughout: perfect agreement
    return float(cohen_kappa_score(ka, kb))


def masi_alpha(labels: pd.DataFrame) -> float:
    """Krippendorff's α with MASI distance over all annotators (``labels``: pair_id, annotator, causes).

    ``krippendorff.alpha`` with a callable distance that looks up ``nltk``'s ``masi_distance`` between the
    distinct label sets. Only *pairable* items — labelled by at least two annotators — enter α (Krippendorff's
    definition), so the value domain and the counts are built from those items alone; when they all carry one
    and the same label set, α is 1 (perfect agreement, as :func:`cohen_kappa_sets` returns κ = 1), whatever
    the singly-labelled items say. With no pairable item ``ValueError``."""
    from nltk.metrics.distance import masi_distance  # nltk takes seconds to import: only where it is used

    wide = _wide(labels)
    wide = wide[wide.notna().sum(axis=1) >= 2]
    if wide.empty:
        raise ValueError("Krippendorff's α needs at least one pair labelled by two or more annotators")
    domain = sorted({frozenset(s) for _, row in wide.iterrows() for s in row.dropna()}, key=_set_key)
    code = {s: k for k, s in enumerate(domain)}
    counts = np.zeros((len(wide), len(domain)), dtype=int)
    for r, (_, row) in enumerate(wide.iterrows()):
        for s in row.dropna():
            counts[r, code[frozenset(s)]] += 1
    if len(domain) == 1:
        return 1.0  # every pairable value is the same label set: no disagreement, no expected disagreement
    dist = np.array([[masi_distance(set(x), set(y)) for y in domain] for x in domain])

    def masi(v1, v2, i1, i2, n_v, dtype=np.float64):
        return dist[i1, i2].astype(dtype)

    return float(
        krippendorff.alpha(value_counts=counts, value_domain=list(range(len(domain))), level_of_measurement=masi)
    )


def label_agreement(labels: pd.DataFrame) -> dict:
    """§2.1's two agreement figures for multi-label cause annotations (``labels``: pair_id, annotator,
    causes — e.g. :func:`~pluralign.diverging.cause_annotation.import_annotations` output, possibly concatenated
    with the labels of :func:`~pluralign.diverging.cause_classifier.classify_causes`).

    Returns ``{"kappa": mean pairwise Cohen's κ over full label sets, "alpha": Krippendorff's α (MASI),
    "pairwise_kappa": {(a1, a2): κ}, "n_items": items labelled by ≥ 2 annotators, "n_annotators"}``."""
    wide = _wide(labels)
    pairwise = {}
    for a1, a2 in combinations(sorted(wide.columns), 2):
        both = wide[[a1, a2]].dropna()
        if len(both):
            pairwise[(a1, a2)] = cohen_kappa_sets(both[a1].tolist(), both[a2].tolist())
    if not pairwise:
        raise ValueError("label_agreement needs at least two annotators labelling a common pair")
    return {
        "kappa": float(np.mean(list(pairwise.values()))),
        "alpha": masi_alpha(labels),
        "pairwise_kappa": pairwise,
        "n_items": int((wide.notna().sum(axis=1) >= 2).sum()),
        "n_annotators": int(wide.shape[1]),
    }


def cause_frequencies(labels, *, paper: bool = True) -> pd.DataFrame:
    """Share of labelled diverging pairs carrying each cause, beside Table 1 (MP / HS2).

    ``labels``: a DataFrame (pair_id, annotator, causes[, dataset]) or ``{dataset: DataFrame}``. Each
    (pair, annotator) judgment counts once, so with several annotators a cause's share is averaged over
    them. Rows: causes (index = cause id, with ``class`` and ``category``); columns: per data set the share
    and ``n`` (labelled judgments), then ``paper MP`` and ``paper HS2``."""
    if isinstance(labels, dict):
        groups = {str(k): v for k, v in labels.items()}
    elif "dataset" in labels.columns:
        groups = {str(k): v for k, v in labels.groupby("dataset", sort=True)}
    else:
        groups = {"ours": labels}
    tab = taxonomy_table()[["class", "category"]].copy()
    for name, df in groups.items():
        sets = [frozenset(s) for s in df["causes"]]
        n = len(sets)
        tab[name] = [sum(c in s for s in sets) / n if n else np.nan for c in CAUSE_IDS]
        tab[f"{name} n"] = n
    if paper:
        t = taxonomy_table()
        tab["paper MP"] = t["paper MP"]
        tab["paper HS2"] = t["paper HS2"]
    return tab


# ---- a surface-feature labeller -------------------------------------------------------------------------
#: :func:`rule_causes`'s verbosity rule: one response has at least this many times the other's words …
VERBOSITY_RATIO = 1.5
#: … and at least this many more words.
MIN_EXTRA_WORDS = 20


def rule_causes(
    data: PreferenceData,
    pair_ids: Iterable[str] | None = None,
    *,
    annotator: str = "rules",
    verbosity_ratio: float = VERBOSITY_RATIO,
    min_extra_words: int = MIN_EXTRA_WORDS,
) -> pd.DataFrame:
    """A surface-feature cause labeller (the demo profile's second "annotator"; not a model of the paper's
    annotators): it reads only what the text shows of four Table 1 causes —

    * ``verbosity``: one response has at least ``verbosity_ratio`` times the words of the other and at least
      ``min_extra_words`` more;
    * ``format``: one response has a list (≥ 2 list lines) or a Markdown heading and the other has neither;
    * ``comply-vs-refuse``: exactly one response is a refusal; ``refuse-vs-refuse``: both are
      (refusal phrases, :func:`pluralign.seal.rule_featurize`).

    Returns ``DataFrame(pair_id, annotator, causes)`` for the pairs where at least one rule fires; the pairs
    where none fires are left out, not given a guess."""
    from pluralign.seal.rule_features import rule_featurize  # SEAL's rule-based featurizer (imports pluralign.seal)

    pairs = data.pairs.set_index("pair_id")
    ids = [str(i) for i in (pairs.index if pair_ids is None else pair_ids)]
    a = pairs.loc[ids, "response_a"].astype(str).tolist()
    b = pairs.loc[ids, "response_b"].astype(str).tolist()
    fa, fb = rule_featurize(a), rule_featurize(b)
    heading = re.compile(r"^\s{0,3}#{1,6}\s", re.M)
    rows = []
    for k, pid in enumerate(ids):
        wa, wb = int(fa.at[k, "response_words"]), int(fb.at[k, "response_words"])
        causes = set()
        lo, hi = sorted((wa, wb))
        if hi - lo >= min_extra_words and hi >= verbosity_ratio * max(lo, 1):
            causes.add("verbosity")
        fmt_a = bool(fa.at[k, "response_has_list"]) or bool(heading.search(a[k]))
        fmt_b = bool(fb.at[k, "response_has_list"]) or bool(heading.search(b[k]))
        if fmt_a != fmt_b:
            causes.add("format")
        ra, rb = bool(fa.at[k, "last_response_is_refusal"]), bool(fb.at[k, "last_response_is_refusal"])
        if ra and rb:
            causes.add("refuse-vs-refuse")
        elif ra != rb:
            causes.add("comply-vs-refuse")
        if causes:
            rows.append({"pair_id": pid, "annotator": annotator, "causes": frozenset(causes)})
    return pd.DataFrame(rows, columns=["pair_id", "annotator", "causes"])


def agreement_table(labels: dict, paper_reference=None) -> pd.DataFrame:
    """:func:`label_agreement` per data set beside §2.1's figures: ``{data set name: labels}`` → one row per
    data set whose labels come from at least two annotators, with ``annotators``, ``pairs labelled by ≥ 2``,
    ``κ``, ``α (MASI)``, ``paper reference`` (:func:`pluralign.diverging.agreement.paper_label`, e.g. "paper (MultiPref,
    stand-in reference)"; ``None`` for a data set with no paper counterpart), ``paper κ`` and ``paper α`` (NaN
    without one). The paper data set is ``paper_reference[name]`` when given (``{data-set name: "multipref" |
    "helpsteer2"}``, e.g. ``{"pandalm": "multipref"}``), else the one the name contains. Data sets with labels
    from fewer than two annotators have no row."""
    rows = {}
    for name, lab in labels.items():
        if lab is None or lab.empty or lab["annotator"].nunique() < 2:
            continue
        a = label_agreement(lab)
        paper = paper_agreement(paper_dataset(name, paper_reference))
        rows[name] = {
            "annotators": ", ".join(sorted(lab["annotator"].unique())),
            "pairs labelled by ≥ 2": a["n_items"],
            "κ": a["kappa"],
            "α (MASI)": a["alpha"],
            "paper reference": paper_label(name, paper_reference),
            "paper κ": paper.get("kappa", np.nan),
            "paper α": paper.get("alpha", np.nan),
        }
    cols = ["annotators", "pairs labelled by ≥ 2", "κ", "α (MASI)", "paper reference", "paper κ", "paper α"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)
