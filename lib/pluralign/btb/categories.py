"""The categories of subjectivity of Beyond the Binary (Padmakumar et al. 2024), §3.1: the plurality of responses
(a prompt with a *single* or *multiple* correct answers) and the indistinguishability of responses (two answers
that are paraphrases), per pair, from the simulator's truth, one category per data set, human labels (the paper's
three annotators' majority vote, §3.2) or an LLM labeller (Appendix B tasks 1-2, :mod:`pluralign.btb.appendix_b`);
and their summary with p*."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pluralign.btb.appendix_b import classify_distinguishability, classify_subjectivity, load_labellers
from pluralign.btb.sources import Labelling, fallback_chain, pair_index, pairs_to_label

__all__ = ["KIND_NAMES", "majority_vote", "category_summary", "categories_from", "categories_with_source"]

#: The categories of §3.1 as Tables 1–2 print them.
KIND_NAMES = {"single": "Single Correct", "multiple": "Multiple Correct"}


def majority_vote(labels: pd.DataFrame, column: str, *, by: str = "pair_id") -> pd.DataFrame:
    """Majority vote over imported labels (§3.2: "We first put the examples into categories along both
    aforementioned dimensions via a majority vote" of three annotators).

    ``labels``: long form, one row per (item, labeller) with the label in ``column`` (missing labels
    are ignored). Returns per item: the majority label (``None`` when the top labels tie — counted in
    a warning, never broken silently), ``n`` labels and ``agreement`` (share of the majority label)."""
    if by not in labels.columns or column not in labels.columns:
        raise ValueError(f"labels need columns {by!r} and {column!r}")
    rows = []
    for key, vals in labels.dropna(subset=[column]).groupby(by, sort=False)[column]:
        counts = vals.value_counts()
        top = counts[counts == counts.max()]
        rows.append(
            (key, top.index[0] if len(top) == 1 else None, int(counts.sum()), float(counts.max() / counts.sum()))
        )
    out = pd.DataFrame(rows, columns=[by, column, "n", "agreement"])
    out[column] = pd.Series([r[1] for r in rows], dtype=object)  # a tie stays None
    ties = int(out[column].isna().sum())
    if ties:
        warnings.warn(f"majority_vote: {ties} items tied between labels ({column} = None)", stacklevel=2)
    return out


def category_summary(
    kind: pd.Series | None = None, distinguishable: pd.Series | None = None, p_star: pd.Series | None = None
) -> pd.DataFrame:
    """§3.1's two dimensions of subjectivity side by side: per category, the number and share of
    pairs and — when ``p_star`` (Eq. 2) is given — the mean ``p*`` and the mean *population
    agreement* ``|2p* − 1|`` (0 = an even split of the population, 1 = unanimous; the quantity the
    margin of Eq. 3 estimates).

    ``kind``: Series of ``"single"`` / ``"multiple"`` indexed by ``pair_id``
    (:func:`classify_subjectivity`); ``distinguishable``: Series of booleans
    (:func:`classify_distinguishability`). Pairs without a category (``None`` / NaN, e.g. a tied
    majority vote) are counted as ``"unassigned"``, never dropped. Returns ``dimension, category, n,
    share`` (+ ``mean_p_star, mean_agreement``). Pairs without p* (NaN: e.g. every LLM answer unparseable) are
    left out of the means and counted per category in ``n_without_p_star`` (present only when some pair lacks
    p*); a category with none has NaN means."""
    if kind is None and distinguishable is None:
        raise ValueError("pass kind and/or distinguishable")
    dims = []
    if kind is not None:
        k = kind.map(lambda v: KIND_NAMES.get(v, "unassigned") if isinstance(v, str) else "unassigned")
        bad = kind[kind.notna() & ~kind.isin(["single", "multiple"])]
        if len(bad):
            raise ValueError(f"kind must be 'single' or 'multiple', got {bad.iloc[0]!r}")
        dims.append(("plurality of responses", k))
    if distinguishable is not None:
        d = distinguishable.map(
            lambda v: (
                "unassigned"
                if v is None or (isinstance(v, float) and np.isnan(v))
                else "Distinguishable"
                if bool(v)
                else "Indistinguishable"
            )
        )
        dims.append(("distinguishability", d))
    rows = []
    missing = p_star is not None and bool(p_star.astype(float).reindex(dims[0][1].index).isna().any())
    for dim, lab in dims:
        ps = None if p_star is None else p_star.astype(float).reindex(lab.index)
        order = [
            c
            for c in ("Single Correct", "Multiple Correct", "Distinguishable", "Indistinguishable", "unassigned")
            if (lab == c).any()
        ]
        for cat in order:
            m = (lab == cat).to_numpy()
            row = {"dimension": dim, "category": cat, "n": int(m.sum()), "share": float(m.mean())}
            if ps is not None:
                v = ps.to_numpy()[m]
                v = v[~np.isnan(v)]
                row["mean_p_star"] = float(v.mean()) if len(v) else np.nan
                row["mean_agreement"] = float(np.abs(2 * v - 1).mean()) if len(v) else np.nan
                if missing:
                    row["n_without_p_star"] = int(m.sum() - len(v))
            rows.append(row)
    return pd.DataFrame(rows)


def categories_from(source, data, ids=None, **labelling) -> pd.DataFrame:
    """The two categories of §3.1 per pair: a DataFrame indexed by ``pair_id`` (``ids``, default all of
    ``data``'s pairs) with columns ``kind`` (``"single"`` / ``"multiple"``) and ``distinguishable`` (bool),
    None where a pair has no category (or the source has no such dimension), from one of:

    * ``"truth"``: the simulator's planted ``kind`` and ``distinguishable``;
    * ``{"kind": {data set: "single" | "multiple"}}``: one category per data set (others unassigned),
      e.g. LLMBar, single-correct by construction;
    * ``"labels"``: human labels in ``labels_file`` (CSV, long form ``pair_id, annotator, kind,
      distinguishable``), by :func:`majority_vote` as the paper's three annotators;
    * ``"llm"``: Appendix B tasks 1–2 asked of ``labeller`` (:func:`classify_subjectivity`,
      :func:`classify_distinguishability`) with ``samples``, ``temperature``, ``top_p``, ``job``;
    * ``"none"`` / None: no categories;
    * a list of these (a fallback chain, e.g. ``["labels", "llm"]``): each pair's categories come from the first
      source that gives it one (:func:`categories_with_source`).

    ``labelling``: the fields of :class:`~pluralign.btb.sources.Labelling` (``labeller``, ``labels_file``,
    ``samples``, ``temperature``, ``top_p``, ``job``)."""
    how = Labelling.of(labelling, "categories_from")
    if isinstance(source, (list, tuple)):
        return categories_with_source(source, data, ids, **labelling).drop(columns="source")
    ids = pair_index(data, ids)
    out = pd.DataFrame(
        {"kind": pd.Series(None, index=ids, dtype=object), "distinguishable": pd.Series(None, index=ids, dtype=object)}
    )
    if source is None or source == "none":
        return out
    if isinstance(source, dict):
        by = source.get("kind", {})
        out["kind"] = data.pairs.set_index("pair_id")["dataset"].reindex(ids).map(lambda v: by.get(v)).astype(object)
        return out
    kind, dist = _pair_categories(source, data, ids, how)
    out["kind"] = kind.reindex(ids).astype(object)
    out["distinguishable"] = dist.reindex(ids).astype(object)
    return out


def _pair_categories(source: str, data, ids: pd.Index, how: Labelling):
    """``kind`` and ``distinguishable`` (Series by ``pair_id``) from a source that labels pairs one by one: the
    simulator's ``"truth"``, the human ``"labels"`` (majority of the annotators, §3.2) or the ``"llm"`` labeller
    (Appendix B tasks 1-2, asked about the pairs ``ids`` only); another name is an error."""
    if source == "truth":
        if data.truth is None or "kind" not in data.truth:
            raise ValueError("categories 'truth' needs data with truth.kind (simulated data)")
        return data.truth["kind"], data.truth["distinguishable"]
    if source == "labels":
        if how.labels_file is None:
            raise ValueError("categories 'labels' needs labels_file (pair_id, annotator, kind, distinguishable)")
        raw = pd.read_csv(how.labels_file)
        kind = majority_vote(raw, "kind").set_index("pair_id")["kind"]
        return kind, majority_vote(raw, "distinguishable").set_index("pair_id")["distinguishable"]
    if source == "llm":
        lab = load_labellers(how.labeller)
        sub = pairs_to_label(data, ids)
        kind = classify_subjectivity(lab, sub, **how.asking()).set_index("pair_id")["kind"]
        return kind, classify_distinguishability(lab, sub, **how.asking()).set_index("pair_id")["distinguishable"]
    raise ValueError(f"categories must be truth, llm, labels, none or {{'kind': {{data set: kind}}}}, not {source!r}")


def categories_with_source(source, data, ids=None, **labelling) -> pd.DataFrame:
    """The categories of §3.1 per pair (:func:`categories_from`) and where they came from (``source``: the
    source's name, ``"per data set"`` for a ``{"kind": ...}`` mapping, None for a pair without a category).

    ``source``: one source or a list, tried in order: a pair takes the categories of the first source that gives
    it a ``kind`` or a ``distinguishability`` (``"labels"`` without ``labels_file`` is skipped), so human labels
    (the paper's three annotators' majority, §3.2) come first and e.g. ``"llm"`` labels the rest. ``labelling``:
    the fields of :class:`~pluralign.btb.sources.Labelling`, passed to each source."""
    labels_file = Labelling.of(labelling, "categories_with_source").labels_file
    ids = pair_index(data, ids)
    single = not isinstance(source, (list, tuple))
    chain = [source] if single else fallback_chain(source, "categories")
    out = pd.DataFrame(
        {
            "kind": pd.Series(None, index=ids, dtype=object),
            "distinguishable": pd.Series(None, index=ids, dtype=object),
            "source": pd.Series(None, index=ids, dtype=object),
        }
    )
    for s in chain:
        todo = ids[out["source"].isna().to_numpy()]
        if s in (None, "none") or not len(todo) or (s == "labels" and labels_file is None and not single):
            continue
        got = categories_from(s, data, todo, **labelling)
        has = (got["kind"].notna() | got["distinguishable"].notna()).to_numpy()
        hit = got.index[has]
        out.loc[hit, "kind"] = got.loc[hit, "kind"].astype(object)
        out.loc[hit, "distinguishable"] = got.loc[hit, "distinguishable"].astype(object)
        out.loc[hit, "source"] = "per data set" if isinstance(s, dict) else s
    return out
