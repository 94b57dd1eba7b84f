"""Diverging Preferences' Table 2 beside the paper's, as the pages show it: this run's Table 2
(:func:`pluralign.diverging.reward_models.table2`) with the paper's block for the data set it stands for
(:func:`table2_vs_paper`; the paper's number in this run's cell on the page, :func:`table2_beside_paper`), the
simulated population's own Table 2 where the pairs carry planted truth (:func:`planted_table2`), and the long
form the forest plot draws (:func:`table2_long`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pluralign.diverging.agreement import is_stand_in, paper_label
from pluralign.diverging.reward_models import RewardModelRun, paper_table2, table2

__all__ = ["table2_vs_paper", "label_paper_columns", "planted_table2", "table2_long", "table2_beside_paper"]


def table2_vs_paper(
    ours: pd.DataFrame,
    dataset: str | None,
    *,
    also=(),
    digits: int | None = None,
    paper_reference=None,
    paper_only_models: bool = True,
) -> pd.DataFrame:
    """Our :func:`table2` beside the paper's block for ``dataset`` (``None`` or a data set the paper has no
    block for → paper columns "n/a"): per model ``<name>`` as "est [lo, hi]" (one precision per column,
    ``digits`` or :func:`pluralign.presentation.column_decimals`) and ``<name> paper`` (as the paper prints it);
    counts as ``# Ex.`` and ``# Ex. paper``. Models the paper did not train on that data set (e.g. MSE on MultiPref) get
    "n/a" in their paper column; models in the paper's block that we could not train get "n/a" in ours, and so do
    the model names in ``also`` (e.g. the MSE models skipped on data without Likert scores).

    ``paper_reference``: the explicit lookup of :func:`paper_table2` (e.g. ``{"pandalm": "multipref"}``).
    What the "paper" columns are is :func:`pluralign.diverging.agreement.paper_label` ``(dataset,
    paper_reference)`` (e.g. "paper (MultiPref, stand-in reference)"; ``None`` without a block) — show it with
    the table, e.g. with :func:`label_paper_columns`. ``paper_only_models=False``
    leaves out the models that only the paper's block has (for a page that trains just some of Table 2's)."""
    from pluralign.presentation import intervals, signed

    try:
        paper = paper_table2(dataset, paper_reference, printed=True) if dataset is not None else None
    except KeyError:
        paper = None
    names = [c for c in ours.columns if c != "# Ex." and not c.endswith((" lo", " hi"))]
    if paper is not None and paper_only_models:
        names += [c for c in paper.columns if c != "# Ex." and c not in names]
    names += [c for c in also if c not in names]
    out = pd.DataFrame(index=ours.index)
    out["# Ex."] = ours["# Ex."].astype(int).astype(str)
    out["# Ex. paper"] = paper["# Ex."].reindex(ours.index) if paper is not None else "n/a"
    for n in names:
        if n in ours.columns:
            out[n] = intervals(ours[n], ours[f"{n} lo"], ours[f"{n} hi"], digits, missing="n/a")
        else:
            out[n] = "n/a"
        if paper is not None and n in paper.columns:
            out[f"{n} paper"] = paper[n].reindex(ours.index).map(signed)
        else:
            out[f"{n} paper"] = "n/a"
    return out


def label_paper_columns(table: pd.DataFrame, label: str | None) -> pd.DataFrame:
    """``table`` (from :func:`table2_vs_paper`) with every "<name> paper" column renamed to "<name> <label>",
    e.g. "BT (Agg) paper (MultiPref, stand-in reference)" (``label``:
    :func:`pluralign.diverging.agreement.paper_label`), for display; unchanged when ``label`` is None."""
    if not label:
        return table
    return table.rename(columns={c: c[: -len("paper")] + label for c in table.columns if c.endswith(" paper")})


#: The note under a Table 2 whose held-out pairs are simulated: what the "planted" column is.
_PLANTED_NOTE = (
    "*Planted: the simulated population's own P(chosen ≻ rejected) on the same pairs "
    "(the mean of max(p\\*, 1 − p\\*)), what a reward model that knew how the whole "
    "population splits would show; a model's column above it overstates the "
    "population's agreement, below it understates it.*"
)


def _paper_note(name: str, paper_reference) -> str | None:
    label = paper_label(name, paper_reference)
    if label is not None and is_stand_in(name, paper_reference):
        return (
            f'*{name}: the numbers marked "paper" are {label}, the paper\'s values for a '
            f"different data set, which {name} stands in for: a reference point, not a "
            "replication target.*"
        )
    return None if label is None else f'*{name}: the numbers marked "paper" are {label}.*'


def planted_table2(run: RewardModelRun, *, n_boot: int, seed: int) -> pd.DataFrame | None:
    """Table 2 of the simulated population itself on a run's held-out pairs (column ``population``: the mean of
    max(p*, 1 − p*) per subset, with its CI), or None when the held-out pairs carry no planted truth."""
    truth = getattr(run.heldout, "truth", None)
    if truth is None or "share_a" not in truth.columns:
        return None
    ids = pd.Index(run.heldout.pairs["pair_id"])  # the held-out pairs every model is evaluated on
    p_a = {"population": truth["share_a"].reindex(ids).astype(float)}
    return table2(run.classified, p_a=p_a, n_boot=n_boot, seed=seed)


def table2_long(runs: Mapping[str, RewardModelRun], raw: Mapping[str, pd.DataFrame], *, n_boot: int, seed: int,
                paper_reference=None) -> pd.DataFrame:  # fmt: skip
    """Table 2 (``raw``: :func:`table2` per data set) in long form for its forest plot: one row per data set,
    subset and model with ``estimate``, ``lo``, ``hi``, the paper's value (``paper``, NaN where its block has
    none), on simulated pairs the population's (``planted``, probability models only), and ``why`` a model has
    no estimate ("not trained: …" for a model the run skipped, else None)."""
    rows = []
    for name, t in raw.items():
        try:
            paper_block = paper_table2(name, paper_reference)
        except KeyError:
            paper_block = pd.DataFrame(index=t.index)
        planted = planted_table2(runs[name], n_boot=n_boot, seed=seed) if name in runs else None
        skipped = dict(runs[name].skipped) if name in runs else {}
        models = [c for c in t.columns if c != "# Ex." and not c.endswith((" lo", " hi"))]
        for m in models + [m for m in skipped if m not in models]:
            for subset in t.index:
                rows.append(
                    {
                        "data set": name,
                        "subset": subset,
                        "model": m,
                        "estimate": t.loc[subset, m] if m in t else np.nan,
                        "lo": t.loc[subset, f"{m} lo"] if m in t else np.nan,
                        "hi": t.loc[subset, f"{m} hi"] if m in t else np.nan,
                        "paper": paper_block[m].get(subset, np.nan) if m in paper_block else np.nan,
                        "planted": planted.loc[subset, "population"]
                        if planted is not None and m.startswith("BT")
                        else np.nan,
                        "why": "not trained" if m in skipped else None,
                    }
                )
    return pd.DataFrame(rows)


def _paper_in_cell(beside: pd.DataFrame) -> pd.DataFrame:
    """:func:`table2_vs_paper`'s columns as the page shows them: each of this run's cells with the paper's number
    after it in the same cell ("0.686 [0.670, 0.702] · paper 0.725", :func:`_with_paper`), so that five models,
    their counts and the planted column fit the text column; the paper's number as it prints it."""
    out = pd.DataFrame(index=beside.index)
    for c in beside.columns:
        if c.endswith(" paper"):
            continue
        paper_col = f"{c} paper"
        out[c] = (
            [_with_paper(a, b) for a, b in zip(beside[c], beside[paper_col].fillna("n/a"))]
            if paper_col in beside
            else beside[c]
        )
    return out


def _with_paper(ours: str, paper: str) -> str:
    """One cell of :func:`_paper_in_cell`: this run's number, then "· paper" and the paper's; a line may break
    only before the interval and before "·" (the other spaces are non-breaking); "n/a" alone where both are."""
    if ours == "n/a" and paper == "n/a":
        return "n/a"
    nbsp = "\u00a0"
    return f"{ours.replace(', ', ',' + nbsp)} ·{nbsp}paper{nbsp}{paper}"


def table2_beside_paper(
    runs: Mapping[str, RewardModelRun],
    *,
    n_boot: int,
    seed: int,
    paper_reference=None,
    also: bool = True,
    paper_only_models: bool = True,
) -> tuple[pd.DataFrame, dict, list]:
    """Table 2 of every run (:func:`table2` on its held-out outputs) beside the paper's block
    (:func:`table2_vs_paper`, the paper's number in this run's cell: :func:`_paper_in_cell`; ``also``: the
    models a run skipped get "n/a" rows), one block per data set; on
    simulated held-out pairs with the planted population share, the population's own P(chosen ≻ rejected) per
    subset beside them. Returns (the displayed table, ``{data set: table2}``, notes saying what the paper and
    planted columns are)."""
    frames, raw, notes = {}, {}, []
    for name, r in runs.items():
        raw[name] = t = table2(r.classified, p_a=r.p_a, reward_gap=r.gap or None, n_boot=n_boot, seed=seed)
        beside = table2_vs_paper(
            t,
            name,
            also=r.skipped if also else (),
            paper_reference=paper_reference,
            paper_only_models=paper_only_models,
        )
        note = _paper_note(name, paper_reference)
        if note is not None:
            notes.append(note)
        beside = _paper_in_cell(beside)
        planted = planted_table2(r, n_boot=n_boot, seed=seed)
        if planted is not None:  # simulated: what the planted population does
            if _PLANTED_NOTE not in notes:
                notes.append(_PLANTED_NOTE)
            beside["planted: the population's P(chosen ≻ rejected)"] = [
                f"{v:.3f}" if v == v else "n/a" for v in planted["population"].reindex(beside.index)
            ]
        frames[name] = beside
    table = pd.concat(frames, names=["data set", "subset"]).fillna("n/a")
    return table, raw, notes
