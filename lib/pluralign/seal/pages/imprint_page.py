"""The SEAL feature-imprint page (``notebooks/seal_imprint.py``): how the features were made and which SEAL feature
each plays, label stability (App. D.5, Fig. 11), feature prevalence (Table 4, Fig. 14), the imprints of the pre-D
and post-D RMs (Eq. 1, Table 5, Fig. 3 left), the features the VIF filter dropped, the recovery of the demo's planted
weights, and the reward shift regressed on features (Eq. 2, Table 6, Fig. 3 centre)."""

from __future__ import annotations

import pandas as pd

from pluralign import presentation, report
from pluralign.report import Result
from pluralign.seal import plots
from pluralign.seal.compare import (
    VARIANT_NAMES,
    bonferroni_tests,
    entries_on_paper_rows,
    entry_estimates,
    mapping_note,
    mapping_table,
    on_paper_rows,
    paper_entries,
    prevalence_on_paper_rows,
)
from pluralign.seal.design import feature_prevalence, stability_check
from pluralign.seal.display import display_name, display_table, display_text
from pluralign.seal.facts import PAPER_SETUP, paper_table, paper_value
from pluralign.seal.imprint import vif_rule
from pluralign.seal.label_failures import NO_LABELS, require_labels
from pluralign.seal.other_data import design_sentence, designed_rows
from pluralign.seal.pairs import entry_texts
from pluralign.seal.planted import featurizer_agreement, planted_taxonomy, recovery_reading, weight_recovery
from pluralign.seal.rule_features import rule_featurize
from pluralign.seal.shifts import reward_shift_regression
from pluralign.seal.study import Study
from pluralign.seal.verdicts import verdict_counts, verdict_legend, verdict_sentence

__all__ = [
    "featurizer_check",
    "feature_mapping",
    "label_stability",
    "prevalence",
    "imprints",
    "vif_dropped",
    "planted_recovery",
    "shift_regression",
]


def _labelled_check(study: Study) -> Result:
    """:func:`featurizer_check` for features that were not planted: the feature source, and for an LM-labeller the
    entries it could not label."""
    F = study.features
    table = pd.DataFrame({"feature source": [F.note], "entries labelled": [2 * len(study.view)]})
    f = study.label_failures
    if f is None:
        return Result(table=table)
    table["entries without a valid label"] = f.failed
    table["pairs labelled on both entries"] = f.pairs
    note = (
        f"{f.text}; {f.pairs} of {f.n_pairs} pairs have every feature labelled on both entries, and only those "
        "enter the regressions (Eq. 1-3)."
    )
    if f.failed:
        left_out = " Sections with no such pair have no estimate and are left out of this page."
        note = report.warning(note + (left_out if not f.pairs else ""))
    return Result(table=table, note=note, values={"n_label_failed": f.failed, "n_label_entries": f.entries})


def featurizer_check(study: Study) -> Result:
    """How the features were made. On planted features (the demo) the rule-based featurizer is checked against the
    planted labels feature by feature, on chosen and rejected entries together
    (:func:`~pluralign.seal.planted.featurizer_agreement`; the label-stability check of App. D.5 with the planted
    labels as the second labeller); elsewhere the feature source is named and failed LM labels counted."""
    F = study.features
    if F.source != "planted":
        return _labelled_check(study)
    rules = pd.concat([rule_featurize(entry_texts(study.view, e)) for e in ("chosen", "rejected")], ignore_index=True)
    planted = pd.concat([planted_taxonomy(F.chosen), planted_taxonomy(F.rejected)], ignore_index=True)
    a = featurizer_agreement(rules, planted)
    share = paper_value("App. D.5", "re-labelled pairs", "share of D")
    note = (
        f"The rule-based featurizer agrees with the planted refusal label on "
        f"{a.loc['last_response_is_refusal', 'agreement']:.3f} of the entries, with the planted "
        f"(enthusiastic) sentiment on {a.loc['last_response_sentiment', 'agreement']:.3f} and with list "
        f"formatting on {a.loc['response_has_list', 'agreement']:.3f}; its word count separates verbose "
        f"from short entries with AUROC {a.loc['response_words ~ verbosity', 'auroc']:.3f}. It has no "
        f"helpfulness label at all (its row is empty): that judgement needs the LM-labeller. The paper's labels "
        f"came from {PAPER_SETUP['models']['labeller']}, cross-checked on {share:.0%} "
        f"of the entries against {' and '.join(PAPER_SETUP['models']['stability_labellers'])}."
    )
    return Result(table=a.round(3).rename(index=display_text), note=note, data={"agreement": a})


@report.section("n_mapped", "n_unmapped")
def feature_mapping(study: Study) -> Result:
    """Which of this run's features plays which SEAL feature (App. C.3 taxonomy), and with what sign
    (:data:`~pluralign.seal.design.PAPER_FEATURES`, :func:`~pluralign.seal.design.paper_feature_map`): the
    mapping every comparison with SEAL's Tables 4-8 uses."""
    F = study.features
    table = mapping_table(F.regressors, study.source)
    n_map = int((table.index != "—").sum())
    identity = all(table.index[i] == table.iloc[i, 0] for i in range(len(table)) if table.index[i] != "—")
    note = (
        f"{n_map} of this run's {len(table)} features play a SEAL feature; the others have none (why: last "
        "column), so their rows in the comparisons below have no paper value, and SEAL's features that no "
        "feature here plays have no estimate of this run. A sign of −1 means the feature is the opposite of "
        "SEAL's (a harmful response is one that is not harmless): this run's coefficient is multiplied by −1 "
        "before it is set beside the paper's."
    )
    if identity:
        note = (
            f"This run's features carry SEAL's names ({n_map} of {len(table)}); the mapping is the identity. "
            "Features outside SEAL's taxonomy have no paper value."
        )
    shown = table.rename(index=display_text)
    shown[shown.columns[0]] = [display_text(x) for x in shown.iloc[:, 0]]
    shown["why"] = [display_text(x) for x in shown["why"]]
    return Result(table=shown, note=note, values={"n_mapped": n_map, "n_unmapped": len(table) - n_map})


def label_stability(study: Study) -> Result:
    """Label stability across LM-labellers (App. D.5, Fig. 11; :func:`~pluralign.seal.design.stability_check`)
    when the page names ``stability_labellers``; otherwise why it is not run."""
    s = study.settings
    if not s.stability_labellers:
        source = study.F.source if study.F is not None else None
        other = {
            "planted": "on the demo the rule-based featurizer's agreement with the planted labels above plays "
            "that role.",
            "rules": "this profile's features come from the rule-based featurizer, a single deterministic labeller.",
        }.get(source, "this page names no labeller to compare with.")
        return Result(
            table=None,
            skipped=(
                "label stability needs instruction-tuned LM-labellers behind an endpoint (the paper profile names "
                f"{' and '.join(PAPER_SETUP['models']['stability_labellers'])}); {other}"
            ),
        )
    st = stability_check(
        study.view,
        study.F,
        s.stability_labellers,
        share=s.stability_share,
        seed=study.seed,
        temperature=s.labeller_temperature,
    )
    agree, k = st["agreement"], st["k"]
    fig = plots.bars(
        agree.rename(index=display_text),
        horizontal=True,
        xlim=(0, 1),
        size=(7, 0.35 * len(agree) + 1.2),
        xlabel=f"share of entries with the same label ({st['what']})",
        title=f"label stability on {k} pairs ({2 * k} entries; Fig. 11)",
    )
    failed = "; ".join(f"{nm}: {n} of {2 * k}" for nm, n in st["n_failed"].items())
    note = (
        "Entries a labeller could not label (no answer that parses as JSON and fits the schema) are "
        f"left out of its agreement (`n`): {failed}."
    )
    return Result(
        table=st["stability"].round(3).rename(index=display_text),
        figure=fig,
        caption=f"Per feature, the share of the {2 * k} re-labelled entries on which the labellers agree (Fig. 11).",
        data=st,
        note=note,
    )


def prevalence(study: Study) -> Result:
    """Share of chosen and rejected entries with each feature (Table 4, Fig. 14), on the paper's rows
    (:func:`~pluralign.seal.compare.prevalence_on_paper_rows`: a feature played with sign −1 enters as its
    complement, 1 − share)."""
    F = study.features
    prev = feature_prevalence(F.chosen, F.rejected)
    paper4 = paper_table("Table 4")
    table, long = prevalence_on_paper_rows(prev, paper4, F.regressors, source=study.source)
    fig = plots.bars(
        prev[["chosen", "rejected"]].rename(index=display_text),
        horizontal=True,
        invert=True,
        xlabel="share of entries with the feature (sentiment: mean of −1/0/1)",
    )
    note = mapping_note(long.assign(paper=long["paper_chosen"]), study.source, flip="as 1 − its share")
    if F.source == "planted":
        note += " The simulator's sentiment is the share of enthusiastic entries (it plants no negative tone)."
    return Result(
        table=display_table(table),
        figure=fig,
        caption="Share of the chosen and of the rejected entries with each of this run's features (Table 4, Fig. 14).",
        paper=paper4,
        note=display_text(note),
        data={"long": long},
    )


def _imprint_estimates(study: Study) -> pd.DataFrame:
    """Both variants of Eq. 1 for both RMs as the long estimates of :func:`~pluralign.seal.compare.on_paper_rows`."""
    im, regs = study.imprint, list(study.features.regressors)
    frames = []
    for key, fits in (("seal_code", im["seal_code"]), ("fixed_effects", im)):
        for k, group in (("pre", "pre-D"), ("post", "post-D")):
            t = fits[k].table.reindex(regs)
            frames.append(
                pd.DataFrame(
                    {
                        "feature": regs,
                        "group": group,
                        "variant": VARIANT_NAMES[key],
                        "estimate": t["estimate"].to_numpy(),
                        "std_error": t["std_error"].to_numpy(),
                        "tests": bonferroni_tests(fits[k].table),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def harmless_sentence(long: pd.DataFrame, variant: str) -> str:
    """This run's imprint of harmlessness (SEAL's ``last_response_is_harmless``, sign-aligned) pre-D and post-D in
    words, beside the paper's change from −0.85 to 2.09; a sentence saying so where this run has no such feature."""
    d = long[(long["paper_feature"] == "last_response_is_harmless") & (long["variant"] == variant)]
    est = d.set_index("group")["estimate"] if len(d) else pd.Series(dtype=float)
    if not len(est) or est.isna().any():
        return "this run has no estimate of harmlessness's imprint to set beside it"
    pre, post = (float(est.get(g)) for g in ("pre-D", "post-D"))
    shown = presentation.fmt_number
    return f"this run's RMs reward a harmless entry by {shown(pre)} pre-D and {shown(post)} post-D"


def _rows_note(long: pd.DataFrame) -> str:
    """The imprint table's rows in a sentence that does not repeat the prevalence table's mapping note."""
    flipped = ", ".join(dict.fromkeys(display_name(f) for f in long.loc[long["sign"] < 0, "this_feature"]))
    return "Rows and mapping as in the feature prevalence table above" + (
        f"; this run's coefficient of a feature that plays a SEAL feature with the opposite sign ({flipped}) is "
        "multiplied by −1."
        if flipped
        else "."
    )


IMPRINT_CAPTION = (
    "This run's feature imprints β with pair fixed effects, one row per SEAL feature (this run's feature that plays "
    "it, sign-aligned, as in the table), pre-D and post-D RM: ±2 SE bars; a filled marker where the "
    "Bonferroni-corrected 95% CI excludes 0 (the table's verdict), hollow otherwise."
)


def _table5_values(p5, vif_threshold: float) -> dict:
    """What the imprint page's prose quotes of the paper's Table 5 (harmlessness's imprints before and after, its
    rows, the features SEAL's VIF screen dropped) and the VIF rule this run applies."""
    return {
        "paper_harmless_pre": float(p5.loc["last_response_is_harmless", "pre-D"]),
        "paper_harmless_post": float(p5.loc["last_response_is_harmless", "post-D"]),
        "paper_n_t5": len(p5),
        "paper_vif_dropped": " and ".join(display_name(f) for f in PAPER_SETUP["vif_dropped"]),
        "vif_rule": vif_rule(vif_threshold),
    }


@report.section(
    "paper_harmless_pre",
    "paper_harmless_post",
    "paper_n_t5",
    "paper_vif_dropped",
    "vif_rule",
    "n_imprint_obs",
    "n_imprint_missing",
    "n_t5_compared",
    "t5_verdicts",
    "harmless_sentence",
)
def imprints(study: Study) -> Result:
    """Imprints of the pre-D and post-D RMs (Eq. 1, Table 5, Fig. 3 left) in both variants, beside the paper's
    Table 5, on the paper's rows (:func:`~pluralign.seal.compare.on_paper_rows`: each SEAL feature with the
    estimate of the feature of this run that plays it, sign-aligned, and a verdict from its 95% CI): "SEAL's
    code: OLS, no FE" (plain OLS, classical SEs, VIF with pair dummies; how Table 5 was computed) and "pair fixed
    effects (this project)" (Eq. 1 as written, SEs clustered by pair; plotted); both with the run's VIF filter."""
    p5 = paper_table("Table 5")
    paper_values = _table5_values(p5, study.settings.vif_threshold)
    require_labels(
        study,
        values={
            **paper_values,
            "n_imprint_obs": 0,
            "n_t5_compared": 0,
            "n_imprint_missing": len(study.view),
            "t5_verdicts": NO_LABELS.format("Table 5"),
            "harmless_sentence": "this run has no estimate of harmlessness's imprint to set beside it",
        },
    )
    im, F = study.imprint, study.features
    paper5 = paper_entries("Table 5", groups=["pre-D", "post-D"])
    w = study.other_weights
    designed = designed_rows(w, F.regressors, ["pre-D"]) + designed_rows(
        w, F.regressors, ["post-D"], column="mix_opposite"
    )
    table, long = on_paper_rows(
        _imprint_estimates(study),
        paper5,
        F.regressors,
        paper_order=list(p5.index),
        groups=["pre-D", "post-D"],
        variants=[VARIANT_NAMES["seal_code"], VARIANT_NAMES["fixed_effects"]],
        source=study.source,
        n=im["post"].n_obs,
        group_name="RM",
        designed=designed,
        vif_threshold=study.settings.vif_threshold,
    )
    fe = VARIANT_NAMES["fixed_effects"]
    fig = plots.paper_rows_figure(
        long,
        variant=fe,
        groups=["pre-D", "post-D"],
        xlabel="feature imprint β (reward points, sign-aligned to SEAL's feature)",
        title="feature imprints (pair fixed effects)",
    )
    compared = long.loc[long["estimate"].notna() & long["paper"].notna(), "paper_feature"]
    counts = verdict_counts(long, fe)
    values = {
        **paper_values,
        "n_imprint_obs": im["post"].n_obs,
        "n_imprint_missing": im["table"].n_pairs_dropped_missing,
        "n_t5_compared": int(compared.nunique()),
        "t5_verdicts": verdict_sentence(counts, "Table 5 (pair fixed effects)"),
        "harmless_sentence": harmless_sentence(long, fe),
    }
    note = "\n\n".join(x for x in (_rows_note(long), verdict_legend(long), design_sentence(w)) if x)
    return Result(
        table=display_table(table),
        figure=fig,
        caption=IMPRINT_CAPTION,
        paper=paper5,
        note=note,
        values=values,
        data={"fixed_effects": {k: im[k] for k in ("pre", "post")}, "seal_code": im["seal_code"], "long": long},
    )


@report.section()
def vif_dropped(study: Study) -> Result:
    """The features each imprint regression dropped (the VIF filter of footnote 6 at the run's ``vif_threshold``, or
    constant), per variant: SEAL's code's VIF has the pair dummies in its regressions, this project's fixed-effects
    fit the features alone."""
    require_labels(study)
    im = study.imprint
    rows = {
        f"{VARIANT_NAMES[key]} · {k}-D": ", ".join(display_name(f) for f in fits[k].dropped_vif) or "none"
        for key, fits in (("seal_code", im["seal_code"]), ("fixed_effects", im))
        for k in ("pre", "post")
    }
    return Result(table=pd.DataFrame({f"dropped ({vif_rule(study.settings.vif_threshold)} or constant)": rows}))


def recovery_summary(parts: dict) -> str:
    """The planted-weight check of the trained RMs in a few words for the page's findings, from the same tables as
    :func:`~pluralign.seal.planted.recovery_reading`: signs right or not, and how many rescaled weights fall outside
    their imprint's 95% interval."""
    rows = pd.concat([v.table for v in parts.values()])
    n, inv = len(rows), int((rows["same_sign"] == 0).sum())
    out = int((~rows["covered"].astype(bool)).sum())
    signs = "every sign right" if not inv else f"{inv} of {n} signs inverted"
    return f"{signs}, {out} of {n} rescaled weights outside their 95% interval" + (
        " (misses in scale)" if out and not inv else ""
    )


@report.section("recovery_summary")
def planted_recovery(study: Study) -> Result:
    """Recovery of the simulator's planted population weights (:func:`~pluralign.seal.planted.weight_recovery`):
    the method on the population's mean utility, and the trained RMs against the weights of what they were trained
    on. Only on planted features (the demo); elsewhere skipped."""
    if study.F is None or study.F.source != "planted":
        return Result(
            table=None,
            skipped="its data carry no planted weights to compare with.",
            values={"recovery_summary": "not run: this profile's data carry no planted weights"},
        )
    wr = weight_recovery(study, {k: study.imprint[k] for k in ("pre", "post")})
    text = [
        f"**The method**, an imprint of the population's mean utility itself, gives back all "
        f"{len(wr['utility'].table)} planted weights (largest error {wr['utility_error']:.1e})."
    ]
    for k, rec in wr["parts"].items():
        v = rec.table
        which = "pre" if k.startswith("pre") else "post"
        cov = [display_name(f) for f in v.index[v["covered"]]]
        sign = [display_name(f) for f in v.index[v["same_sign"] == 1]]
        data = "the other data" if which == "pre" else "the other data plus D"
        text.append(
            f"**The {k.split(' vs ')[0]}** (this project's small reward model trained on "
            f"{wr['n_train'][which]} pairs of {data}): "
            f"{int(v['covered'].sum())} of {len(v)} rescaled weights fall inside the imprint's 95% interval "
            f"({', '.join(cov) or 'none'}) and {int((v['same_sign'] == 1).sum())} of "
            f"{int(v['same_sign'].notna().sum())} signs agree ({', '.join(sign) or 'none'})."
        )
    text.append(recovery_reading(wr["parts"]))
    by_feature = wr["table"].rename_axis(["check", "feature"]).rename(index=display_name, level="feature")
    by_feature.insert(
        0, "estimate [95% CI]", presentation.intervals(*(by_feature[c] for c in ("estimate", "ci_low", "ci_high")))
    )
    by_feature = by_feature.drop(columns=["estimate", "ci_low", "ci_high"])
    text.append("Feature by feature:\n\n" + presentation.present_markdown(by_feature))
    return Result(
        table=wr["summary"].round(3),
        note="\n\n".join(text),
        data=wr,
        values={"recovery_summary": recovery_summary(wr["parts"])},
    )


@report.section("t6_r2", "t6_verdicts")
def shift_regression(study: Study) -> Result:
    """The reward shift θ regressed on the chosen and rejected entries' features (Eq. 2, Table 6, Fig. 3
    centre), on Table 6's rows (:func:`~pluralign.seal.compare.on_paper_rows`), θ as the paper computes it, features
    above the run's ``vif_threshold`` dropped (footnote 6); rows of features whose sign the demo's other data sets by
    design read "set by simulator"."""
    require_labels(study, values={"t6_verdicts": NO_LABELS.format("Table 6")})
    F = study.features
    vif = study.settings.vif_threshold
    t6 = reward_shift_regression(study.theta, F.chosen, F.rejected, F.regressors, vif_threshold=vif)
    designed = designed_rows(study.other_weights, F.regressors, ["chosen", "rejected"])
    table, long, paper6 = entries_on_paper_rows(
        entry_estimates(t6.table),
        "Table 6",
        F.regressors,
        source=study.source,
        n=t6.n_obs,
        designed=designed,
        vif_threshold=vif,
    )
    fig = plots.paper_rows_figure(
        long,
        groups=["chosen", "rejected"],
        xlabel="effect on θ (degrees, sign-aligned to SEAL's feature)",
        title="reward shift on features",
    )
    t5 = imprints(study).data.get("long")
    explained = set(t5["verdict"]) if t5 is not None else set()
    rows = "Rows, mapping and signs as in the imprint table above, on the chosen and the rejected entry."
    note = "\n\n".join(x for x in (rows, verdict_legend(long, explained)) if x)
    return Result(
        table=display_table(table),
        figure=fig,
        caption=(
            "This run's coefficients of Eq. 2 (θ in degrees, as the paper computes it), one row per SEAL feature "
            "(sign-aligned, as in the table), on the chosen and the rejected entry: ±2 SE bars; a filled marker "
            "where the Bonferroni-corrected 95% CI excludes 0, hollow otherwise."
        ),
        paper=paper6,
        data={"fit": t6, "long": long},
        note=note,
        values={"t6_r2": t6.r2, "t6_verdicts": verdict_sentence(verdict_counts(long), "Table 6")},
    )
