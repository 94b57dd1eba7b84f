"""Broken variants of every method, run through the production checks on the demo's population at the demo's size:
each variant must make its row fail (a check that passes a broken method proves nothing). :data:`VARIANTS` names
them per method row; :func:`mutation_table` runs them on a :func:`~pluralign.recovery.demo.recovery_context`.

Common variants, applied to the method's output: ``sign`` (the estimate and its interval negated), ``zero`` (the
estimate replaced by 0 with the method's own interval width), ``noise`` (an estimate unrelated to the truth with
plausible intervals), ``se×3`` and ``se÷3`` (the interval widths scaled); and each row's own typical mistake."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd

from pluralign.recovery.rows import without_null_passes

__all__ = [
    "COMMON",
    "VARIANTS",
    "shown",
    "BrokenFit",
    "broken_fit",
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


def broken_classes(data, how: str, seed: int = 0, ties: str = "majority") -> pd.DataFrame:
    """The § 2 agreement classes of ``data`` (:func:`pluralign.diverging.agreement.agreement_classes`) broken:
    ``sign`` (diverging and not swapped), ``zero`` (no pair diverging), ``noise`` (pairs marked diverging at random
    at the method's own rate), ``votes shuffled`` (annotators' votes permuted across pairs before classifying),
    ``threshold +1`` (diverging needs two significant votes instead of one)."""
    from pluralign.diverging.agreement import agreement_classes

    rng = np.random.default_rng([seed, 78])
    if how == "votes shuffled":
        ann = data.annotations.copy()
        cols = [c for c in ("preference", "likert_a", "likert_b") if c in ann]
        ann[cols] = ann[cols].to_numpy()[rng.permutation(len(ann))]
        return agreement_classes(dataclasses.replace(data, annotations=ann), ties=ties)
    c = agreement_classes(data, ties=ties)
    div = (c["agreement"] == "diverging").to_numpy().copy()
    if how == "sign":
        div = ~div
    elif how == "zero":
        div[:] = False
    elif how == "noise":
        div = rng.random(len(div)) < div.mean()
    elif how == "threshold +1":
        div = div & (c["n_significant"] >= 2).to_numpy()
    else:
        raise ValueError(f"unknown variant {how!r}")
    return c.assign(
        agreement=np.where(div, "diverging", np.where(c["agreement"] == "diverging", "other", c["agreement"]))
    )


def broken_judgments(j: pd.DataFrame, how: str, seed: int = 0) -> pd.DataFrame:
    """Beyond the Binary Eq. 3's judgments (``share_a``, ``margin`` per pair) broken: ``sign`` (the side reversed),
    ``zero`` (every margin 0), ``constant`` (every margin the mean margin), ``noise`` (margins permuted across
    pairs), ``mis-scaled`` (|k − n/2| / n: half of Eq. 3), ``one-sided`` (the margin kept only where A is
    favoured)."""
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
    else:
        raise ValueError(f"unknown variant {how!r}")
    return j


#: per method row, its broken variants (the common ones and the row's own typical mistake)
VARIANTS = {
    "diverging_share": ("sign", "zero", "noise", "votes shuffled", "threshold +1"),
    "diverging_taste_driven": ("sign", "zero", "noise", "votes shuffled", "threshold +1"),
    "imprint_weights": (*COMMON, "no pair FE"),
    "imprint_text_weights": (*COMMON, "no pair FE"),
    "resistance_regimes": (*COMMON, "regimes swapped"),
    "robustness_scores": (*COMMON, "entries swapped"),
    "margin_pstar_correlation": ("sign", "zero", "constant", "noise", "mis-scaled", "one-sided"),
}


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
        fit = imp.feature_imprint_seal_code if how == "no pair FE" else broken_fit(imp.feature_imprint, how, s.seed)
        if quantity == "imprint_weights":
            return I.oracle_imprint(data, data.pairs["pair_id"], noise_sd=noise, seed=s.seed, fit=fit)
        return I.oracle_imprint_text(s.D, s.view, noise_sd=noise, seed=s.seed, fit=fit)
    if quantity == "resistance_regimes":
        if how == "regimes swapped":  # Table 1's conditions read with the pre-D and post-D indicators exchanged
            kw = {"regimes": lambda pc, pr, qc, qr: res.alignment_regimes(qc, qr, pc, pr)}
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
        return check(broken_classes(data, how, s.seed, ties=s.settings.ties), data, s.seed)
    if quantity == "margin_pstar_correlation":
        b = ctx.btb
        j = broken_judgments(b.judgments.reindex(b.ids), how, b.seed)
        judge = b.settings.judge
        return B.margin_pstar_correlation(j, b.data.truth["share_a"], b.seed, noise=judge.noise, n=judge.n)
    return _seal(ctx, quantity, how)


def mutation_table(ctx) -> pd.DataFrame:
    """Every variant of :data:`VARIANTS` through its row's check on the context's studies: one row per (method
    row, variant) with the broken method's ``estimate`` and ``caught`` (its row failed)."""
    out = []
    for quantity, variants in VARIANTS.items():
        for how in variants:
            with warnings.catch_warnings(), without_null_passes():
                # a broken method (a zero or constant estimate, votes shuffled) gives degenerate bootstrap
                # replicates; numpy's warnings about them say nothing that the row's verdict does not
                warnings.simplefilter("ignore", RuntimeWarning)
                r = run_variant(ctx, quantity, how)
            out.append({"row": quantity, "variant": how, "estimate": r["estimate"], "caught": not r["recovered"]})
    return pd.DataFrame(out)


def shown(m: pd.DataFrame) -> pd.DataFrame:
    """The mutation table narrow enough for the text column: per method row the common variants of :data:`COMMON`
    as columns ("yes": caught, "MISSED", or "·" where the variant does not apply) and the row's own mistakes in
    one column, each named with its verdict."""
    cell = m.assign(v=m["caught"].map({True: "yes", False: "MISSED"}))
    common = cell[cell["variant"].isin(COMMON)].pivot(index="row", columns="variant", values="v")
    common = common.reindex(index=list(VARIANTS), columns=list(COMMON)).fillna("·")
    own = cell[~cell["variant"].isin(COMMON)].groupby("row", sort=False)
    common["own mistakes"] = pd.Series(
        {r: "; ".join(f"{a}: {b}" for a, b in zip(g["variant"], g["v"])) for r, g in own}
    )
    return common.rename_axis(index="method row", columns=None)
