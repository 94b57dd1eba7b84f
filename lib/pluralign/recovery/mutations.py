"""Broken variants of every method, run through the production checks on the demo's population at the demo's size:
each variant must make its row fail (a check that passes a broken method proves nothing). :data:`VARIANTS` names
them per method row; :func:`mutation_table` runs them on a :func:`~pluralign.recovery.demo.recovery_context`.

Common variants, applied to the method's output: ``sign`` (the estimate and its interval negated), ``zero`` (the
estimate replaced by 0 with the method's own interval width), ``noise`` (an estimate unrelated to the truth with
plausible intervals), ``se×3`` and ``se÷3`` (the interval widths scaled); and each row's own typical mistakes (for
SEAL Eq. 1: the pair fixed effects dropped, the small weights' signs flipped, two feature columns swapped, plain
OLS standard errors in place of the pair-clustered ones)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd

from pluralign.recovery.rows import without_null_passes

__all__ = [
    "COMMON",
    "VARIANTS",
    "MISSED_WHY",
    "shown",
    "BrokenFit",
    "broken_fit",
    "RelabelledFit",
    "signs_flipped",
    "columns_swapped",
    "eq1_ols_se",
    "THRESHOLDS",
    "broken_classes",
    "broken_judgments",
    "run_variant",
    "mutation_table",
]

#: the common variants of a method that reports estimates with intervals
COMMON = ("sign", "zero", "noise", "se×3", "se÷3")


def _broken_frame(t: pd.DataFrame, how: str, rng) -> pd.DataFrame:
    """A fit's table (``estimate``, ``ci_low``, ``ci_high``) broken as ``how`` (one of :data:`COMMON`)."""
    t = t.copy()
    e, lo, hi = (t[c].to_numpy(float) for c in ("estimate", "ci_low", "ci_high"))
    half = (hi - lo) / 2
    if how == "sign":
        e, lo, hi = -e, -hi, -lo
    elif how in ("zero", "noise"):
        e = np.where(np.isfinite(e), 0.0 if how == "zero" else rng.normal(0.0, np.nanstd(e), len(e)), np.nan)
        lo, hi = e - half, e + half
    elif how in ("se×3", "se÷3"):
        f = 3.0 if how == "se×3" else 1 / 3
        lo, hi = e - f * half, e + f * half
    else:
        raise ValueError(f"unknown variant {how!r}")
    t["estimate"], t["ci_low"], t["ci_high"] = e, lo, hi
    return t


class BrokenFit:
    """A method ``base`` (returning a dataclass with a ``table``) with its output broken as ``how`` (one of
    :data:`COMMON`): calling it fits and breaks; :meth:`breaks` breaks a table the method already gave, so a
    check that holds the method's fits of its draws breaks them without refitting (the same draws, in order, give
    the same broken tables). ``seed`` seeds the one generator that every call draws from (the ``noise``
    variant)."""

    def __init__(self, base, how: str, seed: int = 0):
        if how not in COMMON:
            raise ValueError(f"unknown variant {how!r}")
        self.base, self.how, self.rng = base, how, np.random.default_rng([seed, 77])

    def breaks(self, table: pd.DataFrame) -> pd.DataFrame:
        """The method's ``table`` broken as :attr:`how`."""
        return _broken_frame(table, self.how, self.rng)

    def __call__(self, *a, **k):
        out = self.base(*a, **k)
        return dataclasses.replace(out, table=self.breaks(out.table))


def broken_fit(fit, how: str, seed: int = 0) -> BrokenFit:
    """The method ``fit`` (returning a dataclass with a ``table``) with its output broken as ``how``."""
    return BrokenFit(fit, how, seed)


class RelabelledFit(BrokenFit):
    """A method ``base`` (returning a dataclass with a ``table`` indexed by feature) whose table is read wrongly
    after the fit: ``transform`` (a function of the table, returning the table as the broken method reports it).
    Like :class:`BrokenFit`, :meth:`breaks` breaks a table the method already gave."""

    def __init__(self, base, transform, how: str):
        self.base, self.transform, self.how = base, transform, how

    def breaks(self, table: pd.DataFrame) -> pd.DataFrame:
        """The method's ``table`` as the broken method reports it."""
        return self.transform(table.copy())


def signs_flipped(base, features) -> RelabelledFit:
    """SEAL Eq. 1 (``base``) with the sign of the imprints of ``features`` flipped (estimate and interval negated),
    e.g. every feature whose planted weight is smaller than 1 in size: a sign convention (chosen − rejected,
    harmless = 1 − harmful) applied wrongly to the small effects, which a correlation with the weights over all
    features does not see beside the large ones."""
    features = list(features)

    def flip(t):
        rows = t.index.isin(features)
        lo, hi = t.loc[rows, "ci_low"].to_numpy(), t.loc[rows, "ci_high"].to_numpy()
        t.loc[rows, "estimate"] = -t.loc[rows, "estimate"]
        t.loc[rows, "ci_low"], t.loc[rows, "ci_high"] = -hi, -lo
        return t

    return RelabelledFit(base, flip, "small signs flipped")


def columns_swapped(base, a: str, b: str) -> RelabelledFit:
    """SEAL Eq. 1 (``base``) fitted with the feature columns ``a`` and ``b`` swapped (each column under the other's
    name): least squares is equivariant to the order of its columns, so this is its table with the rows of ``a``
    and ``b`` exchanged, which is how it is computed."""

    def swap(t):
        t.loc[[a, b]] = t.loc[[b, a]].to_numpy()
        return t

    return RelabelledFit(base, swap, "columns swapped")


def eq1_ols_se(table, reward: str = "reward", features=None, pair: str = "pair_id", *, level: float = 0.95, **kw):
    """SEAL Eq. 1 as :func:`pluralign.seal.imprint.feature_imprint` fits it (pair fixed effects, the VIF filter)
    but with plain OLS standard errors (pyfixest ``vcov="iid"``) in place of the pair-clustered ones (CRV1): the
    mistake of a fit that forgets that the residuals of one pair's entries are not independent and that the model
    is an approximation. Same arguments and :class:`~pluralign.seal.imprint.ImprintFit`."""
    from scipy import stats as st

    from pluralign.seal.imprint import feature_imprint, import_pyfixest

    pf = import_pyfixest()

    fit = feature_imprint(table, reward, features, pair, level=level, **kw)
    t = fit.table.copy()
    kept = [f for f in t.index if np.isfinite(t.loc[f, "estimate"])]
    if not kept:
        return fit
    rows = getattr(table, "table", table)
    safe = {f: f"x{j}" for j, f in enumerate(kept)}
    data = pd.DataFrame({"reward": rows[reward].to_numpy(float), "pair": rows[pair].to_numpy()})
    for f in kept:
        data[safe[f]] = rows[f].to_numpy(float)
    m = pf.feols(f"reward ~ {' + '.join(safe.values())} | pair", data=data, vcov="iid")
    se = m.se()
    df_t = getattr(m, "_df_t", None)
    q = st.t.ppf(0.5 + level / 2, df_t) if df_t else st.norm.ppf(0.5 + level / 2)
    for f in kept:
        e, s = float(t.loc[f, "estimate"]), float(se[safe[f]])
        t.loc[f, ["std_error", "ci_low", "ci_high"]] = [s, e - q * s, e + q * s]
    return dataclasses.replace(fit, table=t, vcov="iid")


#: the agreement classifier's off-by-one mistakes (:func:`broken_classes`): each class's own threshold moved by one
#: judgment, as :func:`_reclassified` applies it
THRESHOLDS = {
    "diverging threshold +1": {"significant": 2},  # two significant judgments instead of one
    "diverging threshold −1": {"significant": 0},  # the filter of slight-only disagreements forgotten
    "high-agreement-pref threshold +1": {"rejections": 1},  # one judgment against the majority's choice allowed
    "high-agreement-pref threshold −1": {"pref_at_half": True},  # half the judgments for one side, none against
    "high-agreement-tie threshold −1": {"tie_at_half": True},  # half the judgments ties, not more than half
    "majority threshold −1": {"majority_at_half": True},  # `2 n_A >= n` for `2 n_A > n`, wherever the majority is read
}


def _reclassified(
    c: pd.DataFrame, *, significant=1, rejections=0, pref_at_half=False, tie_at_half=False, majority_at_half=False
):
    """The agreement classes (:func:`pluralign.diverging.agreement.agreement_classes`, ``ties="majority"``) of the
    per-pair counts in its output ``c`` (``n_a``, ``n_b``, ``n_tie``, ``n_significant``, ``substantial``), written
    as the library writes them but with one threshold moved: ``significant`` judgments of strength 2 needed to
    diverge, ``rejections`` judgments against the majority's choice allowed in a high-agreement preference, a
    high-agreement preference at half the judgments (``pref_at_half``), a tie class at half the judgments
    (``tie_at_half``), or a majority at half the judgments (``majority_at_half``:
    ``>=`` for ``>`` in the majority, which the high-agreement classes read)."""
    n_a, n_b, n_tie = (c[k].to_numpy(int) for k in ("n_a", "n_b", "n_tie"))
    n = n_a + n_b + n_tie
    div = (n_a >= 1) & (n_b >= 1) & (c["n_significant"].to_numpy(int) >= significant)
    more = (lambda k: 2 * k >= n) if majority_at_half else (lambda k: 2 * k > n)
    maj = np.full(len(c), "none", dtype=object)
    maj[more(n_a) & (n > 0)] = "A"
    maj[more(n_b) & (n > 0)] = "B"
    maj[more(n_tie) & (n > 0)] = "tie"
    if pref_at_half:
        pref = ((2 * n_a >= n) & (n_b <= rejections) | (2 * n_b >= n) & (n_a <= rejections)) & (n > 0)
    else:
        pref = ((maj == "A") & (n_b <= rejections)) | ((maj == "B") & (n_a <= rejections))
    tie = (2 * n_tie >= n) & (n > 0) if tie_at_half else maj == "tie"
    agreement = np.full(len(c), "other", dtype=object)
    agreement[tie & ~div] = "high-agreement-tie"
    agreement[pref & ~div] = "high-agreement-pref"
    agreement[div] = "diverging"
    return c.assign(agreement=agreement, majority=maj, substantial=c["substantial"].to_numpy(bool) & div)


def broken_classes(data, how: str, seed: int = 0, ties: str = "majority") -> pd.DataFrame:
    """The § 2 agreement classes of ``data`` (:func:`pluralign.diverging.agreement.agreement_classes`) broken:
    ``sign`` (diverging and not swapped: the class's complement), ``zero`` (no pair diverging), ``noise`` (pairs
    marked diverging at random at the method's own rate), ``votes shuffled`` (annotators' votes permuted across
    pairs before classifying), ``A/B swapped`` (every vote for A counted for B and back before classifying: the
    sign convention of the preference read the wrong way round, which leaves the diverging class as it is and
    moves the majority), or one of :data:`THRESHOLDS` (a class's own threshold off by one)."""
    from pluralign.diverging.agreement import agreement_classes

    rng = np.random.default_rng([seed, 78])
    if how in ("votes shuffled", "A/B swapped"):
        ann = data.annotations.copy()
        if how == "votes shuffled":
            cols = [c for c in ("preference", "likert_a", "likert_b") if c in ann]
            ann[cols] = ann[cols].to_numpy()[rng.permutation(len(ann))]
        else:
            ann["preference"] = -pd.to_numeric(ann["preference"], errors="coerce")
            if {"likert_a", "likert_b"} <= set(ann.columns):
                ann[["likert_a", "likert_b"]] = ann[["likert_b", "likert_a"]].to_numpy()
        return agreement_classes(dataclasses.replace(data, annotations=ann), ties=ties)
    c = agreement_classes(data, ties=ties)
    if how in THRESHOLDS:
        return _reclassified(c, **THRESHOLDS[how])
    div = (c["agreement"] == "diverging").to_numpy().copy()
    if how == "sign":
        div = ~div
    elif how == "zero":
        div[:] = False
    elif how == "noise":
        div = rng.random(len(div)) < div.mean()
    else:
        raise ValueError(f"unknown variant {how!r}")
    return c.assign(
        agreement=np.where(div, "diverging", np.where(c["agreement"] == "diverging", "other", c["agreement"]))
    )


def broken_judgments(j: pd.DataFrame, how: str, seed: int = 0, n: int | None = None) -> pd.DataFrame:
    """Beyond the Binary Eq. 3's judgments (``share_a``, ``margin`` per pair) broken: ``sign`` (the side reversed),
    ``zero`` (every margin 0), ``constant`` (every margin the mean margin), ``noise`` (margins permuted across
    pairs), ``mis-scaled`` (|k − n/2| / n: half of Eq. 3), ``one-sided`` (the margin kept only where A is
    favoured), ``n and k swapped`` (Eq. 3 written with the judge's n and k exchanged, |n − k/2| / (k/2), k the
    judgments for A of the ``n_valid`` valid ones, as :func:`pluralign.btb.margins.synthetic_judgments` counts them;
    without those columns k = share_a · ``n``)."""
    rng = np.random.default_rng([seed, 79])
    j = j.copy()
    m = j["margin"].astype(float)
    if how == "sign":
        j["share_a"] = 1 - j["share_a"].astype(float)
    elif how in ("zero", "constant"):
        j["margin"] = 0.0 if how == "zero" else float(m.mean())
    elif how == "noise":
        j["margin"] = m.to_numpy()[rng.permutation(len(m))]
    elif how == "mis-scaled":
        j["margin"] = m / 2
    elif how == "one-sided":
        j["margin"] = m.where(j["share_a"].astype(float) > 0.5, 0.0)
    elif how == "n and k swapped":
        if {"n_a", "n_valid"} <= set(j.columns):
            k, total = j["n_a"].astype(float), j["n_valid"].astype(float)
        else:
            total = pd.Series(float(n), index=j.index)
            k = j["share_a"].astype(float) * total
        with np.errstate(divide="ignore", invalid="ignore"):
            j["margin"] = (total - k / 2).abs() / (k / 2)
    else:
        raise ValueError(f"unknown variant {how!r}")
    return j


#: per method row, its broken variants (the common ones and the row's own typical mistake)
VARIANTS = {
    "diverging_share": ("sign", "zero", "noise", "votes shuffled", "A/B swapped", *THRESHOLDS),
    # the A/B swap and the high-agreement and majority thresholds leave the diverging class, all this row reads, as
    # it is, and the diverging class's own −1 (slight-only disagreements kept) moves the taste-driven share too little
    # for this row's two tests (missed at one of seeds 0-4): the diverging_share row checks them
    "diverging_taste_driven": ("sign", "zero", "noise", "votes shuffled", "diverging threshold +1"),
    "imprint_weights": (*COMMON, "no pair FE", "small signs flipped", "columns swapped", "OLS SEs"),
    "imprint_text_weights": (*COMMON, "no pair FE", "small signs flipped", "columns swapped", "OLS SEs"),
    "resistance_regimes": (*COMMON, "regimes swapped", "chosen and rejected swapped"),
    "robustness_scores": (*COMMON, "entries swapped"),
    "margin_pstar_correlation": ("sign", "zero", "constant", "noise", "mis-scaled", "one-sided", "n and k swapped"),
}


#: what is known about why a variant its rows do not catch is not caught (the page shows it beside a miss); empty
#: since the Eq. 1 rows hold the fit to its definition (plain OLS SEs were the last miss)
MISSED_WHY: dict[str, str] = {}


def _seal(ctx, quantity: str, how: str) -> dict:
    from pluralign.recovery import imprint_checks as I
    from pluralign.recovery import resistance_checks as Rs
    from pluralign.recovery import robustness_checks as Rb
    from pluralign.seal import imprint as imp
    from pluralign.seal import resistance as res
    from pluralign.seal import robustness as rob

    s, noise = ctx.seal, ctx.noise_sd
    _, _, data = ctx.demo_rm
    if quantity.startswith("imprint"):
        from pluralign.data.simulate import FEATURES

        if quantity == "imprint_weights":
            w = data.meta["weights"]["mean"].reindex(list(FEATURES))
        else:
            w = I.planted_text_weights(s.D, s.view)
        if how == "no pair FE":
            fit = imp.feature_imprint_seal_code
        elif how == "small signs flipped":  # every planted weight smaller than 1 in size
            fit = signs_flipped(imp.feature_imprint, w.index[w.abs() < 1])
        elif how == "columns swapped":  # the row's first two features
            fit = columns_swapped(imp.feature_imprint, *w.index[:2])
        elif how == "OLS SEs":
            fit = eq1_ols_se
        else:
            fit = broken_fit(imp.feature_imprint, how, s.seed)
        if quantity == "imprint_weights":
            return I.oracle_imprint(data, data.pairs["pair_id"], noise_sd=noise, seed=s.seed, fit=fit)
        return I.oracle_imprint_text(s.D, s.view, noise_sd=noise, seed=s.seed, fit=fit)
    if quantity == "resistance_regimes":
        if how == "regimes swapped":  # Table 1's conditions read with the pre-D and post-D indicators exchanged
            kw = {"regimes": lambda pc, pr, qc, qr: res.alignment_regimes(qc, qr, pc, pr)}
        elif how == "chosen and rejected swapped":  # δ read as r(t^r) > r(t^c) in both RMs: the sign convention
            kw = {"regimes": lambda pc, pr, qc, qr: res.alignment_regimes(pr, pc, qr, qc)}
        else:
            kw = {"regression": broken_fit(res.misalignment_regression, how, s.seed)}
        return Rs.oracle_resistance(s.D, s.view, s.other_parts, noise_sd=noise, seed=s.seed, **kw)
    if how == "entries swapped":  # the chosen entry's flips read as the rejected one's and back
        scores = lambda b, a, fc, fr, *x, **k: rob.robustness_scores(b, a, fr, fc, *x, **k)  # noqa: E731
    else:
        scores = broken_fit(rob.robustness_scores, how, s.seed)
    return Rb.oracle_robustness(s.D, s.view, noise_sd=noise, seed=s.seed, p_flip=s.settings.p_flip, scores=scores)


def run_variant(ctx, quantity: str, how: str) -> dict:
    """The row ``quantity`` of the demo table with its method broken as ``how``, through the production check."""
    from pluralign.recovery import btb_checks as B
    from pluralign.recovery import diverging_checks as D

    if quantity.startswith("diverging"):
        s = ctx.diverging
        data = s.data[0]
        check = D.diverging_share if quantity == "diverging_share" else D.diverging_taste_driven
        ties = s.settings.ties
        return check(broken_classes(data, how, s.seed, ties=ties), data, s.seed, ties=ties)
    if quantity == "margin_pstar_correlation":
        b = ctx.btb
        judge = b.settings.judge
        j = broken_judgments(b.judgments.reindex(b.ids), how, b.seed, n=judge.n)
        return B.margin_pstar_correlation(j, b.data.truth["share_a"], b.seed, noise=judge.noise, n=judge.n)
    return _seal(ctx, quantity, how)


def mutation_table(ctx) -> pd.DataFrame:
    """Every variant of :data:`VARIANTS` through its row's check on the context's studies: one row per (method
    row, variant) with the broken method's ``estimate``, ``caught`` (its row failed) and ``by`` (what failed it,
    :func:`_caught_by`)."""
    out = []
    for quantity, variants in VARIANTS.items():
        for how in variants:
            with warnings.catch_warnings(), without_null_passes():
                # a broken method (a zero or constant estimate, votes shuffled) gives degenerate bootstrap
                # replicates; numpy's warnings about them say nothing that the row's verdict does not
                warnings.simplefilter("ignore", RuntimeWarning)
                r = run_variant(ctx, quantity, how)
            caught = not r["recovered"]
            out.append(
                {"row": quantity, "variant": how, "estimate": r["estimate"], "caught": caught, "by": _caught_by(r)}
            )
    return pd.DataFrame(out)


def _caught_by(r: dict) -> str:
    """What failed a broken method's row: "tests" (a statistical test of the row, whether or not the definition
    check failed too), "definition" (only the check of the method's output against its definition: the agreement
    classes on each pair's own votes, Eq. 1 on its first draw; a row with that check says in ``tests_ok`` whether
    its statistical tests passed) or "" (the row passed)."""
    if r["recovered"]:
        return ""
    return "definition" if r.get("tests_ok", False) else "tests"


def shown(m: pd.DataFrame) -> pd.DataFrame:
    """The mutation table narrow enough for the text column: per method row the common variants of :data:`COMMON`
    as columns ("yes": caught by the row's statistical tests, "def.": by the check against the method's definition
    alone, "MISSED", or "·" where the variant does not apply) and the row's own mistakes in one column, each named
    with its verdict."""
    cell = m.assign(v=m["by"].map({"tests": "yes", "definition": "def.", "": "MISSED"}))
    common = cell[cell["variant"].isin(COMMON)].pivot(index="row", columns="variant", values="v")
    common = common.reindex(index=list(VARIANTS), columns=list(COMMON)).fillna("·")
    own = cell[~cell["variant"].isin(COMMON)].groupby("row", sort=False)
    common["own mistakes"] = pd.Series(
        {r: "; ".join(f"{a}: {b}" for a, b in zip(g["variant"], g["v"])) for r, g in own}
    )
    return common.rename_axis(index="method row", columns=None)
