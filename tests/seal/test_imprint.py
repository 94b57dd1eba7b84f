"""SEAL feature imprint (Eq. 1): pyfixest pair fixed effects, VIF filter, Bonferroni."""

import logging

import numpy as np
import pandas as pd
import pytest

from pluralign.seal.imprint import bonferroni, feature_imprint, vif_filter


def planted_table(n_pairs=3000, seed=0, weights=None, noise=1.0, fe_corr=True):
    """Two rows (chosen, rejected) per pair: reward = α_pair + Σ β_τ x_τ + ε, with pair effects
    correlated with the features (so pooled OLS is biased and only the fixed effects recover β)."""
    rng = np.random.default_rng(seed)
    weights = weights or {"helpful": 1.0, "harmless": 2.0, "eloquent": 0.8, "refusal": -0.5}
    n = 2 * n_pairs
    pair = np.repeat(np.arange(n_pairs), 2)
    prompt_quality = np.repeat(rng.normal(size=n_pairs), 2)
    df = pd.DataFrame({"pair_id": [f"p{i}" for i in pair]})
    for j, f in enumerate(weights):
        p = 1 / (1 + np.exp(-(prompt_quality if fe_corr else 0) - 0.3 * j))
        df[f] = (rng.random(n) < p).astype(int)
    df["sentiment"] = rng.integers(-1, 2, n)
    weights = {**weights, "sentiment": 0.7}
    alpha = 3.0 * prompt_quality + rng.normal(size=n_pairs).repeat(2)
    df["reward"] = alpha + sum(w * df[f] for f, w in weights.items()) + rng.normal(scale=noise, size=n)
    return df, weights


def differences_oracle(df, features, reward="reward", pair="pair_id"):
    g = df.groupby(pair, sort=False)
    first, second = g.nth(0), g.nth(1)
    dx = first[features].to_numpy(float) - second[features].to_numpy(float)
    dy = first[reward].to_numpy(float) - second[reward].to_numpy(float)
    return np.linalg.lstsq(dx, dy, rcond=None)[0]


def test_imprint_equals_differences_oracle():
    df, w = planted_table(n_pairs=2500, seed=1)
    feats = list(w)
    fit = feature_imprint(df, reward="reward", features=feats, pair="pair_id", vif_threshold=None)
    out = fit.table
    np.testing.assert_allclose(
        out.loc[feats, "estimate"].to_numpy(float), differences_oracle(df, feats), rtol=0, atol=1e-8
    )
    assert fit.n_obs == 5000 and fit.n_pairs == 2500
    assert fit.dropped_vif == [] and fit.kept == feats and fit.reward == "reward"
    assert fit.formula == f"reward ~ {' + '.join(feats)} | pair_id"


def test_imprint_recovers_planted_weights_within_ci_and_fe_matter():
    df, w = planted_table(n_pairs=3000, seed=0)
    out = feature_imprint(df, features=list(w)).table
    for f, b in w.items():
        assert out.loc[f, "ci_low"] <= b <= out.loc[f, "ci_high"], (f, out.loc[f, "estimate"], b)
    # pooled OLS without the pair effects is biased by the planted prompt quality
    X = np.column_stack([np.ones(len(df)), df[list(w)].to_numpy(float)])
    pooled = np.linalg.lstsq(X, df.reward.to_numpy(), rcond=None)[0][1:]
    assert np.max(np.abs(pooled - np.array(list(w.values())))) > 0.5


def test_clustered_standard_errors_match_statsmodels_on_differences():
    """CRV1 by pair with two rows per pair: compare with a cluster-robust OLS on the full dummy model."""
    import statsmodels.api as sm

    df, w = planted_table(n_pairs=300, seed=5)
    feats = list(w)
    out = feature_imprint(df, features=feats, vif_threshold=None).table
    dummies = pd.get_dummies(df.pair_id, drop_first=False, dtype=float)
    X = pd.concat([df[feats].astype(float), dummies], axis=1)
    fit = sm.OLS(df.reward.astype(float), X).fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(df.pair_id)[0]})
    np.testing.assert_allclose(out.loc[feats, "estimate"].astype(float), fit.params[feats], atol=1e-8)
    # the two differ only by the scalar small-sample factor (statsmodels counts every pair dummy in K,
    # pyfixest does not count fixed effects nested in the clusters): same ratio for every feature
    ratio = out.loc[feats, "std_error"].astype(float).to_numpy() / fit.bse[feats].to_numpy()
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)
    n, k_sm, k_pf = len(df), X.shape[1], len(feats) + 1  # fixest-style K: features + 1
    assert ratio[0] == pytest.approx(np.sqrt((n - k_sm) / (n - k_pf)), rel=1e-6)


def test_vif_drop_of_planted_collinear_feature():
    df, w = planted_table(n_pairs=3000, seed=2)
    rng = np.random.default_rng(3)
    noisy_copy = df.harmless.to_numpy().copy()
    flip = rng.random(len(df)) < 0.01
    noisy_copy[flip] = 1 - noisy_copy[flip]
    df["harmless_again"] = noisy_copy
    feats = [*w, "harmless_again"]
    fit = feature_imprint(df, features=feats)
    out = fit.table
    assert len(fit.dropped_vif) == 1
    dropped = fit.dropped_vif[0]
    assert dropped not in fit.kept and len(fit.kept) == len(feats) - 1
    assert dropped in ("harmless", "harmless_again")
    assert out.loc[dropped, "dropped_vif"] and np.isnan(out.loc[dropped, "estimate"])
    assert out.loc[dropped, "vif"] > 5
    kept = [f for f in feats if f != dropped]
    assert (out.loc[kept, "vif"] <= 5).all() and not out.loc[kept, "dropped_vif"].any()
    kept_names, dropped_map, vif = vif_filter(df[feats].astype(float))
    assert list(dropped_map) == [dropped] and set(kept_names) == set(kept)
    # the VIF of a feature equals 1 / (1 - R²) from regressing it on the others (footnote 6)
    import statsmodels.api as sm

    others = sm.add_constant(df[[f for f in kept if f != "eloquent"]].astype(float))
    r2 = sm.OLS(df.eloquent.astype(float), others).fit().rsquared
    assert vif["eloquent"] == pytest.approx(1 / (1 - r2), rel=1e-9)


def test_bonferroni_is_min_one_k_p():
    p = np.array([0.001, 0.02, 0.3, np.nan, 0.5])
    np.testing.assert_allclose(bonferroni(p), [0.004, 0.08, 1.0, np.nan, 1.0])
    df, w = planted_table(n_pairs=500, seed=4, noise=4.0)
    out = feature_imprint(df, features=list(w)).table
    k = out.estimate.notna().sum()
    np.testing.assert_allclose(out.p_bonferroni, np.minimum(1, k * out.p_value))


def test_feature_constant_within_pairs_is_flagged_collinear():
    df, w = planted_table(n_pairs=400, seed=6)
    df["prompt_level"] = pd.factorize(df.pair_id)[0] % 2  # same for both entries of a pair
    with pytest.warns(UserWarning):
        out = feature_imprint(df, features=[*w, "prompt_level"], vif_threshold=None).table
    assert out.loc["prompt_level", "dropped_collinear"]
    assert np.isnan(out.loc["prompt_level", "estimate"])
    np.testing.assert_allclose(out.loc[list(w), "estimate"].astype(float), differences_oracle(df, list(w)), atol=1e-8)


def test_imprint_errors_are_clear():
    df, w = planted_table(n_pairs=50, seed=7)
    with pytest.raises(ValueError, match=r"column\(s\) \['nope'\] not in the table"):
        feature_imprint(df, features=["helpful", "nope"])
    bad = df.copy()
    bad.loc[3, "helpful"] = np.nan
    with pytest.raises(ValueError, match="1 row\\(s\\) with missing"):
        feature_imprint(bad, features=list(w))


def test_vif_equals_statsmodels_variance_inflation_factor():
    import statsmodels.api as sm
    from statsmodels.stats.outliers_influence import variance_inflation_factor

    rng = np.random.default_rng(8)
    n = 2000
    z = rng.normal(size=n)
    X = pd.DataFrame(
        {
            "a": (z + rng.normal(size=n) > 0).astype(float),
            "b": (z > 0.3).astype(float),
            "c": rng.integers(-1, 2, n).astype(float),
            "d": z + 0.3 * rng.normal(size=n),
        }
    )
    X["e"] = X.a + X.b + 0.2 * rng.normal(size=n)
    kept, dropped, vif = vif_filter(X, threshold=None)
    design = sm.add_constant(X).to_numpy()
    expected = [variance_inflation_factor(design, j + 1) for j in range(X.shape[1])]
    np.testing.assert_allclose(vif.to_numpy(), expected, rtol=1e-8)
    # exact duplicates and constants are infinite and go first
    X2 = X.assign(a_copy=X.a, const=1.0)
    kept2, dropped2, _ = vif_filter(X2)
    assert list(dropped2)[0] == "const" and np.isinf(dropped2["const"])
    assert np.isinf(dropped2[list(dropped2)[1]]) and list(dropped2)[1] in ("a", "a_copy")


def test_imprint_table_builds_the_long_form():
    from pluralign.seal.imprint import imprint_table

    ch = pd.DataFrame({"helpful": [1, 0, 1], "harmless": [1, 1, 0]})
    rj = pd.DataFrame({"helpful": [0, 0, 1], "harmless": [1, 0, 1]})
    entries = imprint_table(
        ["a", "b", "c"], ch, rj, pre=([1.0, 2.0, 3.0], [0.5, 2.5, 1.0]), post=([4, 5, 6], [7, 8, 9])
    )
    t = entries.table
    assert t.pair_id.tolist() == ["a", "a", "b", "b", "c", "c"]
    assert t.entry.tolist() == ["chosen", "rejected"] * 3
    assert t.pre.tolist() == [1.0, 0.5, 2.0, 2.5, 3.0, 1.0] and t.post.tolist() == [4, 7, 5, 8, 6, 9]
    assert t.helpful.tolist() == [1, 0, 0, 0, 1, 1] and t.harmless.tolist() == [1, 1, 1, 0, 0, 1]
    with pytest.raises(ValueError, match="at least one reward"):
        imprint_table(["a", "b", "c"], ch, rj)
    assert entries.n_pairs == 3 and entries.n_pairs_dropped_missing == 0


def test_imprint_table_drops_pairs_with_a_missing_label():
    from pluralign.seal.imprint import imprint_table

    ch = pd.DataFrame({"helpful": [1, np.nan, 1, 0], "harmless": [1, 1, 0, 1]})
    rj = pd.DataFrame({"helpful": [0, 0, 1, 1], "harmless": [1, 0, 1, np.nan]})
    entries = imprint_table(["a", "b", "c", "d"], ch, rj, post=([4, 5, 6, 7], [1, 2, 3, 4]))
    t = entries.table
    assert t.pair_id.tolist() == ["a", "a", "c", "c"] and t.post.tolist() == [4, 1, 6, 3]
    assert entries.n_pairs == 2 and entries.n_pairs_dropped_missing == 2
    with pytest.raises(ValueError, match="2 pair\\(s\\) with a missing feature \\(first: 'b'\\)"):
        imprint_table(["a", "b", "c", "d"], ch, rj, missing="error", post=([4, 5, 6, 7], [1, 2, 3, 4]))


def test_imprint_takes_the_entries_of_imprint_table():
    """feature_imprint accepts imprint_table's ImprintEntries as well as its table: the same fit."""
    from pluralign.seal.imprint import ImprintEntries, ImprintFit, imprint_table

    df, w = planted_table(n_pairs=200, seed=9)
    feats = list(w)
    first, second = df.iloc[0::2].reset_index(drop=True), df.iloc[1::2].reset_index(drop=True)
    entries = imprint_table(first["pair_id"], first[feats], second[feats], reward=(first["reward"], second["reward"]))
    assert isinstance(entries, ImprintEntries)
    a, b = feature_imprint(entries, "reward", feats), feature_imprint(entries.table, "reward", feats)
    assert isinstance(a, ImprintFit) and a.n_pairs == 200 and a.n_obs == 400
    pd.testing.assert_frame_equal(a.table, b.table)


def test_eq1s_pyfixest_import_leaves_the_callers_logging_as_it_was():
    """pyfixest configures the root logger at INFO on stderr when imported (``logging.basicConfig``); through
    :func:`import_pyfixest` a process that fits Eq. 1 keeps its own logging, so openai's per-request INFO records do
    not reach a notebook's stderr (the rehearsal's LLM pages printed one line per request). In a fresh process:
    pyfixest is imported once per process."""
    import subprocess
    import sys

    probe = (
        "import logging\n"
        "from pluralign.seal.imprint import import_pyfixest\n"
        "pf = import_pyfixest()\n"
        "assert hasattr(pf, 'feols')\n"
        "root = logging.getLogger()\n"
        "print(len(root.handlers), root.level)\n"
        "import importlib, pyfixest.estimation.models.feols_compressed_ as m\n"
        "importlib.reload(m)\n"  # the module's own import, as a plain `import pyfixest` runs it
        "print(len(root.handlers), root.level)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == f"0 {logging.WARNING}"  # as Python starts
    assert out[1] == f"1 {logging.INFO}"  # the side effect import_pyfixest undoes is real
