"""Where p* (Eq. 2) and the categories (§3.1) of a Beyond the Binary page come from, and which pairs have no p*:
the sections and warnings the subjectivity and rewards pages share (:mod:`pluralign.btb.pages`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pluralign import report
from pluralign.btb import p_star as p_star_sources
from pluralign.btb import sources as source_checks
from pluralign.btb.categories import categories_with_source

if TYPE_CHECKING:
    import pandas as pd

    from pluralign.btb.study import Study

__all__ = [
    "require_p_star",
    "require_test_p_star",
    "no_r_interval",
    "circularity_warning",
    "same_model_warning",
    "sources",
    "pairs_taken",
]

#: The quantities as the pages' Markdown writes them.
QUANTITY = {"p*": "p\\*", "categories": "the categories"}


def require_p_star(study: Study, values: dict | None = None, p: pd.Series | None = None) -> None:
    """Raise :class:`~pluralign.report.NoEstimate` (the counts of :meth:`Study.p_star_missing`, still giving
    ``values``) when no pair has p* (``p``, by default the study's): a section that needs p* has nothing to
    estimate from."""
    m = study.p_star_missing(p)
    if m is not None and m["all"]:
        raise report.NoEstimate(f"{m['text']}.", values)


def require_test_p_star(study: Study) -> None:
    """:func:`require_p_star` for the rewards page's test pairs (Tables 1–2 need their p*)."""
    require_p_star(study, p=study.comparison.p_star)


def no_r_interval(n: int, values: dict | None = None) -> report.NoEstimate:
    """The "no estimate" of a section whose Δ r has no interval (to raise): Pearson r is undefined on fewer than two
    test pairs with p*, or where the scores or p* do not vary; it still gives ``values``."""
    pairs = f"{n} test pair{'s' if n != 1 else ''} with p*"
    why = f"Δ r has no interval: Pearson r is undefined on {pairs} (under two, or scores or p* constant)"
    return report.NoEstimate(f"{why}.", values)


def circularity_warning(study: Study, used: set | None = None) -> str:
    """The warning box for :func:`pluralign.btb.sources.circularity` (only the quantities in ``used``
    when given: those an LLM actually labelled), or ""."""
    s = study.settings
    c = source_checks.circularity(s.p_star_from, s.categories, s.labeller.model, s.judge)
    if used is not None:
        c = c[c["quantity"].isin(used)]
    c = c[c["same"] != ""]
    if c.empty:
        return ""
    what = " and ".join(dict.fromkeys(QUANTITY[q] for q in c["quantity"]))
    r = c.iloc[0]
    rel = (
        f"the same model ({r['judge']})"
        if r["same"] == "model"
        else f"a model of the same family ({r['labeller family']}: {r['labeller']} and {r['judge']})"
    )
    return report.warning(
        f"**Circular evaluation: on this run {what} and the training margins come from {rel}.** The margins "
        "of Eq. 3 are that judge's ten votes per pair, so the regularized RM is trained towards the model (or "
        "model family) that also defines its evaluation target, which favours it over the baseline by "
        "construction; read any advantage of the regularized RM below with that in mind. The paper's p\\* "
        "and categories come from three human annotators (§3.2): give the page their answers to Appendix B as "
        "a labels file, taken first where a pair has one, or use a labeller of another model family."
    )


def same_model_warning(study: Study) -> report.Result:
    """A warning (:func:`pluralign.report.warning`) when the LLM labeller of p* or the categories is the
    margin judge or of its model family (:func:`pluralign.btb.sources.circularity`), from the
    parameters alone; :func:`sources` also counts the pairs each source labels."""
    return report.Result(table=None, note=circularity_warning(study))


def _not_human(study: Study, by_llm) -> str:
    """The warning that an LLM labeller, not humans, gave p* or the categories of ``by_llm``'s pairs."""
    s = study.settings
    models = s.labeller.model if isinstance(s.labeller.model, list) else [s.labeller.model]
    names = ", ".join(str(source_checks.model_name(m)) for m in models)
    judge = (
        f"; it is of another model family than the margin judge ({source_checks.model_name(s.judge.model)}),"
        " so the evaluation is not circular"
        if s.judge.source == "llm"
        else ""
    )
    counts = " and ".join(f"{QUANTITY[q]} of {int(n)} pairs" for q, n in zip(by_llm["quantity"], by_llm["pairs"]))
    return report.warning(
        f"**Not human: {counts} come from an LLM labeller ({names}),** not from human annotators as in the "
        f"paper (three annotators, §3.2){judge}. Its p\\* is a model's estimate of the population, not "
        "the population's. Give the page human answers to Appendix B as a labels file where you have them."
    )


def _p_star_gaps(pw) -> str:
    """The warning that some pairs have no p* (with why, e.g. the labeller's answers failed), or ""."""
    if pw is None or not pw["p_star"].isna().any():
        return ""
    a, n = pw.attrs, int(pw["p_star"].isna().sum())
    why = (
        f": {a['llm_unparsed']} of {a['llm_answers']} answers of the LLM labeller to Appendix B task 3 "
        "were unparseable (no number of 10 people)"
        if a.get("llm_answers")
        else ""
    )
    return report.warning(
        f"**p\\* is missing for {n} of {len(pw)} pairs**{why}. Sections that need p\\* leave those pairs out, "
        "and have no estimate where no pair has it."
    )


def sources(study: Study, page: str = "rewards") -> report.Result:
    """Where p* (Eq. 2) and the categories (§3.1) of the page's pairs (``page="rewards"``: the test pairs of
    Tables 1–2; ``"subjectivity"``: all pairs) come from: pairs per source
    (:func:`pluralign.btb.sources.source_counts`), with a warning box when an LLM labelled any of them
    — the paper's are human, three annotators (§3.2) — which says the evaluation is circular when that LLM
    is the margin judge or of its family."""
    if page == "rewards":
        data, ids = study.data_splits.everything, study.data_splits.test.pairs["pair_id"]
    elif page == "subjectivity":
        data, ids = study.data, None
    else:
        raise ValueError(f"sources are counted for the 'rewards' or 'subjectivity' page, not {page!r}")
    kw = study.labelling()
    none = study.p_star_from in (None, "none")
    pw = None if none else p_star_sources.p_star_with_source(study.p_star_from, data, ids, **kw)
    ps = None if pw is None else pw["source"]
    cs = categories_with_source(study.category_source, data, ids, **kw)["source"]
    table = source_checks.source_counts(ps, cs)
    by_llm = table[(table["source"] == "llm") & (table["pairs"] > 0)]
    used = set(by_llm["quantity"])
    notes = [circularity_warning(study, used)]
    if used and not notes[0]:
        notes.append(_not_human(study, by_llm))
    notes.append(_p_star_gaps(pw))
    return report.Result(
        table=table.set_index(["quantity", "source"]),
        note="\n\n".join(n for n in notes if n),
        data={"p_star": ps, "categories": cs},
    )


def pairs_taken(per_dataset, name: str) -> str:
    """Which pairs of data set ``name`` a page uses, in words (``per_dataset``: a count, or a count per data set)."""
    n = per_dataset.get(name) if isinstance(per_dataset, dict) else per_dataset
    return f"a random {n} of its pairs" if n else "all of its pairs"
