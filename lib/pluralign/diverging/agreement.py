"""Agreement classes of multi-annotator preference pairs (Diverging Preferences, §2 and §3 "Results").

:func:`agreement_classes` puts every pair in one class; :func:`shares` counts them beside the paper's §2
shares; :func:`planted_recovery` checks them against the simulator's planted truth.

The paper's definitions, quoted:

* §2: "We define diverging preferences as all instances where annotators disagreed on which response to a
  given prompt was preferred, ignoring instances where annotators only had slight preferences for either
  response." For MultiPref: "we select all instances where annotators disagreed on which response was
  preferred, filtering out instances where all annotators responses were ties or only had slight
  preferences for either response."
* §2, HelpSteer2: "we take the difference between the overall scores assigned to each response, and treat
  differences in overall scores of 1 as instances of *slight* preference and differences of at least 2 as
  *significant* preferences. We follow the same method as used above for Multipref".
* §3 Results: "*High-Agreement Prefs.*: where no annotators rejected the majority's chosen response.
  *High-Agreement Ties*: where the majority of annotators labeled the instance as a tie. *Diverging Prefs
  (All)* all examples with diverging preferences. *Diverging Prefs (Substantial)* a subset of diverging
  preferences where annotators significantly preferred both responses."

Per pair, with the signed judgments ``p`` (−2 … 2, negative prefers A; :mod:`pluralign.data.core`),
``n_a = #(p < 0)``, ``n_b = #(p > 0)``, ``n_tie = #(p == 0)``, ``n = n_a + n_b + n_tie``:

``diverging``
    ``n_a ≥ 1 and n_b ≥ 1 and max |p| = 2``.
``substantial`` (a flag on diverging pairs)
    some annotator gave −2 and some annotator gave +2.
``high-agreement-pref``
    not diverging, the majority's chosen response exists (``n_a > n/2`` or ``n_b > n/2``) and nobody
    preferred the other response. **"Majority" here is more than half of the judgments** (ties
    included in ``n``); it is *not* the plurality label of :meth:`pluralign.data.core.PreferenceData.majority`
    that the "Agg" reward models of Table 2 are trained on (:mod:`pluralign.diverging.reward_models`; see decision 4).
``high-agreement-tie``
    not diverging, and ``n_tie > n/2`` (the default ``ties="majority"``).
``other``
    everything else.

Every ambiguous case in the wording, and the decision taken (each has a test in ``tests/diverging/test_agreement.py``):

1. *"disagreed on which response was preferred"* — a disagreement needs one annotator preferring A and
   another preferring B. A preference against a tie ({A, tie}) is **not** a disagreement on *which*
   response is preferred (a tie prefers neither).
2. *"filtering out instances where all annotators responses were ties or only had slight preferences"* —
   the filter removes a pair only when **every** judgment is a tie or slight (max |p| ≤ 1). So one
   significant judgment on either side keeps the pair: {A significant, B slight} is diverging, and so is
   {A significant ×3, B slight}. Slight-only disagreements ({A slight, B slight}) are "other".
3. *"annotators significantly preferred both responses"* — substantial needs a −2 **and** a +2.
4. *"no annotators rejected the majority's chosen response"* — a tie vote does not reject the chosen
   response (it prefers neither), so {A, A, tie} is a high-agreement preference. "Majority" is read as
   more than half of the judgments ({A, A, tie, tie} has no majority choice → "other"); when nobody
   prefers B this is the same as a plurality of A over ties. The aggregated training labels of Table 2's
   "Agg" reward models (:meth:`PreferenceData.majority`, used by :mod:`pluralign.rewards.objectives`) are a
   *plurality* instead (A when A outnumbers both B and ties); the two differ only on pairs this module puts
   in "diverging" or "other" under the default ``ties="majority"`` (e.g. {A, A, B, tie} is A for training
   and has no majority choice here; {A, A, tie, tie} is "tie" for training, "none" here).
5. *"the majority of annotators labeled the instance as a tie"* — more than half of the judgments are
   ties (``ties="majority"``); ``ties="plurality"`` instead asks that tie labels be at least as frequent
   as A labels and as B labels (a sensitivity check).
   {tie, tie, A slight, B slight} is "other" by default, "high-agreement-tie" with ``"plurality"``.
6. Precedence — the paper's classes may overlap ({tie ×3, A significant, B significant} is both
   "diverging" and has a majority of ties). Diverging wins, because §2 defines diverging preferences as
   "*all* instances where annotators disagreed" and §3's row is "all examples with diverging preferences";
   high-agreement classes then cannot contain a pair on which annotators picked opposite responses.
7. A single judgment is never diverging; it is a high-agreement preference (or tie).
8. HelpSteer2 format: when both ``likert_a`` and ``likert_b`` are present on a judgment, its preference
   is re-derived from their difference, ``sign(likert_b − likert_a) · min(|likert_b − likert_a|, 2)``
   ("differences of 1 ... slight ... at least 2 ... significant"); otherwise its ``preference`` column is
   used (``likert="auto"``; ``True`` requires the Likert columns, ``False`` ignores them).
9. Judgments without strength (e.g. PandaLM's 1 / 2 / 0, or chosen/rejected labels) are stored as ±2 by
   the loaders, so on such data every A-vs-B disagreement is diverging and substantial.
10. A pair with no judgment is "other" (``n = 0``).

Comparison with the paper (§2: "about 39%" of MultiPref and "24%" of HelpSteer2 pairs diverge): a data
set is compared with the paper's data set named in ``paper_reference`` (``{data-set name: "multipref" |
"helpsteer2"}``, e.g. ``{"pandalm": "multipref"}`` where PandaLM stands in for MultiPref), and otherwise
with the one its name contains ("simulated-multipref" → MultiPref); see :func:`paper_dataset`. The label
of the comparison (:func:`paper_label`) says "stand-in reference" whenever the data set is not the
paper's own, so that PandaLM's row never reads as if it were MultiPref.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign import paper
from pluralign.data.core import DataError, PreferenceData

__all__ = [
    "CLASSES",
    "PAPER_DATASETS",
    "agreement_classes",
    "planted_divergence",
    "preferences",
    "shares",
    "paper_diverging_share",
    "paper_dataset",
    "paper_label",
    "is_stand_in",
    "check_paper_reference",
    "votes_text",
    "Recovery",
    "planted_recovery",
]

#: The agreement classes, in the order of the paper's Table 2.
CLASSES = ("high-agreement-pref", "high-agreement-tie", "diverging", "other")

#: The paper's two multi-annotator data sets (§2): lookup key → display name.
PAPER_DATASETS = {"multipref": "MultiPref", "helpsteer2": "HelpSteer2"}


def paper_diverging_share(key: str) -> float:
    """§2's share of diverging pairs for the paper's data set ``key`` ("multipref": "about 39%",
    "helpsteer2": 24%), from :func:`pluralign.paper.numbers`."""
    return paper.value("diverging", "§2", PAPER_DATASETS[key], "diverging share")


def _norm(name) -> str:
    return str(name).lower().replace("-", "").replace("_", "")


def paper_dataset(name, paper_reference=None) -> str | None:
    """The key ("multipref" / "helpsteer2") of the paper's data set that data set ``name`` is compared with,
    or ``None`` when there is none.

    ``paper_reference`` (``{data-set name: paper data set}``, e.g. ``{"pandalm": "multipref"}``) is an
    explicit lookup and wins; otherwise a name containing "multipref" or "helpsteer2" (case, dashes and
    underscores ignored) matches that data set. A ``paper_reference`` value that is not one of the paper's
    data sets raises ``ValueError``."""
    if paper_reference and name in paper_reference:
        key = _norm(paper_reference[name])
        if key not in PAPER_DATASETS:
            raise ValueError(
                f"paper_reference[{name!r}] = {paper_reference[name]!r} is not one of the paper's "
                f"data sets {list(PAPER_DATASETS)}"
            )
        return key
    s = _norm(name)
    return next((k for k in PAPER_DATASETS if k in s), None)


def is_stand_in(name, paper_reference=None) -> bool:
    """True when data set ``name`` is compared with one of the paper's data sets it only stands in for (an
    explicit ``paper_reference`` entry such as PandaLM → MultiPref, or a name like "simulated-multipref" that
    contains the paper data set's key without starting with it); False for the paper's own data sets and for
    data sets with no paper counterpart. What :func:`paper_label` marks "stand-in reference"."""
    key = paper_dataset(name, paper_reference)
    if key is None:
        return False
    return bool(paper_reference and name in paper_reference) or not _norm(name).startswith(key)


def paper_label(name, paper_reference=None) -> str | None:
    """How to label the paper's values beside data set ``name``: ``"paper (MultiPref)"`` when ``name`` is the
    paper's data set itself (its name starts with the key, e.g. "multipref", "helpsteer2-disagreements"),
    ``"paper (MultiPref, stand-in reference)"`` when the data set only stands in for it (an explicit
    ``paper_reference`` entry such as PandaLM → MultiPref, or a name like "simulated-multipref"); ``None``
    when the paper has no data set to compare with."""
    key = paper_dataset(name, paper_reference)
    if key is None:
        return None
    if is_stand_in(name, paper_reference):
        return f"paper ({PAPER_DATASETS[key]}, stand-in reference)"
    return f"paper ({PAPER_DATASETS[key]})"


def check_paper_reference(paper_reference, names) -> dict:
    """Validate a notebook's ``paper_reference`` parameter against the data sets actually loaded (``names``):
    every key must name a loaded data set and every value a paper data set; returns it as a dict (``{}`` for
    ``None``). A mapping for a data set that is not loaded would otherwise be ignored without a word."""
    ref = dict(paper_reference or {})
    names = [str(n) for n in names]
    unknown = [k for k in ref if k not in names]
    if unknown:
        raise ValueError(f"paper_reference names data sets that are not loaded: {unknown} (loaded: {names})")
    for k in ref:
        paper_dataset(k, ref)  # raises on a value that is not one of the paper's data sets
    return ref


def preferences(data: PreferenceData, likert: str | bool = "auto") -> pd.Series:
    """Signed preference per judgment (index as ``data.annotations``), from the Likert difference where
    available (§2, HelpSteer2) and from ``preference`` otherwise (see decision 8 in the module docstring)."""
    ann = data.annotations
    pref = pd.to_numeric(ann["preference"], errors="coerce").astype(float)
    has_cols = {"likert_a", "likert_b"} <= set(ann.columns)
    if likert is True and not has_cols:
        raise DataError(
            "likert=True but the annotations have no likert_a / likert_b columns",
            file=data.meta.get("source", data.name),
            field="likert_a",
        )
    if likert is False or not has_cols:
        return pref
    la = pd.to_numeric(ann["likert_a"], errors="coerce")
    lb = pd.to_numeric(ann["likert_b"], errors="coerce")
    both = la.notna() & lb.notna()
    if likert is True and not both.all():
        i = int(np.flatnonzero(~both.to_numpy())[0])
        raise DataError(
            "missing Likert score",
            file=data.meta.get("source", data.name),
            row=i,
            field="likert_a" if pd.isna(la.iloc[i]) else "likert_b",
        )
    diff = lb - la
    derived = np.sign(diff) * np.minimum(diff.abs(), 2)
    return pref.where(~both, derived)


def agreement_classes(data: PreferenceData, *, ties: str = "majority", likert: str | bool = "auto") -> pd.DataFrame:
    """Agreement class of every pair (Diverging Preferences §2, §3 "Results"; rules in the module docstring).

    Returns a DataFrame indexed by ``pair_id`` (in the order of ``data.pairs``) with columns
    ``agreement`` (one of :data:`CLASSES`), ``substantial`` (bool; only diverging pairs can be
    substantial), ``majority`` ("A", "B", "tie" or "none": the response chosen by more than half of the
    judgments, "tie" when more than half are ties — a strict majority, unlike the plurality label
    :meth:`PreferenceData.majority` that "Agg" reward models are trained on; decision 4), ``n_annotators``,
    ``n_a``, ``n_b``, ``n_tie``, ``n_significant`` (judgments with |p| = 2), and ``dataset`` when the pairs have one.
    """
    if ties not in ("majority", "plurality"):
        raise ValueError(f"ties must be 'majority' or 'plurality', not {ties!r}")
    pref = preferences(data, likert)
    ann = pd.DataFrame({"pair_id": data.annotations["pair_id"].to_numpy(), "p": pref.to_numpy()})
    ann = ann[ann["p"].notna()]
    g = (
        pd.DataFrame(
            {
                "pair_id": ann["pair_id"],
                "n_a": (ann["p"] < 0).astype(int),
                "n_b": (ann["p"] > 0).astype(int),
                "n_tie": (ann["p"] == 0).astype(int),
                "a2": (ann["p"] == -2).astype(int),
                "b2": (ann["p"] == 2).astype(int),
            }
        )
        .groupby("pair_id", sort=False)
        .sum()
    )
    ids = pd.Index(data.pairs["pair_id"], name="pair_id")
    c = g.reindex(ids).fillna(0).astype(int)
    n = c["n_a"] + c["n_b"] + c["n_tie"]

    diverging = (c["n_a"] >= 1) & (c["n_b"] >= 1) & ((c["a2"] + c["b2"]) >= 1)
    substantial = diverging & (c["a2"] >= 1) & (c["b2"] >= 1)
    maj = pd.Series("none", index=ids, dtype=object)
    maj[2 * c["n_a"] > n] = "A"
    maj[2 * c["n_b"] > n] = "B"
    maj[2 * c["n_tie"] > n] = "tie"
    ha_pref = ((maj == "A") & (c["n_b"] == 0)) | ((maj == "B") & (c["n_a"] == 0))
    if ties == "majority":
        ha_tie = maj == "tie"
    else:
        # plurality: tie labels are at least as frequent as A labels and as B labels
        ha_tie = (c["n_tie"] > 0) & (c["n_tie"] >= c["n_a"]) & (c["n_tie"] >= c["n_b"])

    agreement = pd.Series("other", index=ids, dtype=object)
    agreement[ha_tie & ~diverging] = "high-agreement-tie"
    agreement[ha_pref & ~diverging] = "high-agreement-pref"
    agreement[diverging] = "diverging"

    out = pd.DataFrame(
        {
            "agreement": agreement,
            "substantial": substantial.astype(bool),
            "majority": maj,
            "n_annotators": n,
            "n_a": c["n_a"],
            "n_b": c["n_b"],
            "n_tie": c["n_tie"],
            "n_significant": c["a2"] + c["b2"],
        },
        index=ids,
    )
    if "dataset" in data.pairs.columns:
        out.insert(0, "dataset", data.pairs["dataset"].to_numpy())
    return out


def shares(classified: pd.DataFrame, by: str | None = "dataset", *, paper_reference=None) -> pd.DataFrame:
    """Count and share of each agreement class (plus diverging-substantial) per data set, with the paper's
    share of diverging pairs beside ours (§2: 39% MultiPref, 24% HelpSteer2; NaN where the paper has no
    data set to compare with).

    One row per data set (``by`` column of ``classified``; one row "all" without it); columns
    ``n``, ``<class>`` and ``<class> share`` for every class, ``diverging-substantial`` (+ share),
    ``paper diverging share``, ``paper reference`` (:func:`paper_label`, e.g. "paper (MultiPref,
    stand-in reference)"; ``None`` without a comparison) and ``paper stand-in`` (:func:`is_stand_in`).
    ``paper_reference``: ``{data-set name: paper data set}``, the explicit lookup of :func:`paper_dataset`."""
    df = classified
    key = df[by] if by and by in df.columns else pd.Series("all", index=df.index)
    rows = {}
    for name, part in df.groupby(key, sort=True):
        n = len(part)
        row = {"n": n}
        for cls in CLASSES:
            k = int((part["agreement"] == cls).sum())
            row[cls] = k
            row[f"{cls} share"] = k / n if n else np.nan
        k = int(((part["agreement"] == "diverging") & part["substantial"]).sum())
        row["diverging-substantial"] = k
        row["diverging-substantial share"] = k / n if n else np.nan
        key = paper_dataset(name, paper_reference)
        row["paper diverging share"] = paper_diverging_share(key) if key is not None else np.nan
        row["paper reference"] = paper_label(name, paper_reference)
        row["paper stand-in"] = is_stand_in(name, paper_reference)
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = by if by and by in df.columns else None
    return out


@dataclass
class Recovery:
    """How the agreement classes line up with the simulator's planted truth: ``table`` (one row per planted
    group with ``n`` and the share of each class), ``precision`` (share of diverging pairs planted as
    taste-driven) and ``recall`` (share of taste-driven pairs that come out diverging)."""

    table: pd.DataFrame
    precision: float
    recall: float


def planted_recovery(classified: pd.DataFrame, truth: pd.DataFrame) -> Recovery:
    """How the agreement classes line up with the simulator's planted truth (demo profile: every
    method is checked by recovery): one row per planted group — ``taste-driven`` (``truth["taste_driven"]``:
    the planted cause is one of Table 1's taste causes) and ``objective`` (the rest) — with ``n`` and the share
    of each agreement class; with the ``diverging`` class's precision and recall (:class:`Recovery`)."""
    if "taste_driven" not in truth.columns:
        raise ValueError("truth has no 'taste_driven' column (is this simulated data?)")
    td = truth["taste_driven"].reindex(classified.index)
    if td.isna().any():
        raise ValueError(f"{int(td.isna().sum())} classified pairs have no planted truth")
    td = td.astype(bool)
    group = pd.Series(np.where(td, "taste-driven", "objective"), index=classified.index)
    tab = pd.crosstab(group, classified["agreement"], normalize="index").reindex(columns=list(CLASSES), fill_value=0.0)
    tab.insert(0, "n", group.value_counts().reindex(tab.index))
    div = classified["agreement"] == "diverging"
    return Recovery(
        table=tab.rename_axis(index="planted", columns=None),
        precision=float(td[div].mean()) if div.any() else np.nan,
        recall=float(div[td].mean()) if td.any() else np.nan,
    )


def votes_text(data: PreferenceData) -> pd.Series:
    """Each pair's judgments as one readable string, e.g. "-2 +1 0" (signed preferences in annotation order,
    negative prefers A; "?" for a missing one), indexed by pair_id — the "votes" shown beside example pairs
    and in the cause-annotation sheets (:func:`pluralign.diverging.causes.export_for_annotation`)."""
    pref = pd.to_numeric(data.annotations["preference"], errors="coerce")
    return (
        pref.groupby(data.annotations["pair_id"].to_numpy(), sort=False)
        .agg(lambda v: " ".join("?" if pd.isna(x) else f"{int(x):+d}" if x else "0" for x in v))
        .rename_axis("pair_id")
    )


# ---- the planted population's expectation (demo) ---------------------------------------------------------
def _category_probs(m, s, tie: float, significant: float) -> np.ndarray:
    """P(preference = -2, -1, 0, 1, 2) of one annotator whose utility gap is d ~ N(m, s²) (the simulator's
    MultiPref rule: A (negative) when d > tie, significant when |d| > significant)."""
    from scipy.special import ndtr

    c = lambda v: ndtr((v - m) / s)  # noqa: E731  P(d <= v)
    return np.column_stack(
        [1 - c(significant), c(significant) - c(tie), c(tie) - c(-tie), c(-tie) - c(-significant), c(-significant)]
    )


def planted_divergence(data) -> pd.Series | None:
    """Per pair, the probability under the *planted population* that its annotators make it diverging
    (Diverging Preferences §2: at least one prefers A, one prefers B, and one of them significantly;
    :func:`pluralign.diverging.agreement.agreement_classes`), for the simulator's MultiPref format: each
    annotator's utility gap is Gaussian with the population's mean and variance (a mixture over noticing a
    subtle error), judgments independent, as many annotators as the pair has. Returns a Series indexed by
    pair_id, or None for data the simulator did not make in the MultiPref format (no planted population)."""
    from pluralign.data.simulate import FEATURES

    opts, truth = data.meta.get("options", {}), data.truth
    if truth is None or opts.get("annotation_format") != "multipref":
        return None
    w = data.meta["weights"]
    mu, sd = w["mean"].reindex(FEATURES).to_numpy(float), w["sd"].reindex(FEATURES).to_numpy(float)
    dX = np.column_stack([truth[f"a_{f}"].to_numpy(float) - truth[f"b_{f}"].to_numpy(float) for f in FEATURES])
    fe = FEATURES.index("factual_error")
    noise, tie, sig, detect = opts["noise"], opts["tie"], opts["significant"], opts["detect"]
    var_nofe = (dX**2) @ np.where(np.arange(len(FEATURES)) == fe, 0.0, sd**2) + 2 * noise**2
    m_all, s_all = dX @ mu, np.sqrt(var_nofe + dX[:, fe] ** 2 * sd[fe] ** 2)
    p = _category_probs(m_all, s_all, tie, sig)
    subtle = truth["subtle_error"].to_numpy(bool)
    p_miss = _category_probs(m_all - dX[:, fe] * mu[fe], np.sqrt(var_nofe), tie, sig)
    p = np.where(subtle[:, None], detect * p + (1 - detect) * p_miss, p)
    n = data.n_annotators().reindex(truth.index).fillna(0).to_numpy(float)
    no_a, no_b = 1 - p[:, 0] - p[:, 1], 1 - p[:, 3] - p[:, 4]
    no_sig = 1 - p[:, 0] - p[:, 4]
    p_div = (
        1
        - no_a**n
        - no_b**n
        - no_sig**n
        + p[:, 2] ** n
        + (p[:, 2] + p[:, 3]) ** n
        + (p[:, 1] + p[:, 2]) ** n
        - p[:, 2] ** n
    )
    # inclusion-exclusion: P(no A ∧ no B) = P(all ties); P(no A ∧ no significant) = P(all in {tie, B slight});
    # P(no B ∧ no significant) = P(all in {A slight, tie}); P(no A ∧ no B ∧ no significant) = P(all ties)
    return pd.Series(np.clip(p_div, 0, 1), index=truth.index, name="planted P(diverging)")
