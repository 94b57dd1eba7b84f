"""The recovery rows fit each draw once: Eq. 1's draws by its closed form (checked against the production fit),
and the broken variants of Eq. 3 and Eq. 4 by breaking the fits of the row they break, with the same numbers as
fitting every draw through the broken method."""

import numpy as np
import pandas as pd
import pytest

from pluralign.data.simulate import FEATURES, simulate


@pytest.fixture(scope="module")
def small():
    data = simulate(n_pairs=200, seed=11)
    other = simulate(n_pairs=200, seed=12)
    from pluralign.seal.design import chosen_rejected

    return data, other, chosen_rejected(data).table


def _oracle(data):
    from pluralign.recovery.seal_checks import oracle_utilities

    ids = pd.Index(data.pairs["pair_id"])
    u = oracle_utilities(data, ids)
    t = data.truth.reindex(ids)
    X = tuple(pd.DataFrame({f: t[f"{s}_{f}"].to_numpy() for f in FEATURES}) for s in ("a", "b"))
    return (u["a"], u["b"]), X, ids, data.meta["weights"]["mean"].reindex(list(FEATURES))


def test_eq1_closed_form_is_the_production_fit_on_every_draw(small):
    """Eq. 1's draws by the closed form equal the production fit (pyfixest, pair FE, CRV1) draw by draw."""
    from pluralign.recovery.imprint_checks import eq1_closed_form, imprint_draws
    from pluralign.seal.imprint import feature_imprint

    util, X, ids, w = _oracle(small[0])
    fast = imprint_draws(util, X, ids, w, noise_sd=0.5, n_draws=4, seed=2)
    slow = imprint_draws(util, X, ids, w, noise_sd=0.5, n_draws=4, seed=2, fit=lambda *a, **k: feature_imprint(*a, **k))
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    # a table the closed form cannot give back (here: another reward's fit) is refused, not silently used
    from pluralign.recovery.seal_checks import _imprint_fit

    other = _imprint_fit(util[0] * 2, util[1], None, ids, X=X).table
    assert eq1_closed_form(other, [(util[0], util[1])], X, ids) is None


def test_the_production_fits_of_a_draw_are_reused_by_its_broken_variants(small, monkeypatch):
    """The row and its broken variants fit Eq. 3 once per draw (not once per variant), and a broken variant gives
    the row it gave when the broken method was fitted on every draw."""
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
    assert len(calls) == 3  # the three draws, once each, for the row and its three broken variants


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
    """A broken variant of Eq. 1 breaks the row's closed-form draws: the production fit runs once per row (its
    first draw), and the broken row is the one the broken method gives fitted on every draw."""
    from pluralign.recovery.imprint_checks import imprint_draws
    from pluralign.recovery.mutations import broken_fit
    from pluralign.seal import imprint as imp

    util, X, ids, w = _oracle(small[0])
    calls = []
    real = imp.feature_imprint

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(imp, "feature_imprint", counted)
    kw = {"noise_sd": 0.5, "n_draws": 4, "seed": 3}
    for how in ("sign", "noise", "se×3"):
        got = imprint_draws(util, X, ids, w, fit=broken_fit(imp.feature_imprint, how), **kw)
        fitted = broken_fit(real, how)
        want = imprint_draws(util, X, ids, w, fit=lambda *a, f=fitted, **k: f(*a, **k), **kw)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert len(calls) == 3  # one production fit per broken row, not one per draw
