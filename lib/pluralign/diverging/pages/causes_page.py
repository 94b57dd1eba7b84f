"""The sections of the page "Why annotators disagree: a taxonomy of causes" (Diverging Preferences Table 1 and
§2.1): the taxonomy, the cause frequencies beside Table 1, the annotation sheets and their round-trip, and the
agreement of cause labels (Cohen's κ, Krippendorff's α with MASI)."""

from __future__ import annotations

import pandas as pd

from pluralign import paper, presentation, report
from pluralign.diverging import agreement as agr
from pluralign.diverging import cause_annotation as sheets_io
from pluralign.diverging import causes as cz
from pluralign.diverging import plots
from pluralign.diverging.study import Study
from pluralign.report import Result

__all__ = ["taxonomy", "diverging_pairs", "frequencies", "annotation_sheets", "round_trip", "label_agreement"]


def _pct(v) -> str:
    return "n/a" if pd.isna(v) else f"{v:.0%}"


def frequencies_figure(labels: dict, title: str) -> tuple[pd.DataFrame, object]:
    """The cause frequencies of ``labels`` (``{name: cause labels}``) beside Table 1, and their figure."""
    freq = cz.cause_frequencies(labels)
    return freq, plots.cause_frequencies(freq, list(labels), title)


@report.section()
def taxonomy(study: Study) -> Result:
    """Table 1: the ten causes with their §2.1 definitions and the paper's frequencies."""
    t = cz.taxonomy_table().reset_index(drop=True)
    t["paper MP"], t["paper HS2"] = t["paper MP"].map(_pct), t["paper HS2"].map(_pct)
    # the definitions as a list under the table: in a cell each ran to six or seven lines
    note = "\n".join(f"- **{r['category']}** ({r['class']}): {r['definition']}" for _, r in t.iterrows())
    return Result(
        table=t.set_index(["class", "category"])[["paper MP", "paper HS2"]],
        note=note,
        paper=paper.numbers("diverging", "Table 1"),
    )


@report.section("causes_n_div_0", "causes_name_0")
def diverging_pairs(study: Study) -> Result:
    """The number of diverging pairs per data set."""
    counts = pd.Series({n: len(i) for n, i in study.diverging_ids.items()}, name="diverging pairs")
    values = {"causes_n_div_0": int(counts.iloc[0]), "causes_name_0": str(counts.index[0])}
    return Result(table=counts.to_frame().rename_axis("data set"), values=values)


@report.section("causes_top_0")
def frequencies(study: Study) -> Result:
    """Cause frequencies of the reference labelling (the simulator's planted causes on the demo profile)
    beside Table 1; without a reference labelling, a note saying where the frequencies will come from."""
    if not study.use_planted:
        return Result(
            table=None,
            note="No reference cause labelling on this profile: the frequencies come from "
            "the annotation sheets below once people have filled them in and the page's parameters list them.",
            values={"causes_top_0": "no reference labelling on this profile"},
        )
    ids = study.diverging_ids
    planted = {d.name: cz.planted_causes(d.truth, ids[d.name]) for d in study.data}
    freq, fig = frequencies_figure(planted, "Causes of diverging preferences: planted reference vs Table 1")
    none = {d.name: int((d.truth.loc[ids[d.name], "cause"] == "none").sum()) for d in study.data}
    note = (
        "On this profile every pair was generated for one planted cause, so the reference labelling has "
        "exactly one cause per pair (the authors' pairs often carry several, so their column sums exceed "
        "100%). Diverging pairs planted as objective ('none': a plain error, harmful compliance, a "
        "paraphrase) carry no Table 1 cause and are left out: "
        + ", ".join(f"{n} of {len(ids[k])} in {k}" for k, n in none.items())
        + ".\n\n"
        "Labelled diverging pairs — " + ", ".join(f"{k}: {freq[f'{k} n'].iloc[0]} pairs" for k in planted) + "."
    )
    table = freq.drop(columns=[f"{k} n" for k in planted]).set_index("category")
    for c in [*planted, "paper MP", "paper HS2"]:
        table[c] = table[c].map(lambda v: f"{v:.1%}")
    first = next(iter(planted))
    top = freq.set_index("category")[first].sort_values(ascending=False)
    paper_top = freq.set_index("category")[["paper MP", "paper HS2"]].max(axis=1).idxmax()
    values = {
        "causes_top_0": (
            f"{top.index[0]} ({top.iloc[0]:.1%} of the labelled diverging pairs of {first}); the paper's most frequent "
            f"cause is {paper_top}"
        )
    }
    return Result(
        table=table,
        figure=fig,
        note=note,
        values=values,
        paper=paper.numbers("diverging", "Table 1"),
        data={"frequencies": freq, "labels": planted},
        caption=(
            "The share of each data set's labelled diverging pairs carrying each cause of Table 1, beside the paper's "
            "frequencies for MultiPref and HelpSteer2 (a pair can carry several causes in the paper, one here)."
        ),
    )


@report.section()
def annotation_sheets(study: Study) -> Result:
    """Export one cause-annotation spreadsheet per data set; the table shows the first rows of the first
    sheet, and reading the fresh sheet back gives no labels (``data["read_back"]``)."""
    path, sheet = next(iter(study.sheets.values()))
    n_back = len(sheets_io.import_annotations(path))
    shown = sheet[["pair_id", "votes", "prompt", "annotator", *cz.CAUSE_IDS[:3]]].head(3)
    names = {c.id: c.name for c in cz.CAUSES}
    shown = shown.rename(columns={"pair_id": "pair", "votes": "judgments", **names})
    return Result(
        table=shown,
        note=f"Labels read back from the fresh sheet `{path.name}`: **{n_back}**.",
        data={"read_back": n_back, "sheets": study.sheets},
    )


def _planted_round_trip_note(written: dict, imported: dict) -> str:
    same = all(
        {(r.pair_id, r.annotator): r.causes for r in written[n].itertuples()}
        == {(r.pair_id, r.annotator): r.causes for r in imported[n].itertuples()}
        for n in written
    )
    return (
        "On this profile the sheets are filled in the way an annotator would, for two 'annotators': "
        "**planted**, the simulator's planted cause (the reference), and **rules**, a labeller that sees only "
        "surface features (one "
        f"response has ≥ {cz.VERBOSITY_RATIO:g}× the words and at least {cz.MIN_EXTRA_WORDS} more → "
        "verbosity; a list or heading on one side only → format; refusal phrases → comply-vs-refuse or "
        "refuse-vs-refuse) and leaves a pair blank when none fires. Neither is a person: the point is "
        "that what goes into the spreadsheet comes back out unchanged, and that the agreement "
        "statistics behave as they should.\n\nLabels written and read back are identical for every "
        "data set: **"
        + ("yes" if same else "NO")
        + "** ("
        + ", ".join(f"{n}: {len(written[n])} labels" for n in written)
        + ")."
    )


@report.section("causes_round_trip")
def round_trip(study: Study) -> Result:
    """Fill the sheets in and read them back: with the planted reference two 'annotators' (the planted causes
    and :func:`~pluralign.diverging.causes.rule_causes`) are written with
    :func:`~pluralign.diverging.cause_annotation.write_annotations`; otherwise the files of ``annotation.files``
    are read. The table counts the labels imported per data set; the note says whether they came back
    unchanged."""
    written, imported = study.round_trip
    table = pd.Series({n: len(v) for n, v in imported.items()}, name="labels imported", dtype=int).to_frame()
    if written:
        note = _planted_round_trip_note(written, imported)
    elif not imported:
        note = (
            f"The sheets are in `{study.annotation_folder}` (one per data set). Fill them in (one copy per "
            "annotator), list them in the page's parameters and re-run the page to get cause frequencies "
            "and agreement."
        )
    else:
        note = ""
    figure = None
    labelled = {k: v for k, v in imported.items() if len(v)}
    if not study.use_planted and labelled:
        freq, figure = frequencies_figure(labelled, "Causes of diverging preferences: imported annotations vs Table 1")
        note += (
            "\n\nCause frequencies from the imported annotations (every annotator's judgment of a pair "
            "counts once), beside Table 1:\n\n" + presentation.present_markdown(freq)
        )
    same = (
        all(
            {(r.pair_id, r.annotator): r.causes for r in written[n].itertuples()}
            == {(r.pair_id, r.annotator): r.causes for r in imported[n].itertuples()}
            for n in written
        )
        if written
        else None
    )
    values = {
        "causes_round_trip": (
            "every label written comes back unchanged"
            if same
            else "some labels do not come back unchanged"
            if same is not None
            else "no labels were written on this profile"
        )
    }
    return Result(
        table=table.rename_axis("data set") if len(table) else None,
        figure=figure,
        caption=(
            "The share of the labelled diverging pairs that the imported annotations give each cause of Table 1 "
            "(every annotator's judgment of a pair counts once), beside the paper's frequencies."
        ),
        note=note,
        values=values,
        data={"written": written, "imported": imported},
    )


@report.section("causes_agreement_says")
def label_agreement(study: Study) -> Result:
    """§2.1's agreement statistics (Cohen's κ over full label sets, Krippendorff's α with MASI distance) per
    data set with labels from two or more annotators, beside the paper's."""
    _, imported = study.round_trip
    ref = study.settings.paper_reference
    agree = cz.agreement_table(imported, paper_reference=ref)
    notes = []
    skipped = [k for k in imported if k not in agree.index]
    if skipped:
        notes.append(
            "Labels from fewer than two annotators, so no agreement: " + ", ".join(str(k) for k in skipped) + "."
        )
    if any(agr.is_stand_in(k, ref) for k in agree.index):
        notes.append(
            'Rows whose paper reference says "stand-in reference" are compared with the κ and α the '
            "paper reports for a different data set, which they only stand in for."
        )
    if not len(agree):
        notes.append(
            "No data set has cause labels from two or more annotators on this run, so there is no agreement to compute."
        )
    if study.use_planted:
        notes.append(
            "The paper's figures are agreement between three of its authors. Here the two 'annotators' are the "
            "planted reference and the surface-feature labeller, so κ and α measure how much of the planted "
            "causes a reader of surface features recovers: it finds verbosity, format and refusals, cannot see "
            "complexity, taste or task ambiguity, and often marks an extra cause (a dressed-up wrong answer is "
            "also longer and formatted) — which κ counts as full disagreement and MASI as partial agreement. "
            "Low values here say the surface features miss most causes, which is why the paper needed people "
            "(and an LLM classifier) to label them."
        )
    table = agree.copy().rename_axis("data set")
    for c in ["κ", "α (MASI)", "paper κ", "paper α"]:
        table[c] = table[c].map(lambda v: "n/a" if pd.isna(v) else f"{v:.2f}")
    if len(agree):
        r = agree.iloc[0]
        paper_words = (
            f"the paper's authors agree at κ {r['paper κ']:.2f} and α {r['paper α']:.2f} ({r['paper reference']})"
            if pd.notna(r["paper κ"])
            else "the paper has no figure for this data set"
        )
        said = f"on {agree.index[0]}, κ {r['κ']:.2f} and α (MASI) {r['α (MASI)']:.2f}; {paper_words}"
    else:
        said = "no data set has cause labels from two or more annotators on this run"
    return Result(
        table=table if len(agree) else None,
        note="\n\n".join(notes),
        values={"causes_agreement_says": said},
        paper=paper.numbers("diverging", "§2.1"),
        data={"agreement": agree},
    )
