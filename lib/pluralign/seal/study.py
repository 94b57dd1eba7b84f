"""The SEAL study every Part II page starts from: :func:`setup` builds a :class:`Study` from a page's
parameters (the study design of :mod:`pluralign.seal.design`: D, the pre-D and post-D reward models and
their rewards, the entries' features, and the page's settings), and each :class:`Study` method returns the
:class:`~pluralign.report.Result` of one section of a page (Definition 1, Eq. 1-4, Tables 1, 3-8, Fig. 2-5,
9, 11, 12, 14 of SEAL)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pluralign.seal.design import (
    DEMO_STUDY,
    AlignmentModels,
    EntryFeatures,
    alignment_models,
    alignment_rewards,
    chosen_rejected,
    combine,
    entry_features,
    entry_texts,
    feature_prevalence,
    featurizer_agreement,
    labeller_gamma,
    planted_taxonomy,
    stability_check,
    study_stand_ins,
    weight_recovery,
)

__all__ = ["Study", "RewriteRun", "setup", "PAGE_STAND_INS", "LABELLER_RULES"]

#: The LM-labeller's preference rule γ (App. D.4) by name: which target feature decides first
#: (:func:`~pluralign.seal.resistance.labeller_preference`'s ``priority``). SEAL's code decides harmlessness first
#: (its label vector is [harmless, helpful]); its text and Table 2 decide helpfulness first.
LABELLER_RULES = {"harmless_first": "harmless", "helpful_first": "helpful"}

#: How the pages name the regression variants (Eq. 1 / Table 5, Eq. 4 / Table 8).
VARIANT_NAMES = {
    "linear": "LPM: OLS on 0/1, SEs clustered by pair (SEAL's code)",
    "logit": "logit (Eq. 4 as written)",
    "seal_code": "SEAL's code: OLS, no FE",
    "fixed_effects": "pair fixed effects (this project)",
}

#: Offline stand-ins that belong to one page (added to the design's own in :meth:`Study.profile_note`).
PAGE_STAND_INS = {
    ("imprint", "planted"): "the rule-based featurizer checked against the planted features",
    ("imprint", "rules"): "no helpfulness, honesty, coherence or eloquence labels (surface patterns only)",
    ("robustness", "simulator"): "the simulator's own rewrites with planted feature flips "
    "(seal.simulated_rewrites) in place of LM rewrites, and the planted flips "
    "in place of re-featurization",
}


def _table_md(frame: pd.DataFrame, digits: int = 3) -> str:
    """A frame as a Markdown table for a Result's note (a multi-level index as leading columns), with the book's
    presentation conventions (:func:`pluralign.report.present_markdown`)."""
    from pluralign.report import present_markdown

    return present_markdown(frame)


def _dashes(frame: pd.DataFrame, ints=()) -> pd.DataFrame:
    """A frame for display: the ``ints`` columns as integers, missing cells as "—" (the page says why)."""
    out = frame.astype(object).where(frame.notna(), "—")
    for c in ints:
        if c in out:
            out[c] = pd.Series(["—" if pd.isna(v) else int(v) for v in frame[c]], index=out.index, dtype=object)
    return out


@dataclass
class RewriteRun:
    """The § 2.3 rewriting of one study (:meth:`Study.rewriting`): ``idx`` the positions in the study's view
    of the pairs drawn, ``rewrites`` (:class:`~pluralign.seal.robustness.Rewrites`), and δ / δ̂ of the post-D
    RM on the kept pairs, original (``before``) and rewritten (``after``)."""

    idx: np.ndarray
    rewrites: Any
    before: np.ndarray
    after: np.ndarray


@dataclass
class Study:
    """The SEAL study design on one profile (§ 2, Fig. 1): the alignment data set ``D`` seen as chosen /
    rejected entries (``view``, the table of :func:`~pluralign.seal.design.chosen_rejected`, which dropped
    ``n_ties_dropped`` pairs whose majority label is a tie), the pre-D and post-D reward
    models (``rms``, :func:`~pluralign.seal.design.alignment_models`) and their rewards (``R``,
    :func:`~pluralign.seal.design.alignment_rewards`), the entries' features (``F``,
    :class:`~pluralign.seal.design.EntryFeatures`; None when a page needs none), the design's offline ``stand_ins`` and the
    page settings (``settings``: labellers, rewriting). Each method returns the
    :class:`~pluralign.report.Result` of one section of a Part II page; what several sections share (the
    imprints, the rewriting) is computed once per study."""

    D: Any
    other: Any
    other_parts: list
    view: pd.DataFrame
    rms: AlignmentModels
    R: pd.DataFrame
    F: EntryFeatures | None = None
    stand_ins: list = field(default_factory=list)
    n_ties_dropped: int = 0
    n_splits_dropped: int = 0
    profile: str | None = None
    seed: int = 0
    settings: dict = field(default_factory=dict)
    _memo: dict = field(default_factory=dict, repr=False)

    # ---- every page
    def profile_note(self, page: str | None = None):
        """The Markdown note naming the profile and its offline stand-ins (the design's, and the page's:
        ``page`` is ``"imprint"`` or ``"robustness"`` where the page adds its own)."""
        from pluralign import report

        key = self.F.source if page == "imprint" and self.F else self.settings.get("rewriter")
        extra = PAGE_STAND_INS.get((page, key if isinstance(key, str) else None))
        return report.profile_note(self.profile, stand_ins=self.stand_ins + ([extra] if extra else []))

    def _features(self) -> dict:
        if self.F is None:
            raise ValueError("this section needs entry features: setup(..., features='planted' | 'rules' | 'llm')")
        return self.F

    def _label_failures(self) -> dict | None:
        """Where the features come from an LM-labeller (``features: llm``, App. C.3): ``failed`` of ``entries``
        chosen and rejected entries without a valid label (every taxonomy key missing: no answer that parsed as
        JSON and passed the schema; :func:`~pluralign.seal.features.featurize` counts them in ``n_failed``),
        ``pairs`` with every regressor labelled on both entries (what Eq. 1-3 can use) and ``labeller``; None
        for planted or rule-based features (they cannot fail)."""
        F = self.F
        if F is None or F.source != "llm" or F.labels_chosen is None:
            return None
        miss = [F.labels_chosen.isna().all(axis=1).to_numpy(), F.labels_rejected.isna().all(axis=1).to_numpy()]
        full = (
            F.chosen[F.regressors].notna().all(axis=1).to_numpy()
            & F.rejected[F.regressors].notna().all(axis=1).to_numpy()
        )
        return {
            "failed": int(miss[0].sum() + miss[1].sum()),
            "entries": int(len(miss[0]) + len(miss[1])),
            "pairs": int(full.sum()),
            "n_pairs": int(len(full)),
            "labeller": F.labeller,
        }

    def _label_failure_text(self, f: dict | None = None) -> str:
        """ "N of M LM labels failed (why)", the count every section without an estimate states."""
        f = f or self._label_failures()
        return (
            f"{f['failed']} of {f['entries']} LM labels failed (the labeller {f['labeller']} gave no answer that "
            "parses as JSON and fits the App. C.3 schema)"
        )

    def _no_label_estimate(self, usable: int | None = None, values: dict | None = None):
        """A section with nothing to estimate from: no pair has ``usable`` labels (default: every regressor on both
        entries) because the LM-labeller's answers failed. Returns a skipped :class:`~pluralign.report.Result`
        ("no estimate: N of M LM labels failed …") that still glues ``values`` (the names the page's prose quotes;
        "—" where no value exists), or None when the section has labelled pairs to estimate from."""
        from pluralign.report import Result

        f = self._label_failures()
        if f is None or (f["pairs"] if usable is None else usable) > 0:
            return None
        return Result(
            table=None,
            values=dict(values or {}),
            skipped=f"no estimate: {self._label_failure_text(f)}, so no pair has labels on both entries.",
        )

    def _source(self) -> str:
        """How the pages name this run's features: the simulator's (demo) or a labeller's."""
        return "simulator feature" if self.F is not None and self.F.source == "planted" else "labelled feature"

    def _mapping_note(self, long: pd.DataFrame, flip: str = "times −1") -> str:
        """What a table of :func:`~pluralign.seal.compare.on_paper_rows` puts on the paper's rows, in words."""
        src = self._source()
        missing = list(dict.fromkeys(long.loc[long["this_feature"].isna(), "paper_feature"]))
        mapped = long[long["this_feature"].notna() & long["paper"].notna()]
        own = list(dict.fromkeys(long.loc[long["this_feature"].notna() & long["sign"].isna(), "this_feature"]))
        flipped = mapped.loc[mapped["sign"] < 0, "this_feature"].unique().tolist()
        text = (
            f"This run's estimate on a row is that of the {src} that plays the SEAL feature"
            + (f", {flip} where it plays it with the opposite sign ({', '.join(flipped)})" if flipped else "")
            + " (mapping: the Featurization section of the feature-imprint page)."
        )
        if missing:
            text += (
                f" — in this run's columns: no {src} plays that SEAL feature ({len(missing)} of the paper's rows: "
                f"{', '.join(missing)})."
            )
        if own:
            text += f" Last, this run's features that no SEAL feature plays ({', '.join(own)}): no paper value."
        return text

    def feature_mapping(self):
        """Which of this run's features plays which SEAL feature (App. C.3 taxonomy), and with what sign
        (:data:`~pluralign.seal.design.PAPER_FEATURES`, :func:`~pluralign.seal.design.paper_feature_map`): the
        mapping every comparison with SEAL's Tables 4-8 uses. Values ``n_mapped``, ``n_unmapped``."""
        from pluralign.report import Result
        from pluralign.seal.compare import mapping_table

        F = self._features()
        table = mapping_table(F.regressors, self._source())
        n_map = int((table.index != "—").sum())
        identity = all(table.index[i] == table.iloc[i, 0] for i in range(len(table)) if table.index[i] != "—")
        note = (
            f"{n_map} of this run's {len(table)} features play a SEAL feature; the others have none (why: last "
            "column), so their rows in the comparisons below have no paper value, and SEAL's features that no "
            "feature here plays show — in this run's cells. A sign of −1 means the feature is the opposite of "
            "SEAL's (a harmful response is one that is not harmless): this run's coefficient is multiplied by −1 "
            "before it is set beside the paper's."
        )
        if identity:
            note = (
                f"This run's features carry SEAL's names ({n_map} of {len(table)}); the mapping is the identity. "
                "Features outside SEAL's taxonomy have no paper value."
            )
        return Result(table=table, note=note, values={"n_mapped": n_map, "n_unmapped": len(table) - n_map})

    def _rewards(self, k: str) -> tuple[np.ndarray, np.ndarray]:
        return self.R[f"{k}_chosen"].to_numpy(float), self.R[f"{k}_rejected"].to_numpy(float)

    def theta(self) -> np.ndarray:
        """The reward shifts θ_i (Definition 1, signed; :func:`~pluralign.seal.shifts.reward_shift`)."""
        from pluralign.seal.shifts import reward_shift

        return reward_shift(self.R)

    def regimes(self) -> np.ndarray:
        """The alignment regime of every pair (Table 1; :func:`~pluralign.seal.resistance.alignment_regimes`)."""
        from pluralign.seal.resistance import alignment_regimes

        return alignment_regimes(self.R)

    # ---- rewards page
    def dataset(self):
        """The alignment data set and the two reward models beside the paper's (§ 2): pairs, pairs without a
        chosen entry (majority tie), rows the loader dropped as invalid (by reason, in the note), design."""
        from pluralign.report import Result
        from pluralign.seal.paper import DESIGN, paper_value

        filters = pd.DataFrame(self.D.meta.get("filters", []), columns=["filter", "field", "removed", "kept"])
        n_invalid = int(filters["removed"].sum())
        n_paper = int(paper_value("§2", DESIGN["dataset"], "pairs"))
        R, n_ties = self.R, self.n_ties_dropped
        table = pd.DataFrame(
            {
                "": [
                    "alignment data set D",
                    "rows dropped by the loader as invalid",
                    "pairs in D",
                    "pairs without a chosen entry (majority tie), dropped",
                    "pairs without a chosen entry (A and B votes even: no majority), dropped",
                    "pairs analysed",
                    "design",
                    "pre-D training pairs",
                    "post-D training pairs",
                ],
                "This run": [
                    self.D.name,
                    n_invalid,
                    len(self.D),
                    n_ties,
                    self.n_splits_dropped,
                    len(R),
                    self.rms.design,
                    self.rms.n_train_pre or "—",
                    self.rms.n_train_post or "—",
                ],
                "In the paper": [
                    DESIGN["dataset"],
                    "not reported",
                    n_paper,
                    "—",
                    "—",
                    n_paper,
                    "OpenAssistant RMs without / with hh-rlhf",
                    "—",
                    "—",
                ],
            }
        ).set_index("")
        dropped = filters[filters["removed"] > 0].set_index("filter")
        note = f"Rows dropped by the loader, by reason:\n\n{_table_md(dropped)}" if n_invalid else ""
        if getattr(self.rms.pre, "identity", None) == getattr(self.rms.post, "identity", 0):
            from pluralign.report import warning

            note = warning(
                f"The pre-D and post-D reward models are the same model ({self.rms.pre.identity}): no "
                "reward can shift, so the reward shifts, angles and alignment regimes of Part II say nothing "
                "here. Name two models (design: reward_models: {pre: ..., post: ...}), the one before and "
                "the one after training on D."
            ) + ("\n\n" + note if note else "")
        return Result(
            table=table,
            note=note,
            data={"filters": filters},
            values={
                "n_pairs": len(self.view),
                "n_ties": n_ties,
                "n_invalid": n_invalid,
                "paper_n_pairs": f"{n_paper:,}",
            },
        )

    def scoring(self):
        """What the two reward models scored (SEAL § 2; :func:`~pluralign.seal.scoring.scoring_inputs`): the scoring
        input (SEAL's code's (history, reply) split, or the loader's prompt and reply), the pairs whose chosen and
        rejected histories differ (each entry scored on its own), and per RM its maximum input length and the
        entries it truncated (:func:`~pluralign.seal.scoring.count_truncated`). Values ``scoring_input``,
        ``n_truncated_pre``, ``n_truncated_post``, ``n_history_differs``."""
        from pluralign.report import Result
        from pluralign.seal.scoring import SCORING_INPUT_NAMES, count_truncated, scoring_inputs

        mode = self.settings.get("scoring_input", "seal")
        inputs = scoring_inputs(self.view, mode)
        n_diff_loader = int(self.view["history_differs"].sum()) if "history_differs" in self.view else None
        hist = inputs["history"].to_numpy()
        n_diff_scored = int((hist[0::2] != hist[1::2]).sum())
        rows = {
            "scoring input": (
                SCORING_INPUT_NAMES[mode],
                'SEAL\'s code: (history, reply) split at the last "Assistant:", no truncation',
            ),
            "entries scored": (len(inputs), 2 * int(self._paper_n_pairs())),
            "pairs whose chosen and rejected histories differ (loader's split; flagged, kept)": (
                n_diff_loader if n_diff_loader is not None else "— (no per-side dialogues in these data)",
                "not reported",
            ),
            "pairs whose two scored histories differ": (n_diff_scored, "not reported"),
        }
        values = {"scoring_input": SCORING_INPUT_NAMES[mode], "n_history_differs": n_diff_scored}
        for k in ("pre", "post"):
            c = count_truncated(getattr(self.rms, k), inputs)
            mx = (
                "— (the model's tokenizer cannot be read)"
                if not c["readable"]
                else "none (the model accepts any length)"
                if c["max_length"] is None
                else c["max_length"]
            )
            rows[f"{k}-D RM: maximum input (tokens)"] = (mx, "none (DeBERTa-v3, relative positions)")
            rows[f"{k}-D RM: entries truncated"] = (
                c["n_truncated"] if c["n_truncated"] is not None else "— (the model's tokenizer cannot be read)",
                0,
            )
            rows[f"{k}-D RM: longest input (tokens)"] = (
                c["longest"] if c["longest"] is not None else "—",
                "not reported",
            )
            values[f"n_truncated_{k}"] = c["n_truncated"] if c["n_truncated"] is not None else "—"
        precision_notes = []
        for k in ("pre", "post"):  # issue 19: the precision used and, where not fp32, its measured deviation
            prec, dev = self._precision_check(k, inputs)
            rows[f"{k}-D RM: precision"] = (prec, "not reported")
            values[f"precision_{k}"] = prec
            if dev is not None:
                rows[f"{k}-D RM: max |Δr| vs fp32"] = (dev.values["max_abs_diff"], "—")
                rows[f"{k}-D RM: pairs whose sign of r_chosen − r_rejected changes vs fp32"] = (
                    f"{100 * dev.values['sign_flip_share']:.1f} % of {dev.values['n_pairs']}",
                    "—",
                )
                precision_notes.append(f"The {k}-D RM scored in {prec}: " + dev.note.split("; ", 1)[-1])
        table = pd.DataFrame(rows, index=["This run", "SEAL"]).T
        note = (
            'SEAL\'s code splits each conversation at `text.rfind("Assistant:")`: the history is `text[:pivot]`, '
            "the reply `text[pivot:]` with its `Assistant:` prefix, and the RM's tokenizer gets the two as a "
            "sentence pair. Each entry is split on its own conversation, so a pair whose two histories differ is "
            "scored as it is; where one shared prompt is needed (this project's training on (prompt, A, B)), such "
            "a pair takes the chosen side's history. A frozen-encoder RM embeds history and reply apart: an entry "
            "counts as truncated when either is cut."
        )
        if precision_notes:
            note += " " + " ".join(precision_notes)
        return Result(table=table, note=note, values=values, data={"inputs": inputs})

    #: pairs on which a fast precision's rewards are compared with fp32's (issue 19)
    PRECISION_CHECK_PAIRS = 128

    def _precision_check(self, k: str, inputs: pd.DataFrame):
        """The precision the ``k``-D RM computes in, and where it is not fp32 its measured deviation from the same
        weights in fp32 on the first :attr:`PRECISION_CHECK_PAIRS` pairs of the scoring input
        (:func:`pluralign.rewards.speed.precision_deviation`; None where it is fp32 or no fp32 copy exists)."""
        from pluralign.rewards.speed import fp32_twin, precision_deviation

        rm = getattr(self.rms, k)
        prec = getattr(rm, "precision", None)
        if not isinstance(prec, str):
            return "— (not a pluralign reward model)", None
        if prec == "fp32":
            return prec, None
        exact = fp32_twin(rm)
        if exact is None:
            return f"{prec} (quantized weights: no fp32 copy to compare)", None
        entries = list(zip(inputs["history"].astype(str), inputs["reply"].astype(str)))
        return prec, precision_deviation(rm, exact, entries, n_pairs=self.PRECISION_CHECK_PAIRS)

    def _paper_n_pairs(self) -> int:
        from pluralign.seal.paper import DESIGN, paper_value

        return int(paper_value("§2", DESIGN["dataset"], "pairs"))

    def reward_vectors(self):
        """Every pair's reward vector before and after training on D, aligned and misaligned (Fig. 2, 10)."""
        from pluralign.report import Result
        from pluralign.seal import plots

        return Result(table=None, figure=plots.reward_vectors(self.R))

    def reward_shifts(self):
        """Reward-vector angles and reward shifts θ (Definition 1, Fig. 2); values ``theta_median`` (signed)
        and ``theta_abs_mean``."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.shifts import reward_angle

        theta = self.theta()
        angles = pd.DataFrame(
            {"pre-D": reward_angle(*self._rewards("pre")), "post-D": reward_angle(*self._rewards("post"))}
        )
        return Result(
            table=None,
            figure=plots.reward_angles(angles, theta),
            data={"theta": theta},
            values={"theta_median": float(np.nanmedian(theta)), "theta_abs_mean": float(np.nanmean(np.abs(theta)))},
        )

    def alignment(self):
        """Alignment score a₊ and resistance a₋ of both RMs beside the paper's (§ 2.2)."""
        from pluralign.report import Result
        from pluralign.seal.paper import paper_rows
        from pluralign.seal.resistance import alignment_summary

        s = alignment_summary(self.R)
        p = paper_rows("§2.2").set_index(["row", "column"])["value"]
        P = {
            "a_plus_pre": p[("pre-D RM", "a₊")],
            "a_minus_pre": 1 - p[("pre-D RM", "a₊")],
            "a_plus_post": p[("post-D RM", "a₊")],
            "a_minus_post": p[("post-D RM", "a₋")],
        }
        keys = ("a_plus_pre", "a_minus_pre", "a_plus_post", "a_minus_post")
        table = pd.DataFrame(
            {
                "This run": [s[k] for k in keys],
                "In the paper": [P["a_plus_pre"], round(P["a_minus_pre"], 2), P["a_plus_post"], P["a_minus_post"]],
            },
            index=["a₊ pre-D", "a₋ pre-D", "a₊ post-D", "a₋ post-D (alignment resistance)"],
        )
        return Result(
            table=table.round(3),
            paper=paper_rows("§2.2"),
            note="The paper's a₋ pre-D is 1 − a₊ (not printed).",
            values={**{k: s[k] for k in keys}, **{f"paper_{k}": float(P[k]) for k in keys}},
        )

    def quadrants(self):
        """Shares of pairs by the signs of their two rewards, both RMs, beside the paper's post-D shares
        (App. D.2), and the reward heatmaps (Fig. 9)."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.paper import paper_rows
        from pluralign.seal.resistance import reward_quadrants

        paper = paper_rows("App. D.2")
        table = pd.DataFrame(
            {
                "pre-D": reward_quadrants(*self._rewards("pre")),
                "post-D": reward_quadrants(*self._rewards("post")),
                "paper (post-D)": paper.set_index("row")["value"],
            }
        )
        return Result(table=table.round(3), figure=plots.reward_heatmap(self.R), paper=paper)

    # ---- feature-imprint page
    def featurizer_check(self):
        """How the features were made. On the demo (planted features) the rule-based featurizer is checked
        against the planted labels feature by feature, on chosen and rejected entries together
        (:func:`featurizer_agreement`; the label-stability check of App. D.5 with the planted labels as the
        second labeller); elsewhere the feature source is named."""
        from pluralign.report import Result
        from pluralign.seal.features import rule_featurize
        from pluralign.seal.paper import DESIGN, paper_value

        F = self._features()
        if F.source != "planted":
            table = pd.DataFrame({"feature source": [F.note], "entries labelled": [2 * len(self.view)]})
            f = self._label_failures()
            if f is None:
                return Result(table=table)
            from pluralign.report import warning

            table["entries without a valid label"] = f["failed"]
            table["pairs labelled on both entries"] = f["pairs"]
            note = (
                f"{self._label_failure_text(f)}; {f['pairs']} of {f['n_pairs']} pairs have every feature labelled "
                "on both entries, and only those enter the regressions (Eq. 1-3)."
            )
            if f["failed"]:
                note = warning(
                    note
                    + (
                        " Sections with no such pair have no estimate and are left out of this page."
                        if not f["pairs"]
                        else ""
                    )
                )
            return Result(
                table=table, note=note, values={"n_label_failed": f["failed"], "n_label_entries": f["entries"]}
            )
        rules = pd.concat(
            [rule_featurize(entry_texts(self.view, e)) for e in ("chosen", "rejected")], ignore_index=True
        )
        planted = pd.concat([planted_taxonomy(F.chosen), planted_taxonomy(F.rejected)], ignore_index=True)
        a = featurizer_agreement(rules, planted)
        share = paper_value("App. D.5", "re-labelled pairs", "share of D")
        note = (
            f"The rule-based featurizer agrees with the planted refusal label on "
            f"{a.loc['last_response_is_refusal', 'agreement']:.3f} of the entries, with the planted "
            f"(enthusiastic) sentiment on {a.loc['last_response_sentiment', 'agreement']:.3f} and with list "
            f"formatting on {a.loc['response_has_list', 'agreement']:.3f}; its word count separates verbose "
            f"from short entries with AUROC {a.loc['response_words ~ verbosity', 'auroc']:.3f}. It has no "
            f"helpfulness label at all (its row reads —): that judgement needs the LM-labeller. The paper's labels "
            f"came from {DESIGN['models']['labeller']}, cross-checked on {share:.0%} "
            f"of the entries against {' and '.join(DESIGN['models']['stability_labellers'])}."
        )
        return Result(table=a.round(3), note=note, data={"agreement": a})

    def label_stability(self):
        """Label stability across LM-labellers (App. D.5, Fig. 11; :func:`stability_check`) when the page
        names ``stability_labellers``; otherwise a note saying why it is not run."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.paper import DESIGN

        labellers = self.settings.get("stability_labellers")
        if not labellers:
            other = (
                "on `demo` the rule-based featurizer's agreement with the planted labels above plays that role."
                if self.F is not None and self.F.source == "planted"
                else "this profile's features come from the rule-based featurizer, a single deterministic labeller."
            )
            return Result(
                table=None,
                skipped=(
                    "label stability needs instruction-tuned LM-labellers behind an "
                    "endpoint (set `stability_labellers` to a list of `pluralign.llm.load` arguments, as the `paper` "
                    f"profile does for {' and '.join(DESIGN['models']['stability_labellers'])}); {other}"
                ),
            )
        st = stability_check(
            self.view, self.F, labellers, share=self.settings.get("stability_share", 0.01), seed=self.seed
        )
        agree, k = st["agreement"], st["k"]
        fig = plots.bars(
            agree,
            horizontal=True,
            xlim=(0, 1),
            size=(7, 0.35 * len(agree) + 1.2),
            xlabel=f"share of entries with the same label ({st['what']})",
            title=f"label stability on {k} pairs ({2 * k} entries; Fig. 11)",
        )
        return Result(
            table=st["stability"].round(3),
            figure=fig,
            data=st,
            note="Entries a labeller could not label (no answer that parses as JSON and fits the schema) are "
            "left out of its agreement (`n`): "
            + "; ".join(f"{nm}: {n} of {2 * k}" for nm, n in st["n_failed"].items())
            + ".",
        )

    def prevalence(self):
        """Share of chosen and rejected entries with each feature (Table 4, Fig. 14), on the paper's rows
        (:func:`~pluralign.seal.compare.prevalence_on_paper_rows`: a feature played with sign −1 enters as its
        complement, 1 − share)."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.compare import prevalence_on_paper_rows
        from pluralign.seal.paper import paper_table

        F = self._features()
        prev = feature_prevalence(F.chosen, F.rejected)
        paper4 = paper_table("Table 4")
        table, long = prevalence_on_paper_rows(prev, paper4, F.regressors, source=self._source())
        fig = plots.bars(
            prev[["chosen", "rejected"]],
            horizontal=True,
            invert=True,
            xlabel="share of entries with the feature (sentiment: mean of -1/0/1)",
        )
        note = (
            "Rows are SEAL's features (Table 4's, hh-rlhf train, gpt-4-turbo labels). "
            + self._mapping_note(long.assign(paper=long["paper_chosen"]), flip="as 1 − its share")
            + " The paper's sentiment is the mean of −1/0/1 (negative, "
            "neutral, positive); the simulator's is the share of enthusiastic entries (it plants no negative tone)."
        )
        return Result(table=table, figure=fig, paper=paper4, note=note, data={"long": long})

    def imprint(self) -> dict:
        """The feature imprints (Eq. 1) of the pre-D and post-D RMs, ``{"pre": fit, "post": fit, "seal_code":
        {"pre": fit, "post": fit}, "table": the regression's entries}``: this project's pair fixed-effects fits
        (:func:`~pluralign.seal.imprint.feature_imprint`) and SEAL's code's variant
        (:func:`~pluralign.seal.imprint.feature_imprint_seal_code`: OLS, no FE, classical SEs, VIF with pair
        dummies), as :class:`~pluralign.seal.imprint.ImprintFit`; computed once."""
        if "imprint" not in self._memo:
            from pluralign.seal.imprint import feature_imprint, feature_imprint_seal_code, imprint_table

            F, R = self._features(), self.R
            table = imprint_table(
                R["pair_id"], F.chosen, F.rejected, pre=self._rewards("pre"), post=self._rewards("post")
            )
            self._memo["imprint"] = {
                "table": table,
                **{k: feature_imprint(table, k, F.regressors) for k in ("pre", "post")},
                "seal_code": {k: feature_imprint_seal_code(table, k, F.regressors) for k in ("pre", "post")},
            }
        return self._memo["imprint"]

    def imprints(self):
        """Imprints of the pre-D and post-D RMs (Eq. 1, Table 5, Fig. 3 left) in both variants, beside the paper's
        Table 5, on the paper's rows (:func:`~pluralign.seal.compare.on_paper_rows`: each SEAL feature with the
        estimate of the feature of this run that plays it, sign-aligned, and a verdict from its 95% CI):
        "SEAL's code: OLS, no FE" (plain OLS, classical SEs, VIF
        with pair dummies; how Table 5 was computed) and "pair fixed effects (this project)" (Eq. 1 as written,
        SEs clustered by pair; plotted)."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.paper import DESIGN, paper_rows, paper_table

        p5 = paper_table("Table 5")
        paper_values = {
            "paper_harmless_pre": float(p5.loc["last_response_is_harmless", "pre-D"]),
            "paper_harmless_post": float(p5.loc["last_response_is_harmless", "post-D"]),
            "paper_n_t5": len(p5),
            "paper_vif_dropped": " and ".join(DESIGN["vif_dropped"]),
        }
        none = self._no_label_estimate(
            values={**paper_values, "n_imprint_obs": 0, "n_t5_compared": 0, "n_imprint_missing": len(self.view)}
        )
        if none is not None:
            return none
        im, F = self.imprint(), self._features()
        fig = plots.coefficient_figure(
            {"pre-D": im["pre"].table, "post-D": im["post"].table},
            n_rows=len(F.regressors),
            xlabel="feature imprint β (reward points)",
            title="feature imprints (pair fixed effects), ±2 SE; filled = significant after Bonferroni",
        )
        from pluralign.seal.compare import on_paper_rows

        variants = [VARIANT_NAMES["seal_code"], VARIANT_NAMES["fixed_effects"]]
        ours = pd.concat(
            [
                pd.DataFrame(
                    {
                        "feature": list(F.regressors),
                        "group": lab,
                        "variant": VARIANT_NAMES[key],
                        "estimate": fits[k].table.reindex(F.regressors)["estimate"].to_numpy(),
                        "std_error": fits[k].table.reindex(F.regressors)["std_error"].to_numpy(),
                    }
                )
                for key, fits in (("seal_code", im["seal_code"]), ("fixed_effects", im))
                for k, lab in (("pre", "pre-D"), ("post", "post-D"))
            ],
            ignore_index=True,
        )
        rows = paper_rows("Table 5")
        rows = rows[~rows["column"].str.endswith(" p")]
        paper5 = pd.DataFrame(
            {
                "feature": rows["row"].to_numpy(),
                "group": rows["column"].to_numpy(),
                "estimate": rows["value"].to_numpy(),
                "se": rows["se"].to_numpy(),
            }
        )
        table, long = on_paper_rows(
            ours,
            paper5,
            F.regressors,
            paper_order=list(p5.index),
            groups=["pre-D", "post-D"],
            variants=variants,
            source=self._source(),
            n=im["post"].n_obs,
            group_name="RM",
        )
        note = (
            "Rows are SEAL's features (Table 5's, in its order). "
            + self._mapping_note(long)
            + " Two estimators of Eq. 1 on the same entries. **SEAL's code: OLS, no FE** — the paper's Table 5 was "
            "computed this way (`analysis/angle.R`): plain OLS over the pooled entries with an intercept and the "
            "pair's row number as a numeric covariate, classical standard errors, features dropped by VIF > 5 "
            "with the pair dummies in the VIF's regressions. **Pair fixed effects (this project)** — Eq. 1 as "
            "written: a fixed effect α_i per pair, standard errors clustered by pair (plotted above). The paper's "
            "number stands beside both (it comes from the first). The verdict compares the sign of this run's "
            "95% CI with the paper's estimate; the paper's estimates are on the OpenAssistant RMs' reward scale, "
            "this run's on its own RMs', so only signs compare."
        )
        values = {
            **paper_values,
            "n_imprint_obs": im["post"].n_obs,
            "n_imprint_missing": im["table"].n_pairs_dropped_missing,
            "n_t5_compared": int(long.loc[long["estimate"].notna() & long["paper"].notna(), "paper_feature"].nunique()),
        }
        return Result(
            table=table,
            figure=fig,
            paper=paper5,
            note=note,
            values=values,
            data={"fixed_effects": {k: im[k] for k in ("pre", "post")}, "seal_code": im["seal_code"], "long": long},
        )

    def vif_dropped(self):
        """The features each imprint regression dropped (VIF > 5, footnote 6, or constant), per variant: SEAL's
        code's VIF has the pair dummies in its regressions, this project's fixed-effects fit the features alone."""
        from pluralign.report import Result

        none = self._no_label_estimate()
        if none is not None:
            return none
        im = self.imprint()
        rows = {
            f"{VARIANT_NAMES[key]} · {k}-D": ", ".join(fits[k].dropped_vif) or "none"
            for key, fits in (("seal_code", im["seal_code"]), ("fixed_effects", im))
            for k in ("pre", "post")
        }
        return Result(table=pd.DataFrame({"dropped (VIF > 5 or constant)": rows}))

    def planted_recovery(self):
        """Recovery of the simulator's planted population weights (:func:`weight_recovery`): the method on
        the population's mean utility, and the trained RMs against the weights of what they were trained on.
        Only on planted features (the demo); elsewhere a note."""
        from pluralign.report import Result

        if self.F is None or self.F.source != "planted":
            return Result(table=None, skipped="its data carry no planted weights to compare with.")
        wr = weight_recovery(self, {k: self.imprint()[k] for k in ("pre", "post")})
        text = [
            f"**The method** — an imprint of the population's mean utility itself — gives back all "
            f"{len(wr['utility'].table)} planted weights (largest error {wr['utility_error']:.1e}): the "
            "regression of Eq. 1 with pair fixed effects and the VIF filter recovers a linear reward exactly "
            "(its residuals, and so its standard errors, are zero, so the interval column does not apply to it)."
        ]
        for k, rec in wr["parts"].items():
            v = rec.table
            which = "pre" if k.startswith("pre") else "post"
            cov, sign = list(v.index[v["covered"]]), list(v.index[v["same_sign"] == 1])
            text.append(
                f"**The {k.split(' vs ')[0]}** (this project's small reward model trained on "
                f"{wr['n_train'][which]} pairs of {'the other data' if which == 'pre' else 'the other data plus D'}): "
                f"{int(v['covered'].sum())} of {len(v)} rescaled weights fall inside the imprint's 95% interval "
                f"({', '.join(cov) or 'none'}) and {int((v['same_sign'] == 1).sum())} of "
                f"{int(v['same_sign'].notna().sum())} signs agree ({', '.join(sign) or 'none'})."
            )
        text.append(
            "The trained RMs reproduce the planted weights within their intervals."
            if wr["reproduced"]
            else "So the trained RMs do *not* reproduce the planted weights: they learn some features and "
            "miss or invert others, and their imprints mix what the frozen encoder makes easy to see "
            "with what the annotators rewarded. This is a check of the small models, not of the "
            "method: the imprints above describe these models and should not be read as the "
            "populations' preferences."
        )
        text.append("Feature by feature:\n\n" + _table_md(wr["table"].rename_axis(["check", "feature"])))
        return Result(table=wr["summary"].round(3), note="\n\n".join(text), data=wr)

    def shift_regression(self):
        """The reward shift θ regressed on the chosen and rejected entries' features (Eq. 2, Table 6, Fig. 3
        centre), beside the paper's Table 6 where a feature has the same name; value ``t6_r2``."""
        from pluralign.report import MISSING, Result
        from pluralign.seal import plots
        from pluralign.seal.paper import paper_table
        from pluralign.seal.shifts import reward_shift_regression

        none = self._no_label_estimate(values={"t6_r2": MISSING})
        if none is not None:
            return none
        F = self._features()
        t6 = reward_shift_regression(self.theta(), F.chosen, F.rejected, F.regressors)
        fig = plots.coefficient_figure(
            {"chosen (c)": t6.table.xs("c"), "rejected (r)": t6.table.xs("r")},
            n_rows=len(F.regressors),
            xlabel="effect on θ (degrees)",
            title="reward shift on features, ±2 SE",
        )
        from pluralign.seal.compare import on_paper_rows

        paper6 = paper_table("Table 6")[["chosen", "rejected"]]
        table, long = on_paper_rows(
            self._entry_estimates(t6.table),
            self._paper_entries("Table 6"),
            F.regressors,
            paper_order=list(paper6.index),
            groups=["chosen", "rejected"],
            source=self._source(),
            n=t6.n_obs,
            group_name="entry",
        )
        note = (
            "Rows are SEAL's features (Table 6's, in its order); θ in degrees. "
            + self._mapping_note(long)
            + " The verdict compares the sign of this run's 95% CI with the paper's estimate."
        )
        return Result(
            table=table, figure=fig, paper=paper6, data={"fit": t6, "long": long}, note=note, values={"t6_r2": t6.r2}
        )

    @staticmethod
    def _entry_estimates(t: pd.DataFrame, variant: str | None = None, status: dict | None = None) -> pd.DataFrame:
        """A fit's (entry, feature) table as the long estimates of :func:`~pluralign.seal.compare.on_paper_rows`."""
        out = pd.DataFrame(
            {
                "feature": [f for _, f in t.index],
                "group": [{"c": "chosen", "r": "rejected"}[e] for e, _ in t.index],
                "estimate": t["estimate"].to_numpy(float),
                "std_error": t["std_error"].to_numpy(float),
            }
        )
        out["variant"] = variant
        out["status"] = [(status or {}).get(k) for k in t.index]
        return out

    @staticmethod
    def _paper_entries(name: str) -> pd.DataFrame:
        """Table 6 / 7 of the paper as the long paper rows of :func:`~pluralign.seal.compare.on_paper_rows`."""
        from pluralign.seal.paper import paper_rows

        r = paper_rows(name)
        r = r[r["column"].isin(["chosen", "rejected"])]
        return pd.DataFrame(
            {
                "feature": r["row"].to_numpy(),
                "group": r["column"].to_numpy(),
                "estimate": r["value"].to_numpy(),
                "se": r["se"].to_numpy(),
            }
        )

    # ---- resistance page
    def regime_table(self):
        """Prevalence of the four alignment regimes (Table 1) beside the paper's and SEAL's analysis code's
        shares; values ``prev_<regime>``."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.paper import paper_rows
        from pluralign.seal.resistance import regime_prevalence

        prev = regime_prevalence(self.regimes())
        t1 = paper_rows("Table 1")
        code = paper_rows("SEAL analysis code (main_results.ipynb)")
        table = pd.DataFrame(
            {
                "this run": prev,
                "paper (Table 1)": t1[t1["column"] == "prevalence"].set_index("row")["value"],
                "SEAL analysis code": code[code["column"] == "share of pairs"].set_index("row")["value"],
            }
        )
        fig = plots.bars(table, ylabel="share of pairs")
        return Result(
            table=table.round(4), figure=fig, paper=t1, values={f"prev_{k}": float(v) for k, v in prev.items()}
        )

    def gamma(self) -> np.ndarray:
        """γ_i per pair (App. D.4; :func:`labeller_gamma`), None where a target label is missing."""
        if "gamma" not in self._memo:
            rule = self.settings.get("labeller_rule", "harmless_first")
            self._memo["gamma"] = labeller_gamma(self._features(), priority=LABELLER_RULES[rule])
        return self._memo["gamma"]

    def labeller_rules(self):
        """γ's counts under both of SEAL's rules (App. D.4): ``harmless_first`` (SEAL's code, whose label vector is
        [harmless, helpful]) and ``helpful_first`` (its text and Table 2), beside the counts SEAL's analysis code
        reports (28,443 c / 10,840 r / 121,517 i, harmless first); the page's rule (``labeller_rule``) is marked.
        Values ``labeller_rule``, ``n_rule_differs`` (pairs whose γ the rule changes)."""
        from pluralign.report import Result
        from pluralign.seal.paper import paper_rows

        F = self._features()
        g = {rule: labeller_gamma(F, priority=prio) for rule, prio in LABELLER_RULES.items()}
        known = np.array([x is not None for x in g["harmless_first"]])
        code = paper_rows("SEAL analysis code (main_results.ipynb)").set_index(["row", "column"])["value"]
        rows = {}
        for rule, gam in g.items():
            k = gam[known]
            n_c, n_r, n_i = (int(np.sum(k == v)) for v in ("c", "r", "i"))
            rows[rule] = {
                "γ = c (chosen)": n_c,
                "γ = r (rejected)": n_r,
                "γ = i": n_i,
                "agreement (c / (c + r))": round(n_c / (n_c + n_r), 4) if n_c + n_r else "—",
            }
        rows["SEAL's analysis code (hh-rlhf, harmless first)"] = {
            "γ = c (chosen)": int(code[("γ = c", "pairs")]),
            "γ = r (rejected)": int(code[("γ = r", "pairs")]),
            "γ = i": int(code[("γ = i", "pairs")]),
            "agreement (c / (c + r))": round(
                code[("γ = c", "pairs")] / (code[("γ = c", "pairs")] + code[("γ = r", "pairs")]), 4
            ),
        }
        table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("rule")
        for c in ("γ = c (chosen)", "γ = r (rejected)", "γ = i"):
            table[c] = table[c].astype(int)
        rule = self.settings.get("labeller_rule", "harmless_first")
        table.index = [f"{i} (this page)" if i == rule else i for i in table.index]
        differs = int(np.sum(g["harmless_first"][known] != g["helpful_first"][known]))
        note = (
            f"The two rules differ only where one entry is helpful but harmful and the other harmless but unhelpful: "
            f"{differs} of {int(known.sum())} pairs here. On SEAL's released labels of hh-rlhf (160,800 pairs) the "
            "text's rule (helpful first) gives 28,213 c / 11,070 r, its code's (harmless first) 28,443 c / 10,840 r "
            "(the numbers it reports); pairs without both target labels are left out."
        )
        f = self._label_failures()
        if f is not None and f["failed"]:
            from pluralign.report import warning

            note = (
                warning(
                    f"{self._label_failure_text(f)}: {len(known) - int(known.sum())} of {len(known)} pairs lack "
                    "a target label on an entry and have no γ."
                )
                + "\n\n"
                + note
            )
        return Result(
            table=table, note=note, paper=code.reset_index(), values={"labeller_rule": rule, "n_rule_differs": differs}
        )

    def labeller_agreement(self):
        """The LM-labeller's agreement with the human label per regime (Table 1, last row; Fig. 4) beside
        the paper's; values for the prose (``n_c``, ``n_r``, ``share_i`` and the paper's and SEAL code's)."""
        from pluralign.report import Result
        from pluralign.seal.paper import paper_rows, paper_value
        from pluralign.seal.resistance import labeller_agreement

        gamma = self.gamma()
        known = np.array([g is not None for g in gamma])
        agree = labeller_agreement(self.regimes()[known], gamma[known])
        t1 = paper_rows("Table 1")
        agree["paper agreement (Table 1)"] = t1[t1["column"] == "LM-labeller agreement"].set_index("row")["value"]
        g_all = agree.loc["all"]
        code = "SEAL analysis code (main_results.ipynb)"
        n_dec = int(paper_value(code, "γ = c", "pairs") + paper_value(code, "γ = r", "pairs"))
        values = {
            "n_c": int(g_all["n_c"]),
            "n_r": int(g_all["n_r"]),
            "share_i": float(g_all["n_i"] / g_all["n"]) if g_all["n"] else float("nan"),
            "paper_share_i": paper_value("§3", "γ = i", "share of pairs"),
            "paper_lm_decisive": paper_value(code, "γ ≠ i", "LM-labeller agreement with the human label"),
            "paper_pre_decisive": paper_value(code, "γ ≠ i", "pre-D RM a₊"),
            "paper_post_decisive": paper_value(code, "γ ≠ i", "post-D RM a₊"),
            "paper_n_decisive": f"{n_dec:,}",
        }
        # the prose's share as text: "—" with the count when no pair has a γ (every target label failed)
        f = self._label_failures()
        values["share_i_text"] = (
            f"{values['share_i']:.3f}"
            if g_all["n"]
            else "— (no pair has a γ" + (f": {self._label_failure_text(f)})" if f else ")")
        )
        return Result(table=agree.round(3), paper=t1, values=values, data={"agreement": agree})

    def decisive_pairs(self):
        """On the pairs where the LM-labeller is decisive (γ ≠ i): their number, its agreement with the human
        label, and the pre-D and post-D RMs' alignment a₊, beside SEAL's analysis code's."""
        from pluralign.report import Result
        from pluralign.seal.paper import paper_rows
        from pluralign.seal.resistance import alignment_score

        gamma = self.gamma()
        known = np.array([g is not None for g in gamma])
        code = paper_rows("SEAL analysis code (main_results.ipynb)").set_index(["row", "column"])["value"]
        decisive = known & np.array([g in ("c", "r") for g in gamma])
        rows = {
            "decisive pairs (γ ≠ i)": (int(decisive.sum()), int(code[("γ = c", "pairs")] + code[("γ = r", "pairs")]))
        }
        if decisive.any():
            (pc, pr), (qc, qr) = self._rewards("pre"), self._rewards("post")
            g_all = self.labeller_agreement().data["agreement"].loc["all"]
            rows["LM-labeller agreement with the human label, γ ≠ i"] = (
                float(g_all["agreement"]),
                code[("γ ≠ i", "LM-labeller agreement with the human label")],
            )
            rows["pre-D RM alignment a₊ on γ ≠ i pairs"] = (
                alignment_score(pc[decisive], pr[decisive]),
                code[("γ ≠ i", "pre-D RM a₊")],
            )
            rows["post-D RM alignment a₊ on γ ≠ i pairs"] = (
                alignment_score(qc[decisive], qr[decisive]),
                code[("γ ≠ i", "post-D RM a₊")],
            )
        return Result(table=pd.DataFrame(rows, index=["this run", "SEAL analysis code"]).T.round(4))

    def shifts_by_regime(self):
        """Reward shifts θ per regime and LM-labeller preference γ ∈ {c, r} (Fig. 4)."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.resistance import REGIMES

        frame = pd.DataFrame({"θ": self.theta(), "regime": self.regimes(), "γ": self.gamma()})
        frame = frame[frame["γ"].isin(["c", "r"])]
        fig = plots.shifts_by_regime(frame, REGIMES) if len(frame) else None
        return Result(table=None, figure=fig, note="" if len(frame) else "No pair has γ ∈ {c, r}: nothing to plot.")

    def misalignment(self):
        """Which chosen / rejected features predict the post-D RM's misalignment (Eq. 3, Table 7, Fig. 3 right), on
        Table 7's rows (:func:`~pluralign.seal.compare.on_paper_rows`): the same regression as a linear probability
        model (OLS on the 0/1 event; Table 7's scale, plotted) and as the logit of Eq. 3. A logit term with
        (quasi-)complete separation (:func:`~pluralign.seal.compare.separated`), or with a huge standard error in a
        fit that did not converge, has no finite estimate: it is shown as "did not converge (separation)", never as
        a number. Value ``t7_base`` (the misalignment rate), ``n_t7_separated``."""
        from pluralign.report import MISSING, Result
        from pluralign.seal import plots
        from pluralign.seal.compare import NOT_CONVERGED, no_finite_estimate, on_paper_rows, separated
        from pluralign.seal.paper import paper_table
        from pluralign.seal.resistance import aligned, misalignment_regression

        none = self._no_label_estimate(
            values={"t7_base": float(np.mean(~aligned(*self._rewards("post")))), "n_t7_separated": MISSING}
        )
        if none is not None:
            return none
        F = self._features()
        args = (*self._rewards("post"), F.chosen, F.rejected, F.regressors)
        t7 = misalignment_regression(*args)
        t7_lin = misalignment_regression(*args, model="linear")
        bad = no_finite_estimate(
            t7.table, t7.converged, separated(~aligned(*self._rewards("post")), F.chosen, F.rejected, F.regressors)
        )
        bad = {k for k in bad if np.isfinite(t7.table.loc[k, "estimate"])}
        fig = plots.coefficient_figure(
            {"chosen (c)": t7_lin.table.xs("c"), "rejected (r)": t7_lin.table.xs("r")},
            n_rows=len(F.regressors),
            xlabel="ρ: change in the probability of misalignment (LPM)",
            title="misalignment on features (LPM), ±2 SE; filled = significant after Bonferroni",
        )
        paper7 = paper_table("Table 7")[["chosen", "rejected"]]
        lpm, logit = "LPM (OLS on 0/1, Table 7's scale)", "logit (Eq. 3 as written)"
        ours = pd.concat(
            [
                self._entry_estimates(t7_lin.table, lpm),
                self._entry_estimates(t7.table, logit, {k: NOT_CONVERGED for k in bad}),
            ],
            ignore_index=True,
        )
        table, long = on_paper_rows(
            ours,
            self._paper_entries("Table 7"),
            F.regressors,
            paper_order=list(paper7.index),
            groups=["chosen", "rejected"],
            variants=[lpm, logit],
            source=self._source(),
            n=t7.n_obs,
            group_name="entry",
        )
        sep = ", ".join(f"{'chosen' if e == 'c' else 'rejected'} {f}" for e, f in sorted(bad))
        note = (
            "Rows are SEAL's features (Table 7's, in its order). "
            + self._mapping_note(long)
            + " **LPM**: OLS of the 0/1 misalignment on the features, ρ a change in probability — the scale of the "
            "paper's Table 7 (plotted above). **logit**: Eq. 3 as written, ρ in log-odds; its signs compare, its "
            "magnitudes do not. The verdict compares the sign of this run's 95% CI with the paper's estimate."
        )
        if bad or not t7.converged:
            note += (
                f"\n\n**The logit did not converge{'' if t7.converged else ' (maximum likelihood stopped without converging)'}**"
                + (
                    f": {sep} {'is' if len(bad) == 1 else 'are'} separated — the outcome never (or always) occurs "
                    "on one of its values, so the likelihood rises without bound and there is no finite estimate. "
                    f'Those cells read "{NOT_CONVERGED}" and are not plotted; the LPM has an estimate for them.'
                    if bad
                    else "."
                )
            )
        return Result(
            table=table,
            figure=fig,
            paper=paper7,
            note=note,
            data={"logit": t7, "linear": t7_lin, "long": long, "separated": sorted(bad)},
            values={"t7_base": t7.base_rate, "n_t7_separated": len(bad)},
        )

    # ---- resistance page, SEAL's further analyses: regime t-tests (Fig. 4 / 17), App. D.1 (Fig. 7), App. E.1
    # (Fig. 15), § 3's resistance on other preference sets
    def regime_shift_tests(self):
        """t-tests of θ per alignment regime, on all its pairs and per LM-labeller preference γ (one-sample, H0: mean
        θ = 0), and γ = c against γ = r (Welch) — Fig. 4 / Fig. 17's groups
        (:func:`~pluralign.seal.regimes.regime_shift_tests`); the regime sizes of SEAL's analysis code beside ``n``."""
        from pluralign.report import Result
        from pluralign.seal.paper import paper_rows
        from pluralign.seal.regimes import regime_shift_tests

        t = regime_shift_tests(self.theta(), self.regimes(), self.gamma() if self.F is not None else None)
        one = t.one_sample.copy()
        code = paper_rows("SEAL analysis code (main_results.ipynb)")
        sizes = code[code["column"] == "pairs in the regime"].set_index("row")["value"]
        one["n (SEAL code, hh-rlhf)"] = [sizes.get(r) if g == "all" else None for r, g in one.index]
        cols = ["n", "n (SEAL code, hh-rlhf)", "mean", "ci_low", "ci_high", "t", "df", "p_bonferroni"]
        table = one[cols]
        w = t.welch
        note = [
            "The paper prints no test statistic for these panels (Fig. 4, Fig. 17): nothing stands beside the "
            "tests; the column from SEAL's analysis code is the regime sizes on hh-rlhf. θ in degrees; 95% t "
            "intervals; Bonferroni over the rows of each table. — : fewer than two pairs in the group (or no spread)."
        ]
        if len(w):
            note.append(
                "**γ = c against γ = r within each regime** (Welch's t-test, Fig. 4's green against pink):\n\n"
                + _dashes(
                    w[["n_c", "n_r", "mean_c", "mean_r", "difference", "t", "df", "p_bonferroni"]].round(3),
                    ints=["n_c", "n_r"],
                ).pipe(_table_md)
            )
        sig = one[(one["p_bonferroni"] < 0.05)].index.tolist()
        values = {
            "n_regime_tests": len(one),
            "n_regime_tests_sig": len(sig),
            "n_theta_missing": t.n_missing,
            "n_welch_sig": int((w["p_bonferroni"] < 0.05).sum()) if len(w) else 0,
            "n_welch": len(w),
        }
        return Result(
            table=table,
            note="\n\n".join(note),
            paper=code[code["column"] == "pairs in the regime"],
            values=values,
            data={"tests": t},
        )

    def reward_gap_distributions(self, models=None, model_keys: dict | None = None):
        """The reward gap r(t_i^c) − r(t_i^r) of several RMs on D (App. D.1, Fig. 7;
        :func:`~pluralign.seal.reward_gaps.reward_gap_summary`), beside the paper's a₊ (§ 2.2) and reward ranges
        (footnote 9) of its pre-D and post-D RMs. ``models``: None — this study's pre-D and post-D RMs, plus, on
        planted features, the population's mean utility (the simulator's reference scorer); or a list of
        :func:`pluralign.rewards.load` arguments or keys of ``model_keys`` (the profile's ``models``), as the
        ``paper`` profile lists Fig. 7's four OpenAssistant RMs."""
        from pluralign import rewards as _rewards
        from pluralign.report import Result, beside_paper
        from pluralign.seal import plots
        from pluralign.seal.paper import DESIGN, paper_value
        from pluralign.seal.reward_gaps import reward_gap_summary, reward_gaps

        role = {DESIGN["models"]["pre"]: "pre-D RM", DESIGN["models"]["post"]: "post-D RM"}
        scores, note = {}, []
        if models is None:
            scores = {"pre-D RM": self._rewards("pre"), "post-D RM": self._rewards("post")}
            if self.F is not None and self.F.source == "planted" and "weights" in self.D.meta:
                w = self.D.meta["weights"]["mean"]
                scores["population mean utility (planted)"] = tuple(
                    getattr(self.F, e)[list(w.index)].to_numpy(float) @ w.to_numpy(float)
                    for e in ("chosen", "rejected")
                )
            note.append(
                f"On this profile the pre-D and post-D RMs are this study's ({self.rms.design}), not the "
                "paper's OpenAssistant models: the paper's numbers stand beside them for their roles only."
            )
        else:
            for m in models:
                args = _load_args(m, model_keys, "reward_gap_models")
                name = str(args.get("name_or_path", m))
                label = f"{role[name]}: {name}" if name in role else name
                rm = _rewards.load(**dict(args))
                # scored as alignment_rewards scores the study's own pair (the same scoring input)
                R = alignment_rewards(
                    self.D,
                    rms=AlignmentModels(pre=rm, post=rm, design="named reward model"),
                    scoring_input=self.settings.get("scoring_input"),
                )
                scores[label] = (R["post_chosen"].to_numpy(float), R["post_rejected"].to_numpy(float))
        summ = reward_gap_summary(scores)
        ours = summ.rename(columns={"share positive": "a₊", "pairs": "n"}).reset_index()
        ours["role"] = [next((v for v in ("pre-D RM", "post-D RM") if str(k).startswith(v)), "—") for k in ours["RM"]]
        paper = pd.DataFrame(
            {
                "role": ["pre-D RM", "post-D RM"],
                "a₊": [paper_value("§2.2", k, "a₊") for k in ("pre-D RM", "post-D RM")],
                "lowest reward": [paper_value("footnote 9", k, "lowest reward") for k in ("pre-D RM", "post-D RM")],
                "highest reward": [paper_value("footnote 9", k, "highest reward") for k in ("pre-D RM", "post-D RM")],
            }
        )
        table = beside_paper(ours[ours["role"] != "—"], paper, on=["role"])
        # a role the paper reports but this run did not score stays, named (nothing the paper reports disappears)
        table["RM (this run)"] = table["RM (this run)"].fillna(table["role"] + " (not scored in this run)")
        table = pd.concat(
            [
                table,
                ours[ours["role"] == "—"].rename(
                    columns={c: f"{c} (this run)" for c in ours.columns if c not in ("role",)}
                ),
            ],
            ignore_index=True,
        )
        table = table.set_index("RM (this run)").drop(columns="role").rename_axis("RM")
        note.append(
            "Fig. 7 itself prints no number; the paper's a₊ (§ 2.2) and reward ranges (footnote 9) are its only "
            "numbers on these distributions. — : the paper reports nothing for that model."
        )
        post = summ.loc[next((k for k in summ.index if str(k).startswith("post-D RM")), summ.index[0])]
        return Result(
            table=table,
            figure=plots.reward_gap_figure(reward_gaps(scores)),
            paper=paper,
            note="\n\n".join(note),
            values={
                "gap_models": len(scores),
                "post_gap_median": float(post["median"]),
                "post_gap_share_zero": float(post["share zero"]),
            },
        )

    def topic_distribution(self, source: str = "rules"):
        """Topics (and types of discrimination) of D's entries (App. E.1, Fig. 15;
        :func:`~pluralign.seal.topics.label_distribution`): ``source="llm"`` reads the LM-labeller's ``topics`` and
        ``last_response_is_discriminating_against`` (``features: llm``, the ``paper`` profile); ``"rules"`` the
        offline keyword stand-in :func:`~pluralign.seal.topics.rule_topics` (topics only)."""
        from pluralign.report import MISSING, Result
        from pluralign.seal import plots
        from pluralign.seal.features import DISCRIMINATION_TYPES, TOPICS, TOPICS_ADDED
        from pluralign.seal.topics import label_distribution, rule_topics

        note = []
        if source == "llm":
            F = self._features()
            if F.labels_chosen is None or "topics" not in F.labels_chosen:
                raise ValueError(
                    "topic_distribution(source='llm') needs the LM-labeller's labels (setup(..., features='llm'))"
                )
            lc, lr = F.labels_chosen, F.labels_rejected
            both = int((lc["topics"].notna() & lr["topics"].notna()).sum())
            none = self._no_label_estimate(
                usable=both, values={"top_topic": MISSING, "top_topic_share": MISSING, "no_topic_share": MISSING}
            )
            if none is not None:
                return none
            topics = label_distribution(lc["topics"], lr["topics"], TOPICS + TOPICS_ADDED)
            disc = label_distribution(
                lc["last_response_is_discriminating_against"],
                lr["last_response_is_discriminating_against"],
                DISCRIMINATION_TYPES,
            )
            note.append("**Types of discrimination** (Fig. 15 right):\n\n" + _table_md(disc))
            who = f"the LM-labeller {F.labeller}"
        elif source == "rules":
            topics = label_distribution(
                rule_topics(entry_texts(self.view, "chosen")),
                rule_topics(entry_texts(self.view, "rejected")),
                TOPICS + TOPICS_ADDED,
            )
            disc = None
            who = "the keyword rules of seal.topics.TOPIC_RULES (an offline stand-in for the LM-labeller)"
            note.append(
                "The types of discrimination (Fig. 15 right) need the LM-labeller (`topic_source: llm` with "
                "`features: llm`); keyword rules cannot tell who a reply discriminates against."
            )
        else:
            raise ValueError(f"topic_distribution: source must be 'rules' or 'llm', got {source!r}")
        topics.insert(
            0,
            "in the prompt's list",
            ["App. C.3" if t in TOPICS else "added (App. E.1)" if t in TOPICS_ADDED else "—" for t in topics.index],
        )
        note.insert(
            0,
            f"Topics from {who}. Fig. 15 prints no number; the paper's facts are its two lists and the five "
            "topics gpt-4-turbo added on its own (App. E.1, marked). An entry can carry several topics.",
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
            note="\n\n".join(note),
            values={
                "top_topic": top,
                "top_topic_share": float(shown.loc[top, "share of entries"]),
                "no_topic_share": float(topics.loc["(none)", "share of entries"]),
            },
            data={"topics": topics, "discrimination": disc},
        )

    def resistance_on_other_sets(self, data=None):
        """Alignment resistance a₋ of the pre-D and post-D RMs on other preference sets (§ 3 "Future work": web-gpt
        49%, summarize from feedback 66%; :func:`~pluralign.seal.preference_sets.resistance_by_dataset`), beside the
        paper's. ``data``: a list of data specs (:func:`pluralign.load` arguments); None — the sets this study
        already has: the pre-D RM's training data and D."""
        from pluralign.data import spec
        from pluralign.report import Result, beside_paper
        from pluralign.seal import plots
        from pluralign.seal.paper import paper_rows
        from pluralign.seal.preference_sets import resistance_by_dataset

        sets = [spec.from_spec(s) for s in data] if data else [*self.other_parts, self.D]
        table = resistance_by_dataset(
            sets,
            {"pre-D RM": self.rms.pre, "post-D RM": self.rms.post},
            scoring_input=self.settings.get("scoring_input"),
        ).reset_index()
        p = paper_rows("§6")
        paper = pd.DataFrame(
            {"data set": p["row"].map(lambda r: {"web-gpt": "webgpt"}.get(r, r)), "a₋": p["value"].to_numpy()}
        )
        out = beside_paper(
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
        own = not data
        note = (
            "The paper reports a₋ on web-gpt and summarize from feedback without naming the RM; its context (the "
            "pre-D RM's own training sets) suggests the pre-D RM. a₋ counts ties as misaligned (§ 2.2); 95% Wilson "
            "intervals. — : the paper reports nothing for that set."
        )
        if own:
            note += (
                " **This profile has neither set**: the table shows the same computation on the sets the study has "
                f"({', '.join(d.name for d in sets)}: the pre-D RM's training data and D); the `paper` profile "
                "lists webgpt_comparisons and summarize_from_feedback."
            )
        shown = out.loc[out["pairs"].notna(), "a₋"].unstack("RM")
        fig = plots.bars(shown, ylabel="alignment resistance a₋", title="resistance per preference set")
        return Result(
            table=out,
            figure=fig,
            paper=p,
            note=note,
            values={
                "n_other_sets": len(sets),
                **{f"paper_a_minus_{r.replace('-', '_')}": f"{100 * v:.0f}%" for r, v in zip(p["row"], p["value"])},
            },
        )

    # ---- robustness page
    def rewriting(self) -> RewriteRun | None:
        """The § 2.3 rewriting of a random subset of D (``n_rewrite`` pairs, or ``rewrite_share`` of them),
        computed once: the demo's simulated rewrites (``rewriter="simulator"``,
        :func:`~pluralign.seal.simulated_rewrites.simulated_rewrite_pairs`) or an LM's
        (:func:`~pluralign.seal.robustness.rewrite_pairs`, with the ``labeller``), with δ and δ̂ of the post-D RM
        (``before``, ``after``; :func:`~pluralign.seal.robustness.aligned_before_after`), as a :class:`RewriteRun`.
        None when no rewriter."""
        if "rewriting" in self._memo:
            return self._memo["rewriting"]
        from pluralign.seal.robustness import aligned_before_after, rewrite_pairs
        from pluralign.seal.simulated_rewrites import simulated_rewrite_pairs

        s, view = self.settings, self.view
        rewriter = s.get("rewriter")
        out = None
        if rewriter is not None:
            n_rw, share = s.get("n_rewrite"), s.get("rewrite_share")
            n = min(int(n_rw) if n_rw is not None else max(1, int(round(float(share) * len(view)))), len(view))
            idx = np.sort(np.random.default_rng(self.seed).choice(len(view), size=n, replace=False))
            sub = view.iloc[idx].reset_index(drop=True)
            if rewriter == "simulator":
                rp = simulated_rewrite_pairs(sub, seed=self.seed, p_flip=s.get("p_flip", 0.25))
            else:
                from pluralign import llm

                rp = rewrite_pairs(sub, llm.load(**rewriter), llm.load(**s["labeller"]))
            before, after = aligned_before_after(
                self.rms.post, rp.originals, rp.rewritten, rp.prompts, scoring_input=s.get("scoring_input", "seal")
            )
            out = RewriteRun(idx=idx, rewrites=rp, before=before, after=after)
        self._memo["rewriting"] = out
        return out

    def rewrite_summary(self):
        """Pairs drawn, dropped (a rewrite failed SEAL's checks; by reason in the note) and kept, and the
        post-D RM's a₊ on them before and after rewriting, beside the paper's (§ 2.3)."""
        from pluralign.report import MISSING, Result
        from pluralign.seal.paper import paper_value
        from pluralign.seal.resistance import aligned

        rw = self.rewriting()
        if rw is None:
            return Result(
                table=None,
                skipped=(
                    "rewriting needs an instruction-tuned LM (or the demo's planted flips). With an "
                    "OpenAI-compatible endpoint, set the `rewriter` and `labeller` parameters (`pluralign.llm.load` "
                    "arguments) and this section runs `seal.robustness.rewrite_pairs(pairs, rewriter, labeller)`: the "
                    "App. C.5 prompt on both entries, only pairs whose two rewrites pass the checks kept (the others "
                    "counted), both versions re-featurized with `keys=REWRITE_FEATURES`, and `label_flips`; then "
                    "`aligned_before_after`, `embed.cosine_pairs`, `similarity_by_flip` and `robustness_scores` as on "
                    "the `demo` page."
                ),
            )
        before, after, rp = rw.before, rw.after, rw.rewrites
        share = paper_value("§2.3", "rewritten pairs", "share of D")
        table = pd.DataFrame(
            {
                "this run": np.array(
                    [
                        len(rw.idx),
                        rp.n_dropped,
                        len(rp.kept),
                        *[round(float(x.mean()), 3) if len(x) else MISSING for x in (before, after)],
                    ],
                    dtype=object,
                ),
                "paper": [f"{share:.0%} of D", "—", "—", "—", paper_value("§2.3", "post-D RM", "a₊ after rewriting")],
            },
            index=[
                "pairs drawn for rewriting",
                "dropped: a rewrite failed its checks",
                "pairs kept",
                "post-D a₊ on them, original",
                "post-D a₊ after rewriting",
            ],
        )
        note = []
        if rp.n_dropped:
            note.append(
                rp.dropped.rename_axis("rewrite status (chosen / rejected)").to_frame("pairs dropped").pipe(_table_md)
            )
        if rp.prompts is None and len(rp.kept):
            # the dialogues are re-split into (history, reply) for scoring; check this reproduces the data set's pairs
            (qc, qr), i = self._rewards("post"), rw.idx[rp.kept]
            same = aligned(qc[i], qr[i])
            note.append(
                f"Re-scoring the original dialogues gives the same δ as the data set's (history, reply) "
                f"pairs on {np.mean(same == before):.3f} of the kept pairs."
            )
        miss = sum(int(f.isna().all(axis=1).sum()) for f in rp.flips.values())
        if miss:
            from pluralign.report import warning

            total = sum(len(f) for f in rp.flips.values())
            note.insert(
                0,
                warning(
                    f"The labeller gave no valid label (no answer that parses as JSON and fits the "
                    f"schema) for the original or the rewrite of {miss} of {total} rewritten entries: "
                    "they have no label flips and are left out of the flip shares and the robustness "
                    "scores" + (" (so both have no estimate here)." if miss == total else ".")
                ),
            )
        return Result(table=table, note="\n\n".join(note))

    def _no_flips(self, rw: RewriteRun, values: dict | None = None):
        """A robustness section with nothing to estimate from: no rewritten pair was kept, or no kept entry has a
        label flip because the labeller's labels of the originals or the rewrites failed (App. D.6). Returns a
        skipped :class:`~pluralign.report.Result` that counts them and still glues ``values``; None when some entry
        has flips."""
        from pluralign.report import Result

        rp = rw.rewrites
        if not rp.n_kept:
            why = (
                f"no pair was kept of the {rp.n_pairs} drawn for rewriting ({rp.n_dropped} dropped: a rewrite "
                "failed its checks; by reason in the rewriting section), so there is nothing to label"
            )
        else:
            miss = {e: int(f.isna().all(axis=1).sum()) for e, f in rp.flips.items()}
            total = sum(len(f) for f in rp.flips.values())
            if sum(miss.values()) < total:
                return None
            why = (
                f"the labeller gave no valid label (no answer that parses as JSON and fits the schema) for the "
                f"original or the rewrite of {sum(miss.values())} of {total} rewritten entries, so no entry has a "
                "label flip"
            )
        return Result(table=None, values=dict(values or {}), skipped=f"no estimate: {why}.")

    def label_flips(self):
        """Label flips of the rewritten entries (App. D.6, Fig. 12) and the cosine similarity of original and
        rewrite by flip (App. D.7, Table 3), one row per (entry, feature, flip)."""
        from pluralign import embed
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.robustness import flip_shares, similarity_by_flip

        rw = self.rewriting()
        if rw is None:
            return Result(table=None, skipped="no rewriting on this profile.")
        none = self._no_flips(rw)
        if none is not None:
            return none
        flips, model = rw.rewrites.flips, self.settings.get("similarity_model")
        shares = pd.concat({e: flip_shares(flips[e]) for e in flips}, names=["entry"])
        cos = {e: embed.cosine_pairs(rw.rewrites.originals[e], rw.rewrites.rewritten[e], model=model) for e in flips}
        sim = pd.concat({e: similarity_by_flip(cos[e], flips[e]) for e in flips}, names=["entry"])
        long = shares.drop(columns="n").stack().rename("share of entries")
        long.index = long.index.set_names("flip", level=-1)
        table = pd.concat(
            [long, sim.rename(columns={"mean": "cosine mean", "sd": "cosine sd", "n": "entries"})], axis=1
        ).sort_index()
        # Table 3 on the same rows: the paper's mean cosine for the features it reports (helpful, harmless,
        # coherent, eloquent, sentiment; named without SEAL's "last_response_(is_)" prefix)
        from pluralign.seal.paper import paper_rows

        p3 = paper_rows("Table 3").set_index(["row", "column"])["value"]
        col = "cosine mean (paper, Table 3)"
        table.insert(
            table.columns.get_loc("cosine mean"),
            col,
            [
                p3.get(
                    (
                        f.removeprefix("last_response_").removeprefix("is_"),
                        f"{e}, flip {int(lv):+d}" if int(lv) else f"{e}, flip 0",
                    ),
                    np.nan,
                )
                for e, f, lv in table.index
            ],
        )
        both = sorted({f for (e, f, lv), v in table[col].items() if pd.notna(v)})
        note = (
            f"The paper's Table 3 (mean BGE-m3 cosine of original and rewrite) stands beside this run's mean on the "
            f"same row for the features both have ({', '.join(both) or 'none'}); — in its column: the paper "
            "reports only helpful, harmless, coherent, eloquent and sentiment (its full table is below)."
        )
        return Result(
            table=table.round(3),
            figure=plots.flip_shares_figure(shares, list(flips)),
            note=note,
            data={"shares": shares, "similarity": sim},
        )

    def robustness(self):
        """Robustness scores π (Eq. 4, Table 8, Fig. 5; :func:`~pluralign.seal.robustness.robustness_scores`) of the
        rewritten pairs in both variants, on the paper's Table 8 rows (:func:`~pluralign.seal.compare.on_paper_rows`,
        with a verdict from the 95% CI): the
        linear probability model of SEAL's code (OLS on the 0/1 event, standard errors clustered by pair; Table 8's
        scale) and the logit of Eq. 4 as written. The page's ``robustness_model`` is plotted; in the logit, flip
        categories with complete separation (or a huge SE in a fit that did not converge) have no finite estimate:
        shown as "did not converge (separation)" and not plotted."""
        from pluralign.report import Result
        from pluralign.seal import plots
        from pluralign.seal.features import TARGET_FEATURES
        from pluralign.seal.paper import reported
        from pluralign.seal.robustness import robustness_scores

        rw = self.rewriting()
        if rw is None:
            return Result(table=None, skipped="no rewriting on this profile.")
        from pluralign.report import MISSING

        none = self._no_flips(
            rw,
            values={
                "robustness_model": VARIANT_NAMES[self.settings.get("robustness_model", "linear")],
                "n_pi_separated": MISSING,
            },
        )
        if none is not None:
            return none
        flips = rw.rewrites.flips
        feats = [c for c in flips["chosen"].columns if c not in TARGET_FEATURES]
        args = (rw.before, rw.after, flips["chosen"], flips["rejected"], feats)
        unchanged = [u for u in TARGET_FEATURES if u in flips["chosen"].columns]
        pair_ids = self.view["pair_id"].to_numpy()[rw.idx[rw.rewrites.kept]]
        fits = {
            "linear": robustness_scores(*args, unchanged=unchanged, model="linear", groups=pair_ids),
            "logit": robustness_scores(*args, unchanged=unchanged, model="logit"),
        }
        main = self.settings.get("robustness_model", "linear")
        fit = fits[main]
        pi = fit.table
        from pluralign.paper.seal import flip_label
        from pluralign.seal.compare import NOT_CONVERGED, no_finite_estimate, on_paper_rows

        lg = fits["logit"].table
        bad_keys = no_finite_estimate(lg, fits["logit"].converged, lg.index[lg["separated"].to_numpy(bool)])
        shown = pi if main == "linear" else pi[~pi.index.isin(bad_keys)]
        xlabel = (
            "π: change in the probability of becoming misaligned (vs no flip)"
            if main == "linear"
            else "π: log-odds of becoming misaligned (vs no flip)"
        )
        fig = plots.coefficient_figure(
            {"π": shown},
            xlabel=xlabel,
            labels=dict(zip(shown.index, shown["name"])),
            title=f"robustness scores ({VARIANT_NAMES[main]}), ±2 SE; filled = significant after Bonferroni",
        )
        lpm, logit = "LPM (SEAL's code, Table 8's scale)", "logit (Eq. 4 as written)"
        ours = pd.concat(
            [
                pd.DataFrame(
                    {
                        "feature": [f for _, f, _ in t.index],
                        "group": [flip_label(e, lv) for e, _, lv in t.index],
                        "variant": label,
                        "estimate": t["estimate"].to_numpy(float),
                        "std_error": t["std_error"].to_numpy(float),
                        "status": [NOT_CONVERGED if m == "logit" and k in bad_keys else None for k in t.index],
                        "pairs flipped / became misaligned": [
                            f"{int(a):,} / {int(b):,}" for a, b in zip(t["n_flipped"], t["n_misaligned"])
                        ],
                    }
                )
                for m, label, t in (("linear", lpm, fits["linear"].table), ("logit", logit, lg))
            ],
            ignore_index=True,
        )
        p8 = reported("Table 8").table.reset_index()
        paper8 = pd.DataFrame(
            {"feature": p8["feature"], "group": p8["score"], "estimate": p8["estimate"], "se": p8["std_error"]}
        )
        groups = list(dict.fromkeys(list(paper8["group"]) + list(ours["group"])))
        table, long = on_paper_rows(
            ours,
            paper8,
            feats,
            paper_order=list(dict.fromkeys(paper8["feature"])),
            groups=groups,
            variants=[lpm, logit],
            source="rewritten feature",
            n=fit.n_pairs,
            group_name="score",
            extra=["pairs flipped / became misaligned"],
        )
        n_sep = len(bad_keys)
        note = (
            f"{fit.n_pairs} pairs enter the regression; {fit.misalignment_rate:.3f} of them went from aligned to "
            "misaligned. Rows are Table 8's features and scores (π^c_+: the chosen entry lost the feature in "
            "the rewrite, flip +1; π^r_-: the rejected entry gained it, flip −1; …). **LPM** (SEAL's code, Table 8's scale): OLS of "
            "the 0/1 event on the flip categories, standard errors clustered by pair, π a change in probability. "
            "**logit**: Eq. 4 as written, π in log-odds; its signs compare, its magnitudes do not. "
            + (
                f"{n_sep} logit term{'s' if n_sep != 1 else ''} {'have' if n_sep != 1 else 'has'} no finite "
                "estimate (no misaligned pair among its flips, or only misaligned ones: separation) and read"
                f'{"" if n_sep != 1 else "s"} "{NOT_CONVERGED}"; not plotted. '
                if n_sep
                else "Every logit term has a finite estimate (no separation). "
            )
            + "The verdict compares the sign of this run's 95% CI with the paper's estimate (Table 8 reports raw "
            "p-values). — in this run's cells: a feature this run does not rewrite; rows after the paper's: "
            "rewritten features with no paper value. With a few hundred rewritten pairs the estimates are wide; "
            "their signs can be read against the post-D imprints of the planted features on the "
            "{ref}`feature-imprint page <seal-imprint>`."
        )
        return Result(
            table=table,
            figure=fig,
            note=note,
            paper=paper8,
            data={"scores": fit, "fits": fits, "long": long, "separated": sorted(bad_keys)},
            values={"robustness_model": VARIANT_NAMES[main], "n_pi_separated": n_sep},
        )


def _load_args(value, models: dict | None, what: str):
    """A model parameter resolved against the profile's ``models:`` (:func:`pluralign.params.named_model`);
    an entry written as ``{load: {...}, ...}`` gives its ``load`` arguments."""
    from pluralign.params import named_model

    out = named_model(value, models, what=what)
    return out["load"] if isinstance(out, dict) and "load" in out else out


def setup(
    design: dict | None = None,
    *,
    features: str | None = None,
    labeller=None,
    models: dict | None = None,
    profile: str | None = None,
    seed: int = 0,
    stability_labellers=None,
    stability_share: float = 0.01,
    rewriter=None,
    n_rewrite: int | None = None,
    rewrite_share: float | None = None,
    p_flip: float = 0.25,
    similarity_model: str | None = None,
    labeller_rule: str = "harmless_first",
    robustness_model: str = "linear",
) -> Study:
    """The SEAL study every Part II page starts from, from the page's parameters.

    ``design`` (``params/<profile>/seal-study.yml``; None: :data:`DEMO_STUDY`) holds ``data`` and
    ``other_data`` (data specs of :func:`pluralign.load`; ``other_data`` a list, combined), ``reward_models``
    (named pre-D / post-D models: ``{"pre": ..., "post": ...}``, :func:`pluralign.rewards.load` arguments or
    keys of ``models``) or the ``train`` and ``base_model`` of this project's own pair
    (:func:`alignment_models`). ``features`` (``"planted"``, ``"rules"``, ``"llm"``; :func:`entry_features`)
    with ``labeller`` (:func:`pluralign.llm.load` arguments or a key of ``models``) for ``"llm"``. The other
    arguments are the pages' settings: ``stability_labellers`` / ``stability_share`` (App. D.5), ``rewriter``
    (``"simulator"``, LM arguments or None), ``n_rewrite`` or ``rewrite_share``, ``p_flip`` and
    ``similarity_model`` (§ 2.3), ``labeller_rule`` (γ of App. D.4: ``"harmless_first"`` as SEAL's code,
    ``"helpful_first"`` as its text and Table 2; :data:`LABELLER_RULES`) and ``robustness_model`` (Eq. 4 /
    Table 8: ``"linear"``, the linear probability model of SEAL's code, or ``"logit"``, Eq. 4 as written). The
    design's ``scoring_input`` (:func:`~pluralign.seal.scoring.scoring_inputs`) says what the RMs score:
    ``"seal"`` (SEAL's code's (history, reply) split; the default with named reward models) or ``"prompt_reply"``
    (the default for this project's own pair, scored on what it was trained on). Models, rewards and labels are cached on disk, so
    the four pages share one computation."""
    if labeller_rule not in LABELLER_RULES:
        raise ValueError(f"seal.setup: labeller_rule must be one of {sorted(LABELLER_RULES)}, got {labeller_rule!r}")
    if robustness_model not in ("linear", "logit"):
        raise ValueError(f"seal.setup: robustness_model must be 'linear' or 'logit', got {robustness_model!r}")
    if rewriter not in (None, "simulator") and not labeller:
        raise ValueError(
            "rewriter needs a labeller too: § 2.3 re-labels every rewrite with the LM-labeller "
            "(set labeller: pluralign.llm.load arguments or a key of models)"
        )
    from pluralign.data import spec

    d = dict(DEMO_STUDY if design is None else design)
    unknown = set(d) - set(DEMO_STUDY)
    if unknown:
        raise ValueError(f"seal.setup: unknown design key(s) {sorted(unknown)}; expected {sorted(DEMO_STUDY)}")
    reward_models = d.get("reward_models")
    if reward_models is not None:
        reward_models = {k: _load_args(v, models, f"reward_models.{k}") for k, v in reward_models.items()}
    labeller = _load_args(labeller, models, "labeller")
    D = spec.from_spec(d["data"])
    other_parts = [spec.from_spec(s) for s in d.get("other_data") or []]
    other = combine(*other_parts, name="other data") if other_parts else None
    pairs = chosen_rejected(D)
    view = pairs.table
    rms = alignment_models(D, other, models=reward_models, train=d.get("train"), base=d.get("base_model"))
    from pluralign.seal.design import default_scoring_input
    from pluralign.seal.scoring import SCORING_INPUTS

    scoring_input = d.get("scoring_input") or default_scoring_input(rms)
    if scoring_input not in SCORING_INPUTS:
        raise ValueError(f"seal.setup: design scoring_input must be one of {SCORING_INPUTS}, got {scoring_input!r}")
    R = alignment_rewards(D, rms=rms, scoring_input=scoring_input)
    F = None
    if features is not None:
        llm = None
        if features == "llm":
            if not labeller:
                raise ValueError("features: llm needs a labeller (pluralign.llm.load arguments)")
            from pluralign import llm as _llm

            llm = _llm.load(**labeller)
        F = entry_features(D, view, features, llm=llm)
    stability_labellers = [_load_args(x, models, "stability_labellers") for x in stability_labellers or []]
    settings = {
        "labeller": labeller,
        "stability_labellers": stability_labellers,
        "stability_share": stability_share,
        "rewriter": rewriter if rewriter in (None, "simulator") else _load_args(rewriter, models, "rewriter"),
        "n_rewrite": n_rewrite,
        "rewrite_share": rewrite_share,
        "p_flip": p_flip,
        "similarity_model": similarity_model,
        "scoring_input": scoring_input,
        "labeller_rule": labeller_rule,
        "robustness_model": robustness_model,
    }
    return Study(
        D=D,
        other=other,
        other_parts=other_parts,
        view=view,
        rms=rms,
        R=R,
        F=F,
        stand_ins=study_stand_ins(reward_models, F),
        n_ties_dropped=pairs.n_ties_dropped,
        n_splits_dropped=pairs.n_splits_dropped,
        profile=profile,
        seed=seed,
        settings=settings,
    )
