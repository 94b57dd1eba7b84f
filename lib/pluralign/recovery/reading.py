"""The recovery table as a reader sees it: a display name for every row (the command line's CSV keeps the keys),
verdict words per kind of row, what each part of the book can be trusted for, and the folded details (each row's
description, criterion, resampling unit and null method)."""

from __future__ import annotations

import re

import pandas as pd

from pluralign import presentation
from pluralign.recovery.rows import KINDS, NULL_REPS

__all__ = ["NAMES", "SWEEP_NAMES", "PARTS", "name", "verdict_word", "part_reading", "shown_table", "details"]

#: every row's display name, by its key
NAMES = {
    "diverging_share": "Agreement classes (§2, §3): every class against the planted votes",
    "diverging_taste_driven": "Agreement classes (§2): taste-driven share of the diverging pairs",
    "cause_agreement": "Cause labeller (surface rules) against the planted causes",
    "meanvar_auroc_diverging": "Mean-variance RM: taste-driven against single-answer pairs",
    "rm_accuracy_high_agreement": "BT reward model: accuracy where the population agrees",
    "rm_utility_correlation": "BT reward model: reward gap against the planted utility gap",
    "claim_mv_identifies_diverging": "§4: the mean-variance RM tells diverging pairs apart",
    "claim_bt_decisive_on_diverging": "§3: a BT RM is as decisive on diverging pairs",
    "imprint_weights": "SEAL Eq. 1 imprints (planted features)",
    "imprint_text_weights": "SEAL Eq. 1 imprints (featurizer's readings)",
    "imprint_rm_weight_correlation": "SEAL Eq. 1 imprints of the trained RM",
    "resistance_regimes": "SEAL Eq. 3 and Table 1's regimes",
    "robustness_scores": "SEAL Eq. 4 robustness scores",
    "robustness_rm_sign": "SEAL Eq. 4 signs of the trained post-D RM",
    "claim_seal_alignment_shift": "SEAL §3: training on D aligns the RM with D",
    "margin_pstar_correlation": "Beyond the Binary Eq. 3 margins",
    "subjectivity_category_accuracy": "Beyond the Binary §3.1 categories",
    "claim_margin_improves_pstar": "Beyond the Binary Table 1: margin regularization tracks p* better",
}

#: the sweeps' display names (:data:`pluralign.recovery.sweeps.SWEEPS`)
SWEEP_NAMES = {
    "diverging_share": NAMES["diverging_share"],
    "margin_pstar_correlation (noise)": "Beyond the Binary Eq. 3 margins, along the judge's noise",
    "margin_pstar_correlation (n)": "Beyond the Binary Eq. 3 margins, along the judgments per pair",
    "imprint_weights": NAMES["imprint_weights"],
    "robustness_scores": NAMES["robustness_scores"],
}

#: each claim row as a sentence says it ("the claim that … holds on this population")
CLAIMS = {
    "claim_mv_identifies_diverging": "the mean-variance RM tells diverging pairs apart (§4)",
    "claim_bt_decisive_on_diverging": "a BT RM is as decisive on diverging as on high-agreement pairs (§3)",
    "claim_seal_alignment_shift": "training on D aligns the RM with D (§3)",
    "claim_margin_improves_pstar": "margin regularization makes an RM track p* better (Table 1)",
}

#: the book's parts, by the table's ``part``
PARTS = {"diverging": "Part I (Diverging Preferences)", "seal": "Part II (SEAL)", "btb": "Part III (Beyond the Binary)"}

#: a row's verdict in words, by kind and by whether it passed
WORDS = {
    "method": ("passes", "fails"),
    "stand-in": ("reaches its bar", "falls short of its bar"),
    "claim": ("holds", "does not hold"),
    "plumbing": ("wired through", "not wired through"),
}


def name(key: str) -> str:
    """A row's display name (:data:`NAMES`; a row without one keeps its key with spaces for underscores)."""
    return NAMES.get(key, key.replace("_", " "))


def verdict_word(kind: str, ok: bool) -> str:
    """A row's verdict in words (:data:`WORDS`): a claim "holds" or "does not hold" on this population."""
    return WORDS[kind][0 if ok else 1]


def _names(rows: pd.DataFrame, singular: str = "", plural: str = "") -> str:
    """The rows' display names in a list ("A, B and C"), followed by ``singular`` or ``plural`` as they are one
    or more."""
    names = [name(q) for q in rows["quantity"]]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = singular if len(names) == 1 else plural
    return f"{listed} {verb}" if verb else listed


def part_reading(t: pd.DataFrame, part: str) -> str:
    """What ``part`` of the book can be trusted for, in one sentence from its rows of the recovery table ``t``:
    whether its methods pass their checks, whether its stand-in models reach their bars (numbers built on one
    that does not describe the stand-in, not the paper's model), which of the paper's claims hold on this
    population."""
    p = t[t["part"] == part]
    m, s, c = (p[p["kind"] == k] for k in ("method", "stand-in", "claim"))
    if len(m) == 0:
        said = "no method of this part has a planted truth to check"
    elif m["recovered"].all():
        count = {1: "its one method check passes", 2: "both of its method checks pass"}
        said = count.get(len(m), f"all {len(m)} of its method checks pass") + (
            ", so its methods can be trusted on data like these"
            if len(m) > 1
            else ", so its method can be trusted on data like these"
        )
    else:
        said = (
            f"{int(m['recovered'].sum())} of its {len(m)} method checks pass "
            f"({_names(m[~m['recovered']], 'fails', 'fail')}), so read the numbers from a failing method with care"
        )
    if len(s):
        short = s[~s["recovered"]]
        said += (
            "; its stand-in models all reach their bars"
            if short.empty
            else f"; {_names(short, 'falls short of its bar', 'fall short of their bars')}, so the numbers built "
            + (
                "on it describe the demo's stand-in, not the paper's model"
                if len(short) == 1
                else "on them describe the demo's stand-ins, not the paper's models"
            )
        )
    if len(c):
        said += "; on this simulated population, " + "; ".join(
            f"the claim that {CLAIMS.get(q, name(q))} {'holds' if ok else 'does not hold'}"
            for q, ok in zip(c["quantity"], c["recovered"])
        )
    return said + "."


def shown_table(t: pd.DataFrame) -> pd.DataFrame:
    """The recovery table as the page shows it: per row (by kind, then the table's order) its display name, the
    truth it is checked against, the estimate with its 95 % interval, what the verdict reads (at the criterion's
    own level, where it reads other intervals or bands than the 95 % one against the truth) and the verdict in
    words."""
    order = {k: i for i, k in enumerate(KINDS)}
    t = t.assign(_order=t["kind"].map(order)).sort_values("_order", kind="stable")
    return pd.DataFrame(
        {
            "kind": t["kind"].to_numpy(),
            "row": [name(q) for q in t["quantity"]],
            "truth": [presentation.fmt_fixed(v, 3) for v in t["planted"]],
            "estimate [95% CI]": presentation.intervals(t["estimate"], t["ci_low"], t["ci_high"], decimals=3),
            "what the verdict reads": [readable(r or c) for r, c in zip(t["reads"].fillna(""), t["criterion"])],
            "verdict": [verdict_word(k, ok) for k, ok in zip(t["kind"], t["recovered"])],
        }
    ).set_index(["kind", "row"])


#: each row's null method where it is not noise with plausible intervals (:func:`_null`)
NULLS = {
    "diverging_share": "the classifier's output given to permuted pairs",
    "diverging_taste_driven": "the classifier's output given to permuted pairs",
    "resistance_regimes": "Table 1's labeller on pairs permuted between the pre-D and post-D RMs, Eq. 3's estimates "
    "around 0 at the method's own standard errors",
    "margin_pstar_correlation": "the margins permuted over the pairs",
}


def _null(p: float, quantity: str = "") -> str:
    """How often a null method passed a row, as a count of :data:`~pluralign.recovery.rows.NULL_REPS` draws, with
    the row's null named (:data:`NULLS`; noise with plausible intervals otherwise)."""
    if p != p:
        return ""
    what = NULLS.get(quantity, "noise with plausible intervals")
    return f"; a null method ({what}) passed it {round(p * NULL_REPS)} of {NULL_REPS} times"


#: a code identifier in a row's text (a feature's name): shown by its display name
_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def readable(text: str) -> str:
    """A row's text with every feature identifier replaced by its display name
    (:func:`pluralign.seal.compare.display_name`: ``last_response_is_refusal`` reads "refusal")."""
    from pluralign.seal.display import display_name

    return _IDENTIFIER.sub(lambda m: display_name(m.group(0)), str(text))


def details(t: pd.DataFrame) -> str:
    """Every row's description, criterion, resampling unit and null method, folded under the table (Markdown)."""
    items = "\n".join(
        f"- **{name(q)}** ({kind}): {readable(d)}. *Criterion*: {readable(cr)} (95 % interval: {iv}{_null(p, q)})."
        for q, kind, d, cr, iv, p in zip(
            t["quantity"], t["kind"], t["description"], t["criterion"], t["interval"], t["null_pass"]
        )
    )
    return f":::{{dropdown}} What each row measures, its criterion and its null method\n{items}\n:::"
