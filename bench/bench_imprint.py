"""Benchmark: SEAL's feature-imprint regression (Eq. 1) at paper scale.

Generates a table the size of SEAL's: 160,800 pairs × 2 entries = 321,600 rows, 15 binary/ternary
features (the 15 of Table 5: 14 booleans with Table 4-like prevalences, sentiment in −1/0/1), pair fixed
effects correlated with the features, noise. Times ``pluralign.seal.feature_imprint`` (VIF filter with
statsmodels + pyfixest ``feols("reward ~ ... | pair", vcov={"CRV1": "pair"})``), cold (first call in the
process, including pyfixest's one-off set-up) and warm, and the pyfixest fit alone per demeaner backend;
checks the coefficients against OLS on chosen − rejected differences (must agree within 1e-8); records
seconds and peak memory with ``pluralign.book.benchmark.record("imprint", ...)``. Target: < 10 s on 2 cores.

    .venv/bin/python bench/bench_imprint.py [--quick] [--pairs N] [--backends rust numba within]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from pluralign.book.benchmark import peak_rss_mib, record, timer
from pluralign.seal import IMPRINT_FEATURES, feature_imprint

# prevalences of Table 4 (chosen column), clipped to at least 1% so every feature varies
PREVALENCE = {
    "human_vocabulary_quality": 0.985,
    "last_response_is_anthropomorphic": 0.041,
    "last_response_is_coherent": 0.873,
    "last_response_is_refusal": 0.048,
    "last_response_is_helpful": 0.782,
    "last_response_is_harmless": 0.942,
    "last_response_is_honest": 0.963,
    "last_response_contains_insult": 0.01,
    "last_response_is_sexually_explicit": 0.01,
    "last_response_breaks_privacy": 0.01,
    "last_response_is_discriminatory": 0.013,
    "last_response_is_manipulative": 0.01,
    "last_response_is_creative": 0.042,
    "last_response_is_eloquent": 0.324,
}


def make_table(n_pairs: int, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    n = 2 * n_pairs
    prompt = rng.normal(size=n_pairs).repeat(2)
    df = pd.DataFrame({"pair_id": np.arange(n_pairs).repeat(2)})
    for f in IMPRINT_FEATURES:
        if f == "last_response_sentiment":
            df[f] = rng.choice([-1, 0, 1], n, p=[0.1, 0.6, 0.3]).astype(np.int8)
        else:
            p = PREVALENCE[f]
            logit = np.log(p / (1 - p)) + 0.3 * prompt
            df[f] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int8)
    beta = dict(zip(IMPRINT_FEATURES, rng.normal(scale=0.8, size=len(IMPRINT_FEATURES))))
    alpha = 1.5 * prompt + rng.normal(size=n_pairs).repeat(2)
    df["reward"] = alpha + sum(b * df[f] for f, b in beta.items()) + rng.normal(size=n)
    return df, beta


def differences_oracle(df: pd.DataFrame, features) -> np.ndarray:
    x = df[list(features)].to_numpy(float)
    y = df["reward"].to_numpy(float)
    return np.linalg.lstsq(x[0::2] - x[1::2], y[0::2] - y[1::2], rcond=None)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="16,080 pairs instead of 160,800")
    ap.add_argument("--pairs", type=int, default=None)
    ap.add_argument(
        "--backends",
        nargs="*",
        default=["rust", "numba", "within"],
        help="pyfixest demeaner backends to time (fit only)",
    )
    args = ap.parse_args()
    n_pairs = args.pairs or (16_080 if args.quick else 160_800)
    features = list(IMPRINT_FEATURES)

    rss0 = peak_rss_mib()
    t0 = time.perf_counter()
    df, beta = make_table(n_pairs)
    gen_s = time.perf_counter() - t0
    rss_data = peak_rss_mib()
    print(f"table: {len(df):,} rows, {len(features)} features, {n_pairs:,} pairs ({gen_s:.1f} s)")

    with timer() as t_cold:
        imprint = feature_imprint(df, reward="reward", features=features, pair="pair_id")
    cold = t_cold()
    rss_fit = peak_rss_mib()
    with timer() as t_warm:
        imprint = feature_imprint(df, reward="reward", features=features, pair="pair_id")
    warm = t_warm()
    out = imprint.table
    with timer() as t_novif:
        feature_imprint(df, reward="reward", features=features, pair="pair_id", vif_threshold=None)
    novif = t_novif()
    oracle = differences_oracle(df, features)
    est = out.loc[features, "estimate"].to_numpy(float)
    max_diff = float(np.max(np.abs(est - oracle)))
    truth = np.array([beta[f] for f in features])
    covered = int(((out.loc[features, "ci_low"] <= truth) & (truth <= out.loc[features, "ci_high"])).sum())
    print(
        f"feature_imprint: cold {cold:.2f} s, warm {warm:.2f} s (without VIF filter {novif:.2f} s); "
        f"max |β − differences OLS| = {max_diff:.2e}; dropped for VIF: {imprint.dropped_vif}; "
        f"planted weights inside 95% CI: {covered}/{len(features)}"
    )

    backend_s = {}
    import pyfixest as pf

    data = df.rename(columns={f: f"x{i}" for i, f in enumerate(features)})
    fml = "reward ~ " + " + ".join(f"x{i}" for i in range(len(features))) + " | pair_id"
    for b in args.backends:
        try:
            pf.feols(fml, data=data, vcov={"CRV1": "pair_id"}, demeaner_backend=b)  # compile / warm up
            with timer() as tb:
                fit = pf.feols(fml, data=data, vcov={"CRV1": "pair_id"}, demeaner_backend=b)
            backend_s[b] = round(tb(), 3)
            diff = float(np.max(np.abs(fit.coef().to_numpy() - oracle)))
            print(f"  pyfixest feols, demeaner_backend={b!r}: {backend_s[b]:.2f} s (max diff {diff:.1e})")
        except Exception as e:  # noqa: BLE001 - report a backend that is not installed, keep going
            print(f"  pyfixest feols, demeaner_backend={b!r}: unavailable ({type(e).__name__}: {e})")
    peak = peak_rss_mib()
    ok = max_diff < 1e-8
    print(f"peak RSS {peak:.0f} MiB (before data {rss0:.0f}, after data {rss_data:.0f}, after first fit {rss_fit:.0f})")
    figures = {
        "rows": len(df),
        "pairs": n_pairs,
        "features": len(features),
        "seconds_cold": round(cold, 3),
        "seconds_warm": round(warm, 3),
        "seconds_without_vif": round(novif, 3),
        "peak_rss_mib": round(peak, 1),
        "rss_after_data_mib": round(rss_data, 1),
        "rss_after_first_fit_mib": round(rss_fit, 1),
        "max_abs_diff_vs_differences_ols": max_diff,
        "planted_weights_in_95ci": covered,
        **{f"seconds_feols_{b}": s for b, s in backend_s.items()},
    }
    units = {
        "seconds_cold": "s",
        "seconds_warm": "s",
        "seconds_without_vif": "s",
        "peak_rss_mib": "MiB",
        "rss_after_data_mib": "MiB",
        "rss_after_first_fit_mib": "MiB",
        **{f"seconds_feols_{b}": "s" for b in backend_s},
    }
    if not args.quick and args.pairs is None:
        path = record(
            "imprint",
            figures,
            units,
            target={"seconds_cold": "< 10 s on 2 cores", "max_abs_diff_vs_differences_ols": "< 1e-8"},
            notes="pluralign.seal.feature_imprint (statsmodels VIF filter + pyfixest feols with pair "
            "fixed effects, CRV1 by pair) on a generated SEAL-sized table; seconds_feols_* time "
            "the pyfixest fit alone per demeaner backend after a warm-up call.",
        )
        print(f"recorded {path}")
    if not ok:
        raise SystemExit(f"coefficients differ from the differences oracle by {max_diff:.2e} (> 1e-8)")


if __name__ == "__main__":
    main()
