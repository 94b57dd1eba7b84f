"""The aggregate preference p* of Beyond the Binary (Padmakumar et al. 2024), Eq. 2: the share of a population
that prefers response A, per pair, from the simulator's truth, a data set's own annotators, human answers to
Appendix B task 3, or an LLM labeller (:mod:`pluralign.btb.appendix_b`); a list of sources is a fallback chain
(human sources first, as the paper's p* is human, §3.2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.btb.appendix_b import load_labellers, user_preference_estimation
from pluralign.btb.sources import MIN_HUMAN_ANNOTATORS, Labelling, fallback_chain, pair_index, pairs_to_label

__all__ = ["aggregate_preference", "p_star_from", "p_star_with_source"]


def aggregate_preference(source, *, column: str = "prefer_a", out_of: int = 10) -> pd.Series:
    """``p*`` — Eq. 2, the share of a population preferring A (``y_0``) — per pair, as a fraction in
    [0, 1] (Series indexed by ``pair_id``, name ``p_star``).

    * ``source`` a ``PreferenceData`` with several real annotators: Eq. 2 over them,
      ``data.share_a()`` (a tie counts half).
    * ``source`` a long DataFrame ``pair_id, labeller, prefer_a`` (task 3 answers from humans or
      :func:`user_preference_estimation`; ``prefer_a`` = how many of ``out_of`` = 10 people prefer A):
      the mean over labellers of ``prefer_a / 10`` — "we average these responses to obtain a consensus"
      (§3.2). Unparseable answers (NaN) are skipped, and a pair with none gets NaN (with a warning)."""
    if hasattr(source, "share_a") and hasattr(source, "annotations"):
        return source.share_a().rename("p_star")
    if not isinstance(source, pd.DataFrame) or "pair_id" not in source.columns or column not in source.columns:
        raise TypeError(f"aggregate_preference needs a PreferenceData or a DataFrame with pair_id and {column!r}")
    v = pd.to_numeric(source[column], errors="coerce")
    bad = v.notna() & ((v < 0) | (v > out_of))
    if bad.any():
        raise ValueError(
            f"{column} must be between 0 and {out_of}; row {int(np.flatnonzero(bad.to_numpy())[0])} "
            f"has {v[bad].iloc[0]!r}"
        )
    p = (v / out_of).groupby(source["pair_id"], sort=False).mean().rename("p_star")
    if p.isna().any():
        from pluralign.report import stated_warning

        stated_warning(f"aggregate_preference: {int(p.isna().sum())} pairs have no usable estimate (p* NaN)")
    p.index.name = "pair_id"
    return p


def p_star_from(source: str, data, ids=None, **labelling) -> pd.Series | None:
    """``p*`` per pair (Series ``p_star`` indexed by ``pair_id``, reindexed to ``ids``, default all of
    ``data``'s pairs), from one of:

    * ``"truth"``: the simulator's planted ``data.truth["share_a"]``;
    * ``"annotators"``: Eq. 2 over the data's own annotators (a single gold label gives 0 or 1);
    * ``"labels"``: human answers to Appendix B task 3 in ``labels_file`` (CSV, long form
      ``pair_id, labeller, prefer_a`` with ``prefer_a`` out of 10), averaged (§3.2);
    * ``"llm"``: :func:`user_preference_estimation` by ``labeller`` (``pluralign.llm.load`` argument
      dicts or loaded backends) with ``samples``, ``temperature``, ``top_p``, ``job``, on the pairs
      ``ids`` only;
    * ``"none"``: None.

    ``labelling``: the fields of :class:`~pluralign.btb.sources.Labelling` (``labeller``, ``labels_file``,
    ``samples``, ``temperature``, ``top_p``, ``job``). ``source`` may also be a list of these names (a fallback
    chain, e.g. ``["labels", "annotators", "llm"]``): each pair's p* comes from the first source that has it
    (:func:`p_star_with_source`).

    Pairs missing from the source get NaN."""
    how = Labelling.of(labelling, "p_star_from")
    if isinstance(source, (list, tuple)):
        return p_star_with_source(source, data, ids, **labelling)["p_star"]
    ids = pair_index(data, ids)
    if source == "none":
        return None
    p, llm_counts = _source_p_star(source, data, ids, how)
    out = p.reindex(ids).astype(float).rename("p_star")
    out.index.name = "pair_id"
    if llm_counts is not None:  # how many of the labeller's answers gave no number (counted, never dropped silently)
        out.attrs.update(llm_counts)
    return out


def _source_p_star(source: str, data, ids: pd.Index, how: Labelling):
    """p* (Eq. 2) by ``pair_id`` from one source of :func:`p_star_from` but ``"none"``, and for ``"llm"`` the
    labeller's answer counts (``llm_answers``, ``llm_unparsed``; None for the other sources); an unknown name is
    an error."""
    if source == "truth":
        if data.truth is None or "share_a" not in data.truth:
            raise ValueError("p_star_from('truth') needs data with truth.share_a (simulated data)")
        return data.truth["share_a"], None
    if source == "annotators":
        return aggregate_preference(data), None
    if source == "labels":
        if how.labels_file is None:
            raise ValueError("p_star_from('labels') needs labels_file (pair_id, labeller, prefer_a)")
        raw = pd.read_csv(how.labels_file)
        if not pd.api.types.is_numeric_dtype(data.pairs["pair_id"]):  # ids read back as numbers
            raw["pair_id"] = raw["pair_id"].astype(str)
        return aggregate_preference(raw), None
    if source == "llm":
        sub = pairs_to_label(data, ids)
        answers = user_preference_estimation(load_labellers(how.labeller), sub, **how.asking())
        counts = {"llm_answers": int(len(answers)), "llm_unparsed": int(answers["prefer_a"].isna().sum())}
        return aggregate_preference(answers), counts
    raise ValueError(f"p_star_from must be truth, annotators, labels, llm or none, not {source!r}")


def _annotator_label(n: int) -> str:
    return f"annotators ({n} per pair)"


def p_star_with_source(
    source, data, ids=None, *, min_annotators: int = MIN_HUMAN_ANNOTATORS, **labelling
) -> pd.DataFrame:
    """p* (Eq. 2) per pair and where it came from: a DataFrame indexed by ``pair_id`` (``ids``) with ``p_star``
    and ``source``.

    ``source``: one name of :func:`p_star_from` or a list of them, tried in order, each pair taking its p* from
    the first that has it — the paper's p* is human (§3.2: three annotators answered Appendix B task 3), so a
    chain puts the human sources first: ``"labels"`` (skipped without ``labels_file``; pairs the file does not
    cover fall through), ``"annotators"`` (only pairs with at least ``min_annotators`` judgments: one label is
    not a population's share), then e.g. ``"llm"`` for the rest. ``source`` names ``annotators`` as
    ``"annotators (<n> per pair)"``; a pair no source covers has NaN and source None. ``labelling``: the fields of
    :class:`~pluralign.btb.sources.Labelling`, passed to each source."""
    labels_file = Labelling.of(labelling, "p_star_with_source").labels_file
    ids = pair_index(data, ids)
    single = not isinstance(source, (list, tuple))
    chain = [source] if single else fallback_chain(source, "p_star_from")
    n_ann = data.n_annotators()
    p = pd.Series(np.nan, index=ids, name="p_star")
    src = pd.Series(None, index=ids, dtype=object, name="source")
    counts = {}
    for s in chain:
        todo = ids[p.isna().to_numpy()]
        if s == "none" or not len(todo) or (s == "labels" and labels_file is None and not single):
            continue
        if s == "annotators" and not single:
            todo = todo[(n_ann.reindex(todo).fillna(0) >= min_annotators).to_numpy()]
            if not len(todo):
                continue
        got = p_star_from(s, data, todo, **labelling)
        for k, v in got.attrs.items():
            counts[k] = counts.get(k, 0) + v
        got = got.reindex(todo)
        has = got.notna()
        p[got.index[has]] = got[has]
        src[got.index[has]] = (
            [_annotator_label(int(n)) for n in n_ann.reindex(got.index[has])] if s == "annotators" else s
        )
    p.index.name = src.index.name = "pair_id"
    out = pd.DataFrame({"p_star": p.astype(float), "source": src})
    out.attrs.update(counts)  # llm_answers / llm_unparsed where an LLM labelled (see p_star_from)
    return out
