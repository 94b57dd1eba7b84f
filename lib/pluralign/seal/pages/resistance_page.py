"""The SEAL alignment-resistance page (``notebooks/seal_resistance.py``): the four alignment regimes (Table 1), the
LM-labeller's preference γ and its rules (App. D.4, Fig. 4), the regime t-tests of θ (Fig. 4 / 17), reward gaps of
several RMs (App. D.1, Fig. 7), topics (App. E.1, Fig. 15), resistance on other preference sets (§ 3), and which
features predict misalignment (Eq. 3, Table 7, Fig. 3 right)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.data import spec
from pluralign.presentation import MISSING, column_decimals, fmt_fixed, fmt_number, intervals, present_markdown, signed
from pluralign.report import Result
from pluralign.seal import plots
from pluralign.seal import regimes as seal_regimes
from pluralign.seal import resistance as seal_resistance
from pluralign.seal.compare import (
    entries_on_paper_rows,
    entry_estimates,
    mapping_note,
    no_finite_estimate,
    separated,
    separation_note,
)
from pluralign.seal.design import labeller_gamma
from pluralign.seal.display import display_table
from pluralign.seal.facts import paper_rows, paper_value
from pluralign.seal.label_failures import NO_LABELS, require_labels
from pluralign.seal.other_data import design_sentence, designed_rows
from pluralign.seal.pairs import entry_texts
from pluralign.seal.preference_sets import resistance_by_dataset
from pluralign.seal.resistance import (
    LABELLER_RULES,
    REGIMES,
    RULE_NAMES,
    aligned,
    alignment_score,
    misalignment_regression,
    regime_prevalence,
)
from pluralign.seal.reward_gaps import gap_scores, paper_gap_rows, reward_gap_summary, reward_gaps
from pluralign.seal.study import Study
from pluralign.seal.taxonomy import DISCRIMINATION_TYPES, TOPICS, TOPICS_ADDED
from pluralign.seal.topics import label_distribution, rule_topics
from pluralign.seal.verdicts import NOT_CONVERGED, verdict_counts, verdict_legend, verdict_sentence

__all__ = [
    "regime_table",
    "labeller_rules",
    "labeller_agreement",
    "decisive_pairs",
    "shifts_by_regime",
    "regime_shift_tests",
    "reward_gap_distributions",
    "topic_distribution",
    "resistance_on_other_sets",
    "misalignment",
]

#: SEAL's public analysis notebook, where the paper's regime sizes and γ counts come from
CODE = "SEAL analysis code (main_results.ipynb)"


def _code_values() -> pd.Series:
    return paper_rows(CODE).set_index(["row", "column"])["value"]


@report.section(*(f"prev_{k}" for k in REGIMES), *(f"paper_prev_{k}" for k in REGIMES))
def regime_table(study: Study) -> Result:
    """Prevalence of the four alignment regimes (Table 1) beside the paper's and SEAL's analysis code's
    shares; values ``prev_<regime>``."""
    prev = regime_prevalence(study.regimes)
    t1, code = paper_rows("Table 1"), paper_rows(CODE)
    table = pd.DataFrame(
        {
            "this run": prev,
            "paper (Table 1)": t1[t1["column"] == "prevalence"].set_index("row")["value"],
            "SEAL analysis code": code[code["column"] == "share of pairs"].set_index("row")["value"],
        }
    )
    fig = plots.bars(table, ylabel="share of pairs")
    design = design_sentence(study.other_weights)
    note = (
        design + " A pair whose two replies differ in such a feature is rewarded one way by the pre-D RM and the "
        "other way by the post-D RM trained on D as well, so how many pairs became aligned or reversed on the demo "
        "follows from that design, not from anything the paper measures."
        if design
        else ""
    )
    return Result(
        table=table.round(4),
        figure=fig,
        caption="Share of pairs in each alignment regime: this run, the paper's Table 1 and SEAL's analysis code.",
        note=note,
        paper=t1,
        values={
            **{f"prev_{k}": float(v) for k, v in prev.items()},
            **{f"paper_prev_{k}": float(v) for k, v in table["paper (Table 1)"].items()},
        },
    )


def _gamma_counts(gamma: np.ndarray) -> dict:
    n_c, n_r, n_i = (int(np.sum(gamma == v)) for v in ("c", "r", "i"))
    return {
        "γ = c (chosen)": n_c,
        "γ = r (rejected)": n_r,
        "γ = i": n_i,
        "agreement (c / (c + r))": round(n_c / (n_c + n_r), 4) if n_c + n_r else "—",
    }


@report.section("labeller_rule", "n_rule_differs")
def labeller_rules(study: Study) -> Result:
    """γ's counts under both of SEAL's rules (App. D.4): ``harmless_first`` (SEAL's code, whose label vector is
    [harmless, helpful]) and ``helpful_first`` (its text and Table 2), beside the counts SEAL's analysis code
    reports (harmless first); the page's rule (``labeller_rule``) is marked. Values ``labeller_rule``,
    ``n_rule_differs`` (pairs whose γ the rule changes)."""
    F = study.features
    g = {rule: labeller_gamma(F, priority=prio) for rule, prio in LABELLER_RULES.items()}
    known = np.array([x is not None for x in g["harmless_first"]])
    code = _code_values()
    rows = {rule: _gamma_counts(gam[known]) for rule, gam in g.items()}
    c, r = code[("γ = c", "pairs")], code[("γ = r", "pairs")]
    rows["SEAL's analysis code (hh-rlhf, harmless first)"] = {
        "γ = c (chosen)": int(c),
        "γ = r (rejected)": int(r),
        "γ = i": int(code[("γ = i", "pairs")]),
        "agreement (c / (c + r))": round(c / (c + r), 4),
    }
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("rule")
    for col in ("γ = c (chosen)", "γ = r (rejected)", "γ = i"):
        table[col] = table[col].astype(int)
    rule = study.settings.labeller_rule
    table.index = [
        RULE_NAMES[i].removesuffix(")") + "; this page)" if i == rule else RULE_NAMES.get(i, i) for i in table.index
    ]
    differs = int(np.sum(g["harmless_first"][known] != g["helpful_first"][known]))
    note = (
        f"The two rules differ only where one entry is helpful but harmful and the other harmless but unhelpful: "
        f"{differs} of {int(known.sum())} pairs here."
    )
    f = study.label_failures
    if f is not None and f.failed:
        lacking = (
            f"{len(known) - int(known.sum())} of {len(known)} pairs lack a target label on an entry and have no γ."
        )
        note = report.warning(f"{f.text}: {lacking}") + "\n\n" + note
    return Result(
        table=table,
        note=note,
        paper=code.reset_index(),
        values={"labeller_rule": RULE_NAMES[rule], "n_rule_differs": differs},
    )


def _agreement(study: Study) -> pd.DataFrame:
    """The LM-labeller's agreement with the human label per regime, on the pairs that have a γ."""
    known = np.array([g is not None for g in study.gamma])
    return seal_resistance.labeller_agreement(study.regimes[known], study.gamma[known])


@report.section(
    "n_c",
    "n_r",
    "share_i",
    "share_i_text",
    "paper_share_i",
    "paper_lm_decisive",
    "paper_pre_decisive",
    "paper_post_decisive",
    "paper_n_decisive",
    "lm_decisive_here",
)
def labeller_agreement(study: Study) -> Result:
    """The LM-labeller's agreement with the human label per regime (Table 1, last row; Fig. 4) beside the paper's;
    values for the prose (``n_c``, ``n_r``, ``share_i`` — as text ``share_i_text``, "—" with the count of failed
    labels when no pair has a γ — and the paper's and SEAL code's)."""
    agree = _agreement(study)
    t1 = paper_rows("Table 1")
    agree["paper agreement (Table 1)"] = t1[t1["column"] == "LM-labeller agreement"].set_index("row")["value"]
    g_all = agree.loc["all"]
    n_dec = int(paper_value(CODE, "γ = c", "pairs") + paper_value(CODE, "γ = r", "pairs"))
    share_i = float(g_all["n_i"] / g_all["n"]) if g_all["n"] else float("nan")
    f = study.label_failures
    values = {
        "n_c": int(g_all["n_c"]),
        "n_r": int(g_all["n_r"]),
        "share_i": share_i,
        "paper_share_i": paper_value("§3", "γ = i", "share of pairs"),
        "paper_lm_decisive": paper_value(CODE, "γ ≠ i", "LM-labeller agreement with the human label"),
        "paper_pre_decisive": paper_value(CODE, "γ ≠ i", "pre-D RM a₊"),
        "paper_post_decisive": paper_value(CODE, "γ ≠ i", "post-D RM a₊"),
        "paper_n_decisive": f"{n_dec:,}",
        "lm_decisive_here": float(g_all["agreement"]) if g_all["n_c"] + g_all["n_r"] else float("nan"),
        "share_i_text": (
            f"{share_i:.3f}" if g_all["n"] else "an undefined share (no pair has a γ" + (f": {f.text})" if f else ")")
        ),
    }
    shown = agree.round(3).rename(
        columns={"n": "pairs (n)", "n_c": "γ = c (n)", "n_r": "γ = r (n)", "n_i": "γ = i (n)"}
    )
    return Result(table=shown, paper=t1, values=values, data={"agreement": agree})


def decisive_pairs(study: Study) -> Result:
    """On the pairs where the LM-labeller is decisive (γ ≠ i): their number, its agreement with the human
    label, and the pre-D and post-D RMs' alignment a₊, beside SEAL's analysis code's — one column per quantity, so
    that the count reads as an integer and the shares with the four decimals the page quotes them with."""
    gamma = study.gamma
    code = _code_values()
    decisive = np.array([g is not None for g in gamma]) & np.array([g in ("c", "r") for g in gamma])
    n_code = int(code[("γ = c", "pairs")] + code[("γ = r", "pairs")])
    shares = {
        "LM-labeller agreement with the human label": code[("γ ≠ i", "LM-labeller agreement with the human label")],
        "pre-D RM a₊": code[("γ ≠ i", "pre-D RM a₊")],
        "post-D RM a₊": code[("γ ≠ i", "post-D RM a₊")],
    }
    ours = dict.fromkeys(shares, float("nan"))
    if decisive.any():
        (pc, pr), (qc, qr) = study.rewards_of("pre"), study.rewards_of("post")
        ours = {
            "LM-labeller agreement with the human label": float(_agreement(study).loc["all", "agreement"]),
            "pre-D RM a₊": alignment_score(pc[decisive], pr[decisive]),
            "post-D RM a₊": alignment_score(qc[decisive], qr[decisive]),
        }
    table = pd.DataFrame(
        {
            "decisive pairs γ ≠ i (n)": [int(decisive.sum()), n_code],
            **{k: [fmt_fixed(ours[k], 4), fmt_fixed(shares[k], 4)] for k in shares},
        },
        index=pd.Index(["this run", "SEAL analysis code (hh-rlhf)"], name=""),
    )
    return Result(table=table, data={"this run": ours, "SEAL": shares, "n": (int(decisive.sum()), n_code)})


def shifts_by_regime(study: Study) -> Result:
    """Reward shifts θ per regime and LM-labeller preference γ ∈ {c, r} (Fig. 4)."""
    frame = pd.DataFrame({"θ": study.theta, "regime": study.regimes, "γ": study.gamma})
    frame = frame[frame["γ"].isin(["c", "r"])]
    fig = plots.shifts_by_regime(frame, REGIMES) if len(frame) else None
    return Result(
        table=None,
        figure=fig,
        caption=(
            "Reward shifts θ (degrees, as the paper computes them) per alignment regime, for the pairs where the "
            "LM-labeller sides with the human label (γ = c, green) and against it (γ = r, pink), as in Fig. 4."
        ),
        note="" if len(frame) else "No pair has γ ∈ {c, r}: nothing to plot.",
    )


def _one_sample_columns(one: pd.DataFrame, suffix: str = "") -> dict:
    """A regime t-test table's mean θ with its 95% CI as one text, and its Bonferroni p-value, for display."""
    return {
        f"mean θ{suffix} [95% CI]": intervals(one["mean"], one["ci_low"], one["ci_high"]),
        f"p{suffix} (Bonferroni)": one["p_bonferroni"].to_numpy(),
    }


@report.section(
    "n_regime_tests", "n_regime_tests_sig", "n_regime_tests_sig_centred", "n_theta_missing", "n_welch_sig", "n_welch"
)
def regime_shift_tests(study: Study) -> Result:
    """t-tests of θ per alignment regime, on all its pairs and per LM-labeller preference γ (one-sample, H0: mean
    θ = 0), and γ = c against γ = r (Welch, in the note) — Fig. 4 / Fig. 17's groups
    (:func:`~pluralign.seal.regimes.regime_shift_tests`), on θ as the paper computes it and on rewards centred per
    model (:func:`~pluralign.seal.shifts.centred_reward_shift`); the regime sizes of SEAL's analysis code beside
    the pairs. The note states the measured offset between the two RMs, which moves the first and not the second."""
    gamma = study.gamma if study.F is not None else None
    t = seal_regimes.regime_shift_tests(study.theta, study.regimes, gamma)
    tc = seal_regimes.regime_shift_tests(study.theta_centred, study.regimes, gamma)
    one, onec = t.one_sample, tc.one_sample
    code = paper_rows(CODE)
    sizes = code[code["column"] == "pairs in the regime"].set_index("row")["value"]
    table = pd.DataFrame(
        {
            "pairs (n)": one["n"].astype(int).to_numpy(),
            "pairs in SEAL's code, hh-rlhf (n)": [
                int(sizes[r]) if g == "all" and r in sizes else None for r, g in one.index
            ],
            **_one_sample_columns(one),
            **_one_sample_columns(onec, " centred"),
        },
        index=one.index,
    )
    w = t.welch
    off = study.reward_offsets
    note = (
        f"θ as the paper computes it moves with the offset between the two RMs' rewards (post-D mean "
        f"{fmt_number(off.post)}, pre-D mean {fmt_number(off.pre)} over D's entries); θ centred is "
        "the same angle on rewards centred per model, which Bradley–Terry training leaves free of any constant."
    )
    if len(w):
        welch = pd.DataFrame(
            {
                "pairs γ = c (n)": w["n_c"],
                "pairs γ = r (n)": w["n_r"],
                "mean θ, γ = c": w["mean_c"],
                "mean θ, γ = r": w["mean_r"],
                "difference (c − r)": w["difference"],
                "p (Bonferroni)": w["p_bonferroni"],
            }
        )
        note += (
            "\n\n**γ = c against γ = r within each regime** (Welch's t-test, Fig. 4's green against pink; θ as the "
            "paper computes it):\n\n" + present_markdown(welch)
        )
    values = {
        "n_regime_tests": len(one),
        "n_regime_tests_sig": len(one[(one["p_bonferroni"] < 0.05)]),
        "n_regime_tests_sig_centred": len(onec[(onec["p_bonferroni"] < 0.05)]),
        "n_theta_missing": t.n_missing,
        "n_welch_sig": int((w["p_bonferroni"] < 0.05).sum()) if len(w) else 0,
        "n_welch": len(w),
    }
    paper = code[code["column"] == "pairs in the regime"]
    return Result(table=table, note=signed(note), paper=paper, values=values, data={"tests": t, "centred": tc})


@report.section("gap_models", "post_gap_median", "post_gap_share_zero")
def reward_gap_distributions(study: Study) -> Result:
    """The reward gap r(t_i^c) − r(t_i^r) of several RMs on D (App. D.1, Fig. 7;
    :func:`~pluralign.seal.reward_gaps.reward_gap_summary`), beside the paper's a₊ (§ 2.2) and reward ranges
    (footnote 9) of its pre-D and post-D RMs. The RMs are the page's ``reward_gap_models`` (the ``paper`` profile
    lists Fig. 7's four OpenAssistant RMs), or this study's pre-D and post-D RMs plus, on planted features, the
    population's mean utility (the simulator's reference scorer)."""
    scores, note = gap_scores(study)
    summ = reward_gap_summary(scores)
    ours = summ.rename(columns={"share positive": "a₊", "pairs": "n"}).reset_index()
    ours["role"] = [next((v for v in ("pre-D RM", "post-D RM") if str(k).startswith(v)), "—") for k in ours["RM"]]
    paper = paper_gap_rows()
    table = report.beside_paper(ours[ours["role"] != "—"], paper, on=["role"])
    # a role the paper reports but this run did not score stays, named (nothing the paper reports disappears)
    table["RM (this run)"] = table["RM (this run)"].fillna(table["role"] + " (not scored in this run)")
    others = ours[ours["role"] == "—"].rename(columns={c: f"{c} (this run)" for c in ours.columns if c != "role"})
    table = pd.concat([table, others], ignore_index=True)
    table = table.set_index("RM (this run)").drop(columns="role").rename_axis("RM")
    # the 5-95 % range in one column ("−0.151 to 0.151"), so that the paper's columns and this run's fit the text
    lo, hi = table.pop("q05 (this run)"), table.pop("q95 (this run)")
    d = column_decimals(list(lo) + list(hi))
    table.insert(
        list(table.columns).index("a₊ (this run)"),
        "5–95 % (this run)",
        [MISSING if pd.isna(a) else f"{fmt_fixed(a, d)} to {fmt_fixed(b, d)}" for a, b in zip(lo, hi)],
    )
    post = summ.loc[next((k for k in summ.index if str(k).startswith("post-D RM")), summ.index[0])]
    return Result(
        table=table,
        figure=plots.reward_gap_figure(reward_gaps(scores)),
        caption=(
            "Distribution over the pairs of D of the reward gap r(chosen) − r(rejected) for each reward model "
            "(Fig. 7); the share right of the dashed line at 0 is the model's alignment score a₊."
        ),
        paper=paper,
        note="\n\n".join(note),
        values={
            "gap_models": len(scores),
            "post_gap_median": float(post["median"]),
            "post_gap_share_zero": float(post["share zero"]),
        },
    )


def _topic_labels(study: Study):
    """(topics, discrimination, who, notes) of :func:`topic_distribution`; :class:`~pluralign.report.NoEstimate`
    where no pair has the LM-labeller's topics on both entries."""
    if study.settings.topic_source == "rules":
        view = study.view
        topics = label_distribution(
            rule_topics(entry_texts(view, "chosen")), rule_topics(entry_texts(view, "rejected")), TOPICS + TOPICS_ADDED
        )
        who = "this project's keyword rules (an offline stand-in for the LM-labeller)"
        return (
            topics,
            None,
            who,
            [
                "The types of discrimination (Fig. 15 right) need the LM-labeller's topics (as on the paper "
                "profile); keyword rules cannot tell who a reply discriminates against."
            ],
        )
    F = study.features
    if F.labels_chosen is None or "topics" not in F.labels_chosen:
        raise ValueError("topic_distribution with topic_source 'llm' needs the LM-labeller's labels (features: llm)")
    lc, lr = F.labels_chosen, F.labels_rejected
    require_labels(study, usable=int((lc["topics"].notna() & lr["topics"].notna()).sum()))
    topics = label_distribution(lc["topics"], lr["topics"], TOPICS + TOPICS_ADDED)
    key = "last_response_is_discriminating_against"
    disc = label_distribution(lc[key], lr[key], DISCRIMINATION_TYPES)
    return (
        topics,
        disc,
        f"the LM-labeller {F.labeller}",
        ["**Types of discrimination** (Fig. 15 right):\n\n" + present_markdown(disc)],
    )


@report.section("top_topic", "top_topic_share", "no_topic_share")
def topic_distribution(study: Study) -> Result:
    """Topics (and types of discrimination) of D's entries (App. E.1, Fig. 15;
    :func:`~pluralign.seal.topics.label_distribution`), from the page's ``topic_source``: ``"llm"`` reads the
    LM-labeller's ``topics`` and ``last_response_is_discriminating_against`` (``features: llm``, the ``paper``
    profile); ``"rules"`` the offline keyword stand-in :func:`~pluralign.seal.topics.rule_topics` (topics only)."""
    topics, disc, who, notes = _topic_labels(study)
    topics.insert(
        0,
        "in the prompt's list",
        ["App. C.3" if t in TOPICS else "added (App. E.1)" if t in TOPICS_ADDED else "—" for t in topics.index],
    )
    shown = topics.drop(index="(none)")
    top = shown["share of entries"].idxmax()
    fig = plots.bars(
        shown[["chosen (n)", "rejected (n)"]],
        horizontal=True,
        invert=True,
        xlabel="entries with the topic",
        title="Fig. 15 (left): topic distribution",
    )
    return Result(
        table=topics,
        figure=fig,
        caption="Entries with each topic of the taxonomy prompt's list, chosen and rejected apart (Fig. 15 left).",
        note="\n\n".join([f"Topics from {who}.", *notes]),
        values={
            "top_topic": top,
            "top_topic_share": float(shown.loc[top, "share of entries"]),
            "no_topic_share": float(topics.loc["(none)", "share of entries"]),
        },
        data={"topics": topics, "discrimination": disc},
    )


@report.section("n_other_sets", "paper_a_minus_web_gpt", "paper_a_minus_summarize_from_feedback")
def resistance_on_other_sets(study: Study) -> Result:
    """Alignment resistance a₋ of the pre-D and post-D RMs on other preference sets (§ 3 "Future work": web-gpt
    49%, summarize from feedback 66%; :func:`~pluralign.seal.preference_sets.resistance_by_dataset`), beside the
    paper's: the page's ``other_preference_sets``, or the sets the study has (the pre-D RM's training data and D)."""
    given = study.settings.other_preference_sets
    sets = [spec.from_spec(s) for s in given] if given else [*study.other_parts, study.D]
    table = resistance_by_dataset(
        sets, {"pre-D RM": study.rms.pre, "post-D RM": study.rms.post}, scoring_input=study.scoring_input
    ).reset_index()
    p = paper_rows("§6")
    paper = pd.DataFrame(
        {"data set": p["row"].map(lambda r: {"web-gpt": "webgpt"}.get(r, r)), "a₋": p["value"].to_numpy()}
    )
    out = report.beside_paper(
        table.rename(columns={"a_minus": "a₋"}), paper, on=["data set"], suffixes=("", " (paper, RM not named)")
    )
    out["RM"] = out["RM"].fillna("—")
    out = out.rename(
        columns={
            "a_plus": "a₊",
            "a_minus_low": "a₋ 95% low",
            "a_minus_high": "a₋ 95% high",
            "misaligned": "misaligned (n)",
            "no chosen entry (dropped)": "dropped: no chosen entry (n)",
        }
    )
    out = out.set_index(["data set", "RM"]).sort_index()
    note = ""
    if not given:
        note = (
            "**This profile has neither set**: the table shows the same computation on the sets the study has "
            f"({', '.join(d.name for d in sets)}: the pre-D RM's training data and D); the paper profile "
            "lists the WebGPT comparisons and summarize-from-feedback."
        )
    shown = out.loc[out["pairs"].notna(), "a₋"].unstack("RM")
    fig = plots.bars(shown, ylabel="alignment resistance a₋", title="resistance per preference set")
    paper_a = {f"paper_a_minus_{r.replace('-', '_')}": f"{100 * v:.0f}%" for r, v in zip(p["row"], p["value"])}
    return Result(
        table=out,
        figure=fig,
        caption="Alignment resistance a₋ of the pre-D and post-D RMs on each preference set (§ 3).",
        paper=p,
        note=note,
        values={"n_other_sets": len(sets), **paper_a},
    )


@report.section("t7_base", "n_t7_separated", "t7_verdicts")
def misalignment(study: Study) -> Result:
    """Which chosen / rejected features predict the post-D RM's misalignment (Eq. 3, Table 7, Fig. 3 right), on
    Table 7's rows (:func:`~pluralign.seal.compare.on_paper_rows`): the same regression as a linear probability
    model (OLS on the 0/1 event; Table 7's scale, plotted) and as the logit of Eq. 3. A logit term with
    (quasi-)complete separation (:func:`~pluralign.seal.compare.separated`), or with a huge standard error in a
    fit that did not converge, has no finite estimate: it is shown as "did not converge (separation)", never as
    a number; features above the run's ``vif_threshold`` are dropped (footnote 6). Values ``t7_base`` (the
    misalignment rate), ``n_t7_separated``."""
    post = study.rewards_of("post")
    values = {"t7_base": float(np.mean(~aligned(*post))), "t7_verdicts": NO_LABELS.format("Table 7")}
    require_labels(study, values=values)
    F, vif = study.features, study.settings.vif_threshold
    args = (*post, F.chosen, F.rejected, F.regressors)
    t7 = misalignment_regression(*args, vif_threshold=vif)
    t7_lin = misalignment_regression(*args, model="linear", vif_threshold=vif)
    bad = no_finite_estimate(t7.table, t7.converged, separated(~aligned(*post), F.chosen, F.rejected, F.regressors))
    bad = {k for k in bad if np.isfinite(t7.table.loc[k, "estimate"])}
    lpm, logit = "LPM (OLS on 0/1, Table 7's scale)", "logit (Eq. 3 as written)"
    ours = pd.concat(
        [entry_estimates(t7_lin.table, lpm), entry_estimates(t7.table, logit, {k: NOT_CONVERGED for k in bad})],
        ignore_index=True,
    )
    designed = designed_rows(study.other_weights, F.regressors, ["chosen", "rejected"], column="mix_opposite")
    on_rows = {"source": study.source, "n": t7.n_obs, "variants": [lpm, logit], "designed": designed}
    table, long, paper7 = entries_on_paper_rows(ours, "Table 7", F.regressors, **on_rows, vif_threshold=vif)
    fig = plots.paper_rows_figure(
        long,
        variant=lpm,
        groups=["chosen", "rejected"],
        xlabel="ρ: change in the probability of misalignment (LPM, sign-aligned to SEAL's feature)",
        title="misalignment on features (LPM)",
    )
    note = "\n\n".join(
        x for x in (mapping_note(long, study.source), verdict_legend(long), separation_note(bad, t7.converged)) if x
    )
    return Result(
        table=display_table(table),
        figure=fig,
        caption=(
            "This run's coefficients of Eq. 3 as a linear probability model (Table 7's scale), one row per SEAL "
            "feature (sign-aligned, as in the table), on the chosen and the rejected entry: ±2 SE bars; a filled "
            "marker where the Bonferroni-corrected 95% CI excludes 0 (the table's verdict), hollow otherwise."
        ),
        paper=paper7,
        note=note,
        data={"logit": t7, "linear": t7_lin, "long": long, "separated": sorted(bad)},
        values={
            "t7_base": t7.base_rate,
            "n_t7_separated": len(bad),
            "t7_verdicts": verdict_sentence(verdict_counts(long, lpm), "Table 7 (LPM)"),
        },
    )
