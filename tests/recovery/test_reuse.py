"""The recovery rows fit each draw once: Eq. 1's draws by its closed form (checked against the production fit),
and the broken variants of Eq. 3 and Eq. 4 by breaking the fits of the row they break, with the same numbers as
fitting every draw through the broken method."""

import numpy as np
import pandas as pd
import pytest

from pluralign.data.simulate import FEATURES, simulate
from pluralign.recovery.eq1_fits import eq1_closed_form


@pytest.fixture(scope="module")
def small():
    data = simulate(n_pairs=200, seed=11)
    other = simulate(n_pairs=200, seed=12)
    from pluralign.seal.pairs import chosen_rejected

    return data, other, chosen_rejected(data).table


def _oracle(data):
    from pluralign.recovery.seal_checks import oracle_utilities

    ids = pd.Index(data.pairs["pair_id"])
    u = oracle_utilities(data, ids)
    t = data.truth.reindex(ids)
    X = tuple(pd.DataFrame({f: t[f"{s}_{f}"].to_numpy() for f in FEATURES}) for s in ("a", "b"))
    return ((u["a"], u["b"]), X), data.meta["weights"]["mean"].reindex(list(FEATURES))


def test_eq1_closed_form_is_the_production_fit_on_every_draw(small, monkeypatch):
    """Eq. 1's draws (the pairs, then pairs resampled) by the closed form equal the production fit (pyfixest, pair
    FE, CRV1) draw by draw, and so do those of a fit with plain OLS standard errors (its iid variance)."""
    from pluralign.recovery import imprint_checks as I
    from pluralign.recovery.mutations import eq1_ols_se
    from pluralign.seal.imprint import feature_imprint

    design, w = _oracle(small[0])
    fast = {f: I.imprint_draws(design, design, w, noise_sd=0.5, n_draws=4, seed=2, fit=f) for f in (None, eq1_ols_se)}
    with monkeypatch.context() as m:
        m.setattr(I, "eq1_closed_form", lambda *a, **k: None)  # every draw through the fit
        I._DRAWS.clear()  # the kept draws' tables came from the closed form
        for f in (None, eq1_ols_se):
            slow = I.imprint_draws(design, design, w, noise_sd=0.5, n_draws=4, seed=2, fit=f or feature_imprint)
            for a, b in zip(fast[f][:3], slow[:3]):
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert not np.allclose(fast[None][1], fast[eq1_ols_se][1])  # the two fits' intervals differ
    # a table the closed form cannot give back (here: another reward's fit) is refused, not silently used
    from pluralign.recovery.seal_checks import _imprint_fit

    (ua, ub), X = design
    ids = pd.Index(range(len(ua)))
    other = _imprint_fit(ua * 2, ub, None, ids, X=X).table
    assert eq1_closed_form(other, [((ua, ub), X)]) is None
    # both variances are known to the closed form: each fit's own table comes back (not the slow path)
    noisy = (ua + np.random.default_rng(0).normal(0, 0.5, len(ua)), ub)
    for f in (None, eq1_ols_se):
        first = _imprint_fit(*noisy, None, ids, fit=f, X=X).table
        assert eq1_closed_form(first, [(noisy, X), (noisy, X)]) is not None


def test_the_production_fits_of_a_draw_are_reused_by_its_broken_variants(small, monkeypatch):
    """The row and its broken variants fit Eq. 3 once (its first draw; the others by its closed form), not once
    per variant, and a broken variant gives the row it gave when the broken method was fitted on every draw."""
    from pluralign.recovery import resistance_checks as Rs
    from pluralign.recovery.mutations import broken_fit
    from pluralign.seal import resistance as res

    data, other, view = small
    calls = []
    real = res.misalignment_regression

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(res, "misalignment_regression", counted)
    Rs._DRAWS.clear()
    kw = {"noise_sd": 0.5, "n_draws": 3, "seed": 1}
    Rs.oracle_resistance(data, view, [other], **kw)
    for how in ("sign", "noise", "se÷3"):
        got = Rs.oracle_resistance(data, view, [other], regression=broken_fit(res.misalignment_regression, how), **kw)
        fitted = broken_fit(real, how)  # the same break, fitted draw by draw through a plain function
        want = Rs.oracle_resistance(data, view, [other], regression=lambda *a, f=fitted, **k: f(*a, **k), **kw)
        assert got["recovered"] == want["recovered"] and got["criterion"] == want["criterion"], how
    assert len(calls) == 1  # the first draw, once, for the row and its three broken variants


def test_eq3_closed_form_is_the_production_fit_on_every_draw(small, monkeypatch):
    """Eq. 3's draws by the closed form (statsmodels' Newton-Raphson for all draws at once) equal the production
    logit draw by draw on every coefficient the row reads (not separated in that draw); a first table the closed
    form cannot give back (another outcome's fit) is refused, and then every draw is fitted."""
    from pluralign.recovery import resistance_checks as Rs
    from pluralign.seal.resistance import misalignment_regression

    data, other, view = small
    pt, drawn = Rs.resistance_draws(data, view, [other], 0.5, 4, 5)
    cols = list(pt["ch"].columns)
    prod = [misalignment_regression(p, np.zeros(len(p)), pt["ch"], pt["rj"], cols, **Rs.EQ3).table for _, p, _ in drawn]
    fast = Rs.eq3_closed_form(prod[0], pt, [p for _, p, _ in drawn])
    assert fast is not None and fast[0] is prod[0]
    for a, b, (_, _, sep) in zip(prod, fast, drawn):
        assert a.index.equals(b.index) and list(a.columns) == list(b.columns)
        for c in ("estimate", "std_error", "ci_low", "ci_high", "p_value", "p_bonferroni"):
            x, y = (t[c].reindex(pt["rho"].index).to_numpy(float)[~sep] for t in (a, b))
            np.testing.assert_allclose(y, x, rtol=1e-6, atol=1e-12, err_msg=c)  # the closed form's own tolerance
    p0 = drawn[0][1]
    aligned_fit = misalignment_regression(
        p0, np.zeros(len(p0)), pt["ch"], pt["rj"], cols, **{**Rs.EQ3, "outcome": "aligned"}
    )
    assert Rs.eq3_closed_form(aligned_fit.table, pt, [p for _, p, _ in drawn]) is None
    # a fit at another interval level gives every draw's intervals at that level, as the production fit does
    at90 = [
        misalignment_regression(p, np.zeros(len(p)), pt["ch"], pt["rj"], cols, **{**Rs.EQ3, "level": 0.9}).table
        for _, p, _ in drawn
    ]
    fast90 = Rs.eq3_closed_form(at90[0], pt, [p for _, p, _ in drawn])
    assert fast90 is not None
    for a, b, (_, _, sep) in zip(at90, fast90, drawn):
        x, y = (t["ci_low"].reindex(pt["rho"].index).to_numpy(float)[~sep] for t in (a, b))
        np.testing.assert_allclose(y, x, rtol=1e-6, atol=1e-12)
    # a design without a regressor or with a missing reward: each draw left to the production fit
    flat = {**pt, "ch": pt["ch"] * 0 + 1, "rj": pt["rj"] * 0 + 1}
    flat_fit = misalignment_regression(p0, np.zeros(len(p0)), flat["ch"], flat["rj"], cols, **Rs.EQ3)
    assert Rs.eq3_closed_form(flat_fit.table, flat, [p for _, p, _ in drawn]) is None
    gap = [p.copy() for _, p, _ in drawn]
    gap[1][3] = np.nan
    assert Rs.eq3_closed_form(prod[0], pt, gap) is None
    calls = []
    monkeypatch.setattr(Rs, "eq3_closed_form", lambda *a, **k: calls.append(1))
    Rs._DRAWS.clear()
    slow = Rs.oracle_resistance(data, view, [other], noise_sd=0.5, n_draws=5, seed=4)
    Rs._DRAWS.clear()
    monkeypatch.undo()
    quick = Rs.oracle_resistance(data, view, [other], noise_sd=0.5, n_draws=5, seed=4)
    assert calls == [1] and slow["criterion"] == quick["criterion"] and slow["recovered"] == quick["recovered"]


def test_kappa_of_many_resamples_is_sklearns():
    """The cause labeller's κ over a stack of bootstrap resamples equals scikit-learn's κ of each."""
    from sklearn.metrics import cohen_kappa_score

    from pluralign.recovery.diverging_checks import kappas

    rng = np.random.default_rng(0)
    stack = rng.integers(0, 4, size=(6, 50, 2)).astype(float)
    stack[0, :, 1] = stack[0, :, 0]  # perfect agreement
    want = [cohen_kappa_score(v[:, 0], v[:, 1]) for v in stack]
    np.testing.assert_allclose(kappas(stack), want, rtol=1e-12)


def test_eq1_draws_of_a_broken_fit_are_the_row_fits_broken(small, monkeypatch):
    """A broken variant of Eq. 1 breaks the row's closed-form draws: the production fit runs once for the row and
    all its broken variants (its first draw), and the broken row is the one the broken method gives fitted on
    every draw."""
    from pluralign.recovery.imprint_checks import imprint_draws
    from pluralign.recovery.mutations import broken_fit, columns_swapped, signs_flipped
    from pluralign.seal import imprint as imp

    design, w = _oracle(small[0])
    calls = []
    real = imp.feature_imprint

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(imp, "feature_imprint", counted)
    kw = {"noise_sd": 0.5, "n_draws": 4, "seed": 3}
    variants = [(broken_fit(imp.feature_imprint, how), broken_fit(real, how)) for how in ("sign", "noise", "se×3")] + [
        (signs_flipped(imp.feature_imprint, ["format"]), signs_flipped(real, ["format"])),
        (columns_swapped(imp.feature_imprint, "verbosity", "format"), columns_swapped(real, "verbosity", "format")),
    ]
    for fit, fitted in variants:
        got = imprint_draws(design, design, w, fit=fit, **kw)
        want = imprint_draws(design, design, w, fit=lambda *a, f=fitted, **k: f(*a, **k), **kw)
        for a, b in zip(got[:3], want[:3]):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert len(calls) == 1  # one production fit for every broken row of the same draws, not one per draw


def test_rewrite_flips_are_the_simulated_rewriters(small):
    """Eq. 4's oracle reads the simulated rewriter's planted flips without its texts: the same flips as
    ``simulated_rewrite_pairs`` (the same generator, drawn in the same order) at every flip rate and seed, for the
    pairs in order and for pairs drawn with replacement."""
    from pluralign.recovery.robustness_checks import rewrite_flips
    from pluralign.seal.simulated_rewrites import simulated_rewrite_pairs

    view = small[2]
    drawn = view.iloc[np.random.default_rng(0).integers(0, len(view), len(view))].reset_index(drop=True)
    for v in (view, drawn):
        for seed, p in ((0, 0.25), (7, 0.1), (10**6 + 1000, 0.5), (3, 1.0), (4, 0.0)):
            rp = simulated_rewrite_pairs(v, seed=seed, p_flip=p)
            fc, fr = rewrite_flips(v, seed=seed, p_flip=p)
            pd.testing.assert_frame_equal(fc, rp.flips["chosen"])
            pd.testing.assert_frame_equal(fr, rp.flips["rejected"])
            assert p in (0.0,) or (fc.to_numpy() != 0).any()


def test_eq4_closed_form_is_the_production_fit_on_every_draw(small, monkeypatch):
    """Eq. 4's draws by the closed form equal the production fit (statsmodels OLS, CR1 by the drawn pair) draw by
    draw: the same scores, separation flags, estimates and intervals; a table the closed form cannot give back is
    refused."""
    from pluralign.recovery import robustness_checks as Rb
    from pluralign.seal.robustness import robustness_scores

    data, _, view = small
    Rb._DESIGNS.clear()
    _, draws = Rb.oracle_design(data, view, 0.5, 2, 0.25, 3, 4)
    prod = []
    for rw, before, after in draws:
        args = (before, after, rw["fc"], rw["fr"], list(rw["fc"].columns))
        prod.append(robustness_scores(*args, **Rb.EQ4, groups=rw["instance"]).table)
    fast = Rb.eq4_closed_form(prod[0], draws)
    assert fast is not None and fast[0] is prod[0]
    for a, b in zip(fast[1:], prod[1:]):
        assert a.index.equals(b.index)
        assert np.array_equal(a["separated"].to_numpy(bool), b["separated"].to_numpy(bool))
        for c in ("estimate", "std_error", "ci_low", "ci_high"):
            np.testing.assert_allclose(a[c].to_numpy(float), b[c].to_numpy(float), rtol=1e-9, atol=1e-12)
    other = prod[0].assign(std_error=prod[0]["std_error"] * 1.01)
    assert Rb.eq4_closed_form(other, draws) is None
    # the row reads the same numbers through the closed form as through the production fit on every draw
    Rb._DESIGNS.clear()
    kw = {"noise_sd": 0.5, "seed": 2, "n_rounds": 3, "n_draws": 4}
    fast_row = Rb.oracle_robustness(data, view, **kw)
    monkeypatch.setattr(Rb, "eq4_closed_form", lambda *a, **k: None)
    Rb._DESIGNS.clear()
    slow_row = Rb.oracle_robustness(data, view, **kw)
    for k in ("estimate", "recovered", "description", "reads"):
        assert fast_row[k] == slow_row[k], k


def test_seal_code_closed_form_is_its_fit_on_every_draw(small, monkeypatch):
    """The Eq. 1 fit of SEAL's code (pooled OLS, the broken variant 'no pair FE') by its closed form equals the fit
    itself draw by draw, on the planted features and on the featurizer's readings; a table the closed form cannot
    give back is refused."""
    import functools

    from pluralign.recovery import imprint_checks as I
    from pluralign.seal import imprint as imp
    from pluralign.seal.pairs import chosen_rejected

    data = simulate(n_pairs=1200, seed=11)  # the demo's size: most draws keep the first draw's features
    view = chosen_rejected(data).table
    text = I._text_design(data, view, data.meta["weights"]["mean"], 0.5)
    planted = I.planted_text_weights(data, view)
    calls = []
    real = imp.feature_imprint_seal_code

    @functools.wraps(real)
    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(imp, "feature_imprint_seal_code", counted)
    for design, w in (_oracle(data), (text, planted)):
        I._DRAWS.clear()
        kw = {"noise_sd": 0.5, "n_draws": 6, "seed": 5, "fit": imp.feature_imprint_seal_code}
        calls.clear()
        fast = I.imprint_draws(design, design, w, **kw)
        # the fit runs on the first draw and on each draw where the VIF filter keeps other features than there
        entry = I._DRAWS[next(iter(I._DRAWS))]
        (draws, _), first = list(entry["draws"].values())[0], entry["fits"][counted]
        kept = [f for f in first.index if np.isfinite(first.loc[f, "estimate"])]
        pairs = np.repeat(np.arange(len(draws[0][0][0])), 2)
        other = sum(
            imp.vif_filter(
                pd.DataFrame(np.column_stack([Xa, Xb]).reshape(len(pairs), -1), columns=Xa.columns), groups=pairs
            )[0]
            != kept
            for _, (Xa, Xb) in draws[1:]
        )
        assert len(calls) == 1 + other < len(draws), (len(calls), other)
        with monkeypatch.context() as m:
            m.setattr(I, "seal_code_closed_form", lambda *a, **k: None)  # every draw through the fit
            I._DRAWS.clear()
            slow = I.imprint_draws(design, design, w, **kw)
        for a, b in zip(fast[:3], slow[:3]):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
        assert fast[3] == slow[3]
    assert I.seal_code_closed_form(first, draws) is not None
    assert I.seal_code_closed_form(first.assign(std_error=first["std_error"] * 1.01), draws) is None


def test_eq1_definition_holds_the_production_fit_and_refuses_the_usual_mistakes(small):
    """:func:`eq1_definition`: the production fit (pyfixest, pair FE, CRV1) is Eq. 1 as defined to about 1e-15
    on its own draw; plain OLS standard errors, the small-sample factor that counts no fixed effect, normal instead
    of t(G − 1) intervals, and an estimate off by 1e-4 of the largest each lie beyond :data:`DEFINITION_TOL`."""
    from scipy import stats as st

    from pluralign.recovery.eq1_fits import DEFINITION_TOL, eq1_definition
    from pluralign.recovery.mutations import eq1_ols_se
    from pluralign.recovery.seal_checks import _imprint_fit

    ((ua, ub), X), _ = _oracle(small[0])
    draw = ((ua + np.random.default_rng(0).normal(0, 0.5, len(ua)), ub), X)
    ids = pd.Index(range(len(ua)))
    table = _imprint_fit(*draw[0], None, ids, X=X).table
    assert eq1_definition(table, draw) < 1e-12
    kept = table["estimate"].notna()
    g, k, n = len(ua), int(kept.sum()), 2 * len(ua)
    no_fe = table.assign(std_error=table["std_error"] * np.sqrt((n - k - 1) / (n - k)))
    q = st.norm.ppf(0.975) / st.t.ppf(0.975, g - 1)
    normal = table.assign(
        ci_low=table["estimate"] - (table["estimate"] - table["ci_low"]) * q,
        ci_high=table["estimate"] + (table["ci_high"] - table["estimate"]) * q,
    )
    nudged = table.copy()
    first = nudged.index[kept][0]
    nudged.loc[first, "estimate"] += 1e-4 * nudged.loc[kept, "estimate"].abs().max()
    ols = _imprint_fit(*draw[0], None, ids, fit=eq1_ols_se, X=X).table
    for name, wrong in {"OLS SEs": ols, "no FE in k": no_fe, "normal intervals": normal, "estimate": nudged}.items():
        assert eq1_definition(wrong, draw) > DEFINITION_TOL, name
    assert eq1_definition(table.assign(estimate=np.nan), draw) == float("inf")


def test_eq4_steps_at_another_noise_rewrite_the_pairs_once_and_draw_what_fresh_ones_draw(small):
    """A sweep over the oracle's noise (and a plan's step at the table's pairs) rewrites each draw's pairs once: a
    design at another noise holds the same rewrites, and its draws and planted scores are those of a design drawn
    with nothing kept."""
    from pluralign.recovery import robustness_checks as Rb

    data, _, view = small
    Rb._DESIGNS.clear()
    Rb._REWRITES.clear()
    low_planted, low = Rb.oracle_design(data, view, 0.5, 2, 0.25, 3, 4)
    high_planted, high = Rb.oracle_design(data, view, 2.0, 2, 0.25, 3, 6)
    assert all(a[0] is b[0] for a, b in zip(low, high))  # the same rewrites, not rewritten again
    Rb._DESIGNS.clear()
    Rb._REWRITES.clear()
    fresh_planted, fresh = Rb.oracle_design(data, view, 2.0, 2, 0.25, 3, 6)
    pd.testing.assert_series_equal(high_planted, fresh_planted)
    assert not high_planted.equals(low_planted)  # the planted scores do depend on the noise
    for (rw, before, after), (rw2, before2, after2) in zip(high, fresh, strict=True):
        assert np.array_equal(before, before2) and np.array_equal(after, after2)
        pd.testing.assert_frame_equal(rw["fc"], rw2["fc"])
        assert np.array_equal(rw["gap"], rw2["gap"]) and np.array_equal(rw["groups"], rw2["groups"])
