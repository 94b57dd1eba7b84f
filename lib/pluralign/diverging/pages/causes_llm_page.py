"""The sections of the page "An LLM cause classifier" (the full version of Diverging Preferences, arXiv
2410.14632): the classifier's prompt and its labels beside the human annotators'."""

from __future__ import annotations

import pandas as pd

from pluralign import presentation, report
from pluralign.diverging import cause_classifier as classifier
from pluralign.diverging import causes as cz
from pluralign.diverging.pages.causes_page import frequencies_figure
from pluralign.diverging.study import Study
from pluralign.llm.options import LLMOptions
from pluralign.report import Result

__all__ = ["prompt", "llm_causes"]


@report.section()
def prompt(study: Study, max_chars: int = 600) -> Result:
    """The cause classifier's prompt for the first sampled pair
    (:func:`~pluralign.diverging.cause_classifier.cause_prompt`)."""
    name, (_, sheet) = next(iter(study.sheets.items()))
    row = study.dataset(name).pairs.set_index("pair_id").loc[sheet["pair_id"].iloc[0]]
    text = classifier.cause_prompt(row["prompt"], row["response_a"], row["response_b"], max_chars=max_chars)
    return Result(table=None, note=f"```text\n{text}\n```", data={"prompt": text})


def _agreement_with_people(humans: pd.DataFrame | None, labels: pd.DataFrame) -> tuple[str, str] | None:
    """κ per annotator pair and α (MASI) of all, the classifier counted as one more annotator (Markdown), and the
    same in words: the mean κ between the classifier and each human annotator, and α."""
    if humans is None or not len(humans):
        return None
    a = cz.label_agreement(pd.concat([humans, labels[["pair_id", "annotator", "causes"]]], ignore_index=True))
    llm = set(labels["annotator"])
    with_llm = [k for pair, k in a["pairwise_kappa"].items() if len(llm & set(pair)) == 1]
    said = (
        f"mean κ with the human annotators {sum(with_llm) / len(with_llm):.2f}, " if with_llm else ""
    ) + f"α (MASI) with the classifier as one more annotator {a['alpha']:.2f}"
    table = (
        pd.Series(a["pairwise_kappa"], name="κ")
        .rename_axis(["annotator", "other annotator"])
        .to_frame()
        .assign(**{"α (MASI), all annotators": a["alpha"]})
        .pipe(presentation.present_markdown)
    )
    return table, said


@report.section("llm_causes_says")
def llm_causes(study: Study) -> Result:
    """Label the sampled diverging pairs with the LLM cause classifier (``cause_classifier.llm``, at most
    ``cause_classifier.pairs`` per data set) and compare it with the imported human labels; without a
    classifier the section does not run."""
    spec = study.settings.cause_classifier.llm
    if spec is None:
        return Result(
            table=None,
            skipped="The cause classifier is not run on this profile (it names no instruction-following LLM).",
            values={"llm_causes_says": "the classifier is not run on this profile"},
        )

    model = LLMOptions.of(spec).load()
    _, imported = study.round_trip
    tables, notes, figs, said = {}, [], [], []
    for name, (_, sheet) in study.sheets.items():
        ids = list(sheet["pair_id"])[: int(study.settings.cause_classifier.pairs)]
        got = classifier.classify_causes(study.dataset(name), model, ids, job=f"diverging-causes-{name}")
        notes.append(
            f"**{name}**: {len(got.labels)} pairs labelled, {len(got.failed)} failed "
            f"validation, {len(got.patched)} needed a retry."
        )
        freq, fig = frequencies_figure(
            {f"{name} (LLM)": got.labels}, f"{name}: causes from the LLM classifier vs Table 1"
        )
        # one pair of columns for every data set (its rows carry its name), not a pair per data set mostly empty
        shown = freq.rename(columns={f"{name} (LLM)": "share (LLM)", f"{name} (LLM) n": "labelled pairs"})
        tables[name], figs = shown, [*figs, fig]
        agreement = _agreement_with_people(imported.get(name), got.labels)
        words = f"{name}: {len(got.labels)} pairs labelled, {len(got.failed)} failed validation"
        if agreement is not None:
            notes.append(agreement[0])
            words += f"; {agreement[1]}"
        said.append(words)
    return Result(
        table=pd.concat(tables, names=["data set", "cause"]),
        figure=figs[0] if figs else None,
        note="\n\n".join(notes),
        values={"llm_causes_says": "; ".join(said)},
        data={"figures": figs},
        caption=(
            "The share of the labelled diverging pairs the LLM classifier gives each cause of Table 1, beside the "
            "paper's frequencies (a pair can carry several causes)."
        ),
    )
