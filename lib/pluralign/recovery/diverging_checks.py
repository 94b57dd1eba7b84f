"""Part I (Diverging Preferences) against the planted truth: the agreement classes (§2), the cause labeller
(§2.1), the demo's reward models (Table 2) and the mean-variance RM (§4), and two of the paper's claims."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from pluralign.recovery.agreement_truth import (
    CLASS_TESTS,
    conditional_class_probabilities,
    expected_agreement,
    observed_classes,
    vote_outcomes,
)
from pluralign.recovery.rows import (
    ALPHA,
    HIGH_AGREEMENT,
    interval_reads,
    level_text,
    null_pass_rate_many,
    pearson_ci,
    row,
)
from pluralign.stats import bootstrap_ci

__all__ = [
    "VISIBLE_CAUSES",
    "PAPER_CAUSE_KAPPA",
    "classes_judge",
    "taste_judge",
    "diverging_judge",
    "diverging_share",
    "diverging_taste_driven",
    "cause_agreement",
    "meanvar_auroc_diverging",
    "rm_accuracy_high_agreement",
    "rm_utility_correlation",
    "claim_mv_identifies_diverging",
    "claim_bt_decisive_on_diverging",
]


def _stand_in_reaches(
    quantity: str, description: str, ci: tuple, what: str, threshold: float, source: str = ""
) -> dict:
    """A Part I stand-in row (``ci``: estimate, low, high) that passes when its estimate reaches ``threshold``,
    the bar named ``what`` ("κ", "accuracy", …) with its ``source`` if any."""
    est, lo, hi = ci
    bar = f"{what} ≥ {threshold:g}" + (f" ({source})" if source else "")
    return row("diverging", quantity, description, None, est, (lo, hi), bar, est >= threshold, kind="stand-in")


def _moments(W: np.ndarray, p: np.ndarray, x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The weighted sums of 1, p, x, p², p·x, x·t and t over the pairs: row 0 the sample's, then one row per
    replicate of the two-way bootstrap weights ``W`` (one matrix product for every test of
    :func:`diverging_judge`)."""
    vs = np.column_stack([np.ones(len(p)), p, x, p * p, p * x, x * t, t])
    return np.vstack([vs.sum(0), W @ vs])


def _estimate_sd(v: np.ndarray) -> tuple[float, float]:
    """A statistic on the sample (``v[0]``) and the sd of its bootstrap replicates (``v[1:]``)."""
    return float(v[0]), float(np.nanstd(v[1:]))


def diverging_judge(is_div, p, taste, W, alpha: float = ALPHA) -> dict:
    """The criteria of the two agreement-class rows (Diverging Preferences § 2), each two z tests against the
    planted population, sd from the two-way bootstrap replicates ``W``, |z| ≤ the normal quantile of ``alpha``
    split two-sided over the row's two tests. ``share``: the share of pairs classified diverging vs the planted
    mean P(diverging) and ``slope``: the slope of the classification on each pair's planted P(diverging) vs 1 (a
    correct method is calibrated pair by pair: E[diverging | p] = p; a method that marks the right number of
    pairs at random has slope 0). ``taste``: the taste-driven share of the diverging pairs vs Σ p·taste / Σ p and
    ``rate``: the share of taste-driven pairs classified diverging vs their mean p. Returns each test's
    (estimate, planted, z), their bootstrap sds ``sd``, the bound and ``ok_share`` / ``ok_taste``."""
    x, p, t = (np.asarray(v, float) for v in (is_div, p, taste))
    q = float(st.norm.ppf(1 - alpha / 4))
    S0, Sp, Sx, Spp, Spx, Sxt, St = _moments(W, p, x, t).T
    with np.errstate(invalid="ignore", divide="ignore"):
        tests = {
            "share": (*_estimate_sd(Sx / S0), p.mean()),
            "slope": (*_estimate_sd((S0 * Spx - Sp * Sx) / (S0 * Spp - Sp**2)), 1.0),
            "taste": (*_estimate_sd(Sxt / Sx), (p * t).sum() / p.sum()),
            "rate": (*_estimate_sd(Sxt / St), (p * t).sum() / t.sum()),
        }
    out = {k: (e, pl, (e - pl) / sd if sd > 0 else (0.0 if e == pl else np.inf)) for k, (e, sd, pl) in tests.items()}
    ok = {k: bool(np.isfinite(v[2]) and abs(v[2]) <= q) for k, v in out.items()}
    sd = {k: v[1] for k, v in tests.items()}
    return {
        **out,
        "sd": sd,
        "bound": q,
        "ok_share": ok["share"] and ok["slope"],
        "ok_taste": ok["taste"] and ok["rate"],
    }


#: the expected count (of a class, and of the pairs outside it) below which :func:`classes_judge` does not test a
#: class: its z tests lean on the normal approximation (fixed with the design, before any run)
MIN_EXPECTED = 5.0


def _class_z(Xs: np.ndarray, P: np.ndarray):
    """:func:`classes_judge`'s two tests for a stack of classifier outputs ``Xs`` (pairs × outputs × outcomes): the
    estimates, truths, sds and z of the ``share`` and ``slope`` tests, each outputs × outcomes. Given who judged,
    pairs are independent Bernoulli(P), so both variances are exact sums over pairs: var(share) = Σp(1 − p) / N²,
    var(slope) = Σ(p − p̄)² p(1 − p) / (Σ(p − p̄)²)²."""
    N, _, K = Xs.shape
    dev = P - P.mean(0)
    sxx = (dev * dev).sum(0)
    v = P * (1 - P)
    with np.errstate(invalid="ignore", divide="ignore"):
        tests = {
            "share": (Xs.mean(0), P.mean(0), np.sqrt(v.sum(0)) / N),
            "slope": (np.einsum("nk,nrk->rk", dev, Xs) / sxx, np.ones(K), np.sqrt((dev * dev * v).sum(0)) / sxx),
        }
    out = {}
    for test, (est, truth, sd) in tests.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(sd > 0, (est - truth) / sd, np.where(est == truth, 0.0, np.inf))
        out[test] = (est, np.broadcast_to(truth, est.shape), np.broadcast_to(sd, est.shape), z)
    return out


def _testable(P: np.ndarray) -> np.ndarray:
    """The outcomes :func:`classes_judge` tests: expected count and the count outside it both ≥ :data:`MIN_EXPECTED`."""
    return (P.sum(0) >= MIN_EXPECTED) & ((1 - P).sum(0) >= MIN_EXPECTED)


def _bound(P: np.ndarray, alpha: float) -> tuple[float, int]:
    m = max(2 * int(_testable(P).sum()), 1)
    return float(st.norm.ppf(1 - alpha / (2 * m))), m


def _classes_ok_many(Xs, P, alpha: float = ALPHA) -> np.ndarray:
    """:func:`classes_judge`'s verdict for each output of the stack ``Xs`` (pairs × outputs × outcomes)."""
    q, _ = _bound(P, alpha)
    keep = _testable(P)
    z = _class_z(Xs, P)
    return np.all([np.all(np.isfinite(z[t][3][:, keep]) & (np.abs(z[t][3][:, keep]) <= q), axis=1) for t in z], axis=0)


def classes_judge(X, P, alpha: float = ALPHA) -> dict:
    """The criterion of the ``diverging_share`` row: every outcome of :data:`CLASS_TESTS` (columns of the
    classifier's 0/1 output ``X`` and of their probabilities given who judged ``P``, pairs × outcomes;
    :func:`conditional_class_probabilities`) by two z tests — ``share``: the share of pairs with the outcome vs
    its mean probability; ``slope``: the least-squares slope of the outcome on each pair's probability vs 1 (a
    correct classifier is calibrated pair by pair, E[x | p] = p; one that gets the share right on the wrong pairs,
    or reads A as B, has a slope far from 1) — with the exact variances of independent pairs (:func:`_class_z`). An
    outcome whose expected count, or that of the pairs outside it, is below :data:`MIN_EXPECTED` is not tested.
    The row's family-wise ``alpha`` is split Bonferroni over the tests run, each two-sided: |z| ≤ Φ⁻¹(1 − alpha /
    (2m)) for m tests. Returns ``tests`` (one row per (outcome, test): estimate, planted, sd, z, ok), ``bound``,
    ``m``, ``failing`` (the failed tests' names) and ``ok``."""
    X, P = np.asarray(X, float), np.asarray(P, float)
    q, m = _bound(P, alpha)
    z = _class_z(X[:, None, :], P)
    keep = _testable(P)
    rows = [
        {
            "outcome": name,
            "test": t,
            "estimate": z[t][0][0, k],
            "planted": z[t][1][0, k],
            "sd": z[t][2][0, k],
            "z": z[t][3][0, k],
        }
        for k, name in enumerate(CLASS_TESTS)
        if keep[k]
        for t in ("share", "slope")
    ]
    tests = pd.DataFrame(rows, columns=["outcome", "test", "estimate", "planted", "sd", "z"])
    tests["ok"] = np.isfinite(tests["z"]) & (tests["z"].abs() <= q)
    failing = [f"{o} {t}" for o, t, ok in zip(tests["outcome"], tests["test"], tests["ok"]) if not ok]
    return {"tests": tests, "bound": q, "m": m, "failing": failing, "ok": not failing}


#: the inputs of the last data sets the two agreement rows read (the planted probabilities), with the data they
#: belong to (so their ids stay their own): both rows and the mutation table's broken classifiers of one data set
#: compute them once
_INPUTS: dict = {}


def _diverging_inputs(data, seed: int, ties: str = "majority"):
    """The planted probabilities of ``data`` under the population (:func:`expected_agreement`, shown beside the
    truths) and the outcome probabilities given who judged (:func:`conditional_class_probabilities`, the truths of
    both rows), kept for the last four (data, seed, ties)."""
    key = (id(data), int(seed), str(ties))
    if key not in _INPUTS:
        exp = expected_agreement(data, ties)
        C = conditional_class_probabilities(data, ties).reindex(exp.index).to_numpy(float)
        while len(_INPUTS) >= 4:
            _INPUTS.pop(next(iter(_INPUTS)))
        _INPUTS[key] = (data, exp, C)
    return _INPUTS[key][1:]


def _permuted(seed: int):
    """The null of both agreement rows: the classifier's output of each pair given to another pair (pairs
    permuted), the production output of every pair's votes read on the wrong pair — it keeps every class's share
    exactly, so it passes every share test and only the per-pair tests can fail it."""
    return lambda g, n: g.permutation(n)


def _definition_differs(Xs: np.ndarray, V: np.ndarray) -> np.ndarray:
    """For each classifier output of the stack ``Xs`` (pairs × outputs × outcomes), how many pairs' outcomes differ
    from ``V``, the definitions applied to the pairs' own planted votes (:func:`vote_outcomes`)."""
    return (Xs != V[:, None, :]).any(axis=2).sum(axis=0)


def _shares_row(classified, data, seed, ties) -> dict:
    exp, P = _diverging_inputs(data, seed, ties)
    X = observed_classes(classified, exp.index)
    V = vote_outcomes(data, exp.index, ties)
    j = classes_judge(X, P)
    differ = int(_definition_differs(X[:, None, :], V)[0])
    definition = f"definition on the votes ({differ:,} of {len(X):,} pairs differ)"
    t = j["tests"].set_index(["outcome", "test"])
    perm = _permuted(seed)

    def judge_nulls(nulls):
        Xs = np.stack(nulls, axis=1)
        return _classes_ok_many(Xs, P) & (_definition_differs(Xs, V) == 0)

    null = null_pass_rate_many(judge_nulls, lambda g: X[perm(g, len(X))], seed=seed)
    q, level = j["bound"], level_text(ALPHA, j["m"])

    def read(o, test):
        e, pl, sd = t.loc[(o, test), ["estimate", "planted", "sd"]]
        return interval_reads(f"{o} {test}", e, e - q * sd, e + q * sd, pl)

    shown = [("diverging", "share"), ("diverging", "slope")]
    failing = [tuple(f.rsplit(" ", 1)) for f in j["failing"]]
    others = t.drop(index=shown + failing, errors="ignore")
    worst = others["z"].abs().idxmax() if len(others) else None
    reads = f"{level} intervals: " + ", ".join(read(*x) for x in shown + [f for f in failing if f not in shown])
    if worst is not None:
        reads += f"; largest |z| of the other tests {abs(others.loc[worst, 'z']):.2f} ({' '.join(worst)})"
    reads += f"; the definitions on each pair's own votes: {differ:,} of {len(X):,} pairs differ"
    population = exp[[f"p_{k}" for k in CLASS_TESTS]].mean()
    per = ", ".join(
        f"{o} {t.loc[(o, 'share'), 'estimate']:.3f} (truth {t.loc[(o, 'share'), 'planted']:.3f}, population "
        f"{population[f'p_{o}']:.3f})"
        for o in CLASS_TESTS
        if (o, "share") in t.index
    )
    est, truth, sd = t.loc[("diverging", "share"), ["estimate", "planted", "sd"]]
    return {
        **row(
            "diverging",
            "diverging_share",
            f"the §2 / §3 agreement classes of {data.name}'s pairs, the substantial flag and the majority choice, each "
            "against its truth, the exact probability given who judged each pair (the annotators' planted weights; "
            "only the judgment noise left to chance), with the planted population's value (annotators drawn afresh) "
            f"beside it: {per}",
            truth,
            est,
            (est - 1.959964 * sd, est + 1.959964 * sd),
            f"for each of the {j['m'] // 2} outcomes (classes, substantial, majority A / B / tie / none), its share "
            f"and its per-pair slope on its probability given who judged (truth 1): |z| ≤ {q:.2f} each (Bonferroni: "
            f"the row's α = {ALPHA:.2g} split over the {j['m']} two-sided tests; exact variances of pairs independent "
            "given their annotators); and every pair's outputs equal the §2 / §3 definitions applied to its own "
            "planted votes (written apart from the classifier: 0 pairs may differ)",
            j["ok"] and differ == 0,
            interval="normal, exact variance over pairs given their annotators",
            null_pass=null,
            reads=reads,
        ),
        "failing": ", ".join(j["failing"] + ([definition] if differ else [])),
        "tests_ok": j["ok"],
    }


def taste_judge(Xs, p, t, alpha: float = ALPHA) -> dict:
    """The criterion of the ``diverging_taste_driven`` row for each column of ``Xs`` (pairs × outputs of the
    diverging indicator), against ``p``, each pair's P(diverging) given who judged it
    (:func:`conditional_class_probabilities`), and ``t``, whether it was planted taste-driven. Two z tests with the
    row's ``alpha`` split Bonferroni, each two-sided: ``taste``, the taste-driven share of the diverging pairs
    Σxt / Σx vs Σpt / Σp (its variance by the delta method over independent pairs: Σ(t − r)² p(1 − p) / (Σp)², r
    the truth), and ``rate``, the share of taste-driven pairs classified diverging Σxt / Σt vs Σpt / Σt (exact:
    Σt p(1 − p) / (Σt)²). Returns per test (estimates, truth, sd, z), ``bound`` and ``ok`` (per output)."""
    Xs = np.asarray(Xs, float).reshape(len(p), -1)
    q = float(st.norm.ppf(1 - alpha / 4))
    v = p * (1 - p)
    r_taste, r_rate = (p * t).sum() / p.sum(), (p * t).sum() / t.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        tests = {
            "taste": ((Xs * t[:, None]).sum(0) / Xs.sum(0), r_taste, np.sqrt(((t - r_taste) ** 2 * v).sum()) / p.sum()),
            "rate": ((Xs * t[:, None]).sum(0) / t.sum(), r_rate, np.sqrt((t * v).sum()) / t.sum()),
        }
    out, ok = {}, np.ones(Xs.shape[1], bool)
    for k, (est, truth, sd) in tests.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            z = (est - truth) / sd if sd > 0 else np.where(est == truth, 0.0, np.inf)
        out[k] = (est, truth, sd, z)
        ok &= np.isfinite(z) & (np.abs(z) <= q)
    return {**out, "bound": q, "ok": ok}


def _taste_row(classified, data, seed, ties) -> dict:
    exp, C = _diverging_inputs(data, seed, ties)
    x = (classified["agreement"].reindex(exp.index) == "diverging").to_numpy(float)
    p, t = C[:, CLASS_TESTS.index("diverging")], exp["taste_driven"].to_numpy(float)
    j = taste_judge(x, p, t)
    (est, planted, sd, z), (e2, p2, sd2, z2) = ([float(np.ravel(v)[0]) for v in j[k]] for k in ("taste", "rate"))
    pop = exp["p_diverging"].to_numpy(float)
    pop_taste, pop_rate = (pop * t).sum() / pop.sum(), (pop * t).sum() / t.sum()
    perm = _permuted(seed)
    null = null_pass_rate_many(
        lambda nulls: taste_judge(np.column_stack(nulls), p, t)["ok"], lambda g: x[perm(g, len(x))], seed=seed
    )
    q, level = j["bound"], level_text(ALPHA, 2)
    reads = f"{level} intervals: " + ", ".join(
        interval_reads(TESTS[k], e, e - q * d, e + q * d, tr)
        for k, e, tr, d in (("taste", est, planted, sd), ("rate", e2, p2, sd2))
    )
    failing = [TESTS[k] for k, zz in (("taste", z), ("rate", z2)) if not (np.isfinite(zz) and abs(zz) <= q)]
    return {
        **row(
            "diverging",
            "diverging_taste_driven",
            "share of the diverging pairs that were planted taste-driven (a cause of Table 1, not an objective "
            f"pair) against its truth given who judged each pair (population value {pop_taste:.3f}); rate: the share "
            f"of taste-driven pairs classified diverging: {e2:.3f} (truth {p2:.3f}, population {pop_rate:.3f}); z "
            f"{z:+.2f}, {z2:+.2f}",
            planted,
            est,
            (est - 1.959964 * sd, est + 1.959964 * sd),
            f"|z| ≤ {q:.2f} for the taste-driven share and the rate (Bonferroni: the row's α = {ALPHA:.2g} split over "
            "the 2 two-sided tests; variances over pairs independent given their annotators)",
            bool(j["ok"][0]),
            interval="normal, variance over pairs given their annotators (delta method)",
            null_pass=null,
            reads=reads,
        ),
        "failing": ", ".join(failing),
    }


#: the tests of :func:`diverging_judge` as the page names them
TESTS = {"share": "share", "slope": "slope", "taste": "taste-driven share", "rate": "rate among taste-driven pairs"}


def diverging_share(classified: pd.DataFrame, data, seed: int = 0, *, ties: str = "majority") -> dict:
    """Row ``diverging_share``: the § 2 / § 3 agreement classes (``classified``, :func:`pluralign.diverging.
    agreement.agreement_classes` of ``data`` with ``ties``) against the planted votes: every class, the
    substantial flag and the majority choice, each by its share and its per-pair calibration slope against its
    exact probability under the planted population (:func:`class_probabilities`, :func:`classes_judge`), and pair
    by pair against the definitions applied to the pair's own planted votes (:func:`vote_outcomes`: given the votes
    the classes are determined, so a correct classifier differs on no pair and a threshold off by one on the pairs
    it moves). Estimate: the share of diverging pairs beside its planted expectation."""
    return _shares_row(classified, data, seed, ties)


def diverging_taste_driven(classified: pd.DataFrame, data, seed: int = 0, *, ties: str = "majority") -> dict:
    """Row ``diverging_taste_driven``: the share of diverging pairs that were planted taste-driven vs its planted
    expectation Σ P(diverging)·taste / Σ P(diverging), and the share of taste-driven pairs classified diverging
    vs their mean P(diverging) (:func:`diverging_judge`)."""
    return _taste_row(classified, data, seed, ties)


#: the causes a reader of surface features can see (:func:`pluralign.diverging.causes.rule_causes`)
VISIBLE_CAUSES = ("verbosity", "format", "comply-vs-refuse", "refuse-vs-refuse")


#: Diverging Preferences § 2.1: Cohen's κ between the paper's three authors labelling causes (MultiPref 0.59,
#: HelpSteer2 0.58) — the bar a cause labeller is held to (as good as the paper's own annotators agree)
PAPER_CAUSE_KAPPA = 0.59


def kappas(stack: np.ndarray) -> np.ndarray:
    """Cohen's κ (unweighted, as :func:`sklearn.metrics.cohen_kappa_score`) of each resample in ``stack``
    (resamples × pairs × 2 integer label codes): (p_o − p_e) / (1 − p_e), p_o the share of pairs labelled alike,
    p_e the agreement expected from the two labellers' label shares (Cohen 1960)."""
    a, b = stack[..., 0], stack[..., 1]
    p_o = (a == b).mean(axis=1)
    p_e = sum((a == c).mean(axis=1) * (b == c).mean(axis=1) for c in np.unique(stack))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (p_o - p_e) / (1 - p_e)


def cause_agreement(data, pair_ids, labeller=None, seed: int = 0, threshold: float = PAPER_CAUSE_KAPPA) -> dict:
    """Cohen's κ between a cause labeller (default the demo's stand-in,
    :func:`~pluralign.diverging.causes.rule_causes`) and the planted causes on ``pair_ids`` (§2.1 measures
    agreement with κ). Each pair gets one label: its cause if it is one of :data:`VISIBLE_CAUSES` (a
    labeller's set of exactly one of them), else "other"; passes when κ ≥ ``threshold`` (the paper's
    inter-annotator κ, :data:`PAPER_CAUSE_KAPPA`). A stand-in row: it checks the labeller, not a method."""
    from sklearn.metrics import cohen_kappa_score

    from pluralign.diverging import causes as cz

    ids = pd.Index(list(pair_ids))
    labels = (labeller or cz.rule_causes)(data, ids)
    got = (
        pd.Series(
            {r.pair_id: next(iter(r.causes)) if len(r.causes) == 1 else "other" for r in labels.itertuples()},
            dtype=object,
        )
        .reindex(ids)
        .fillna("other")
    )
    got = got.where(got.isin(VISIBLE_CAUSES), "other")
    planted = data.truth["cause"].reindex(ids)
    planted = planted.where(planted.isin(VISIBLE_CAUSES), "other")
    codes = pd.factorize(pd.concat([planted, got]))[0]
    x = np.column_stack([codes[: len(ids)], codes[len(ids) :]])
    return _stand_in_reaches(
        "cause_agreement",
        f"Cohen's κ, the demo's cause labeller (surface rules) vs the planted causes on {len(ids)} diverging "
        f"pairs ({', '.join(VISIBLE_CAUSES)} or other)",
        bootstrap_ci(x, lambda v: cohen_kappa_score(v[:, 0], v[:, 1]), seed=seed, n_boot=1000, many=kappas),
        "κ",
        threshold,
        "the paper's κ between its annotators, § 2.1",
    )


def meanvar_auroc_diverging(mv: pd.DataFrame, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.7) -> dict:
    """AUROC of the mean-variance RM's σ (σ_A + σ_B; Diverging Preferences §4) for telling planted taste-driven
    held-out pairs from planted single-answer ones (objective pairs with one correct answer)."""
    t = truth.reindex(mv.index)
    taste, single = t["taste_driven"].astype(bool), (~t["taste_driven"].astype(bool)) & (t["kind"] == "single")
    keep = taste | single
    sigma = (mv["sigma_a"] + mv["sigma_b"])[keep]
    from pluralign.diverging.knowing import disagreement_auroc

    return _stand_in_reaches(
        "meanvar_auroc_diverging",
        f"AUROC of the mean-variance RM's σ_A + σ_B, planted taste-driven ({int(taste.sum())}) vs single-answer "
        f"({int(single.sum())}) held-out pairs",
        disagreement_auroc(sigma.to_numpy(), taste[keep].to_numpy(), n_boot=1000, seed=seed),
        "AUROC",
        threshold,
    )


def _high_agreement(truth: pd.DataFrame, ids) -> pd.Series:
    s = truth["share_a"].reindex(ids)
    return (s >= HIGH_AGREEMENT) | (s <= 1 - HIGH_AGREEMENT)


def rm_accuracy_high_agreement(gap: pd.Series, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.85) -> dict:
    """Accuracy of a reward model's held-out reward gap r_A − r_B against the population majority, on the
    held-out pairs where the simulated population agrees (≥ 80 % on one side)."""
    hi = _high_agreement(truth, gap.index)
    right = ((gap[hi] > 0) == (truth["share_a"].reindex(gap.index)[hi] > 0.5)).to_numpy(float)
    return _stand_in_reaches(
        "rm_accuracy_high_agreement",
        f"accuracy of the demo RM (BT (All)) vs the population majority on {len(right)} held-out pairs where "
        f"≥ {HIGH_AGREEMENT:.0%} of the population agree",
        bootstrap_ci(right, seed=seed),
        "accuracy",
        threshold,
    )


def rm_utility_correlation(gap: pd.Series, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.7) -> dict:
    """Pearson r of a reward model's held-out reward gap with the planted utility difference (the population's
    mean utility gap ``truth.mean_gap``)."""
    return _stand_in_reaches(
        "rm_utility_correlation",
        f"Pearson r, the demo RM's reward gap vs the planted utility difference on {len(gap)} held-out pairs",
        pearson_ci(gap.to_numpy(), truth["mean_gap"].reindex(gap.index).to_numpy(), seed=seed),
        "r",
        threshold,
    )


def claim_mv_identifies_diverging(summary) -> dict:
    """Diverging Preferences §4: the mean-variance RM's predicted disagreement tells diverging from
    high-agreement pairs (AUROC above chance; verdict from the CI)."""
    a = summary.auc
    return row(
        "diverging",
        "claim_mv_identifies_diverging",
        "AUROC of the mean-variance RM's predicted disagreement, diverging vs high-agreement held-out pairs (§4)",
        None,
        a.estimate,
        (a.lo, a.hi),
        "paper: the mean-variance RM identifies diverging pairs (AUROC > 0.5: CI above 0.5)",
        a.lo > 0.5,
        kind="claim",
    )


def claim_bt_decisive_on_diverging(p_a: pd.Series, classified: pd.DataFrame, seed: int = 0) -> dict:
    """Diverging Preferences §3: a Bradley-Terry RM is about as decisive on diverging pairs as on high-agreement
    ones — the difference of mean |P(A) − ½| (high-agreement minus diverging) is small (CI within ±0.05)."""
    from pluralign.cross.training import decisiveness_gaps

    # Table 2's measure max(p, 1 − p) = ½ + |p − ½|: its gap is the gap of |P(A) − ½| (Part IV's bootstrap)
    g = decisiveness_gaps(classified, {"BT (All)": p_a}, {}, n_boot=1000, seed=seed).loc["BT (All)"]
    cls = classified["agreement"].reindex(p_a.index)
    n_a, n_b = int((cls == "high-agreement-pref").sum()), int((cls == "diverging").sum())
    lo, hi = float(g["lo"]), float(g["hi"])
    return row(
        "diverging",
        "claim_bt_decisive_on_diverging",
        f"BT (All): mean |P(A) − ½| on high-agreement ({n_a}) minus diverging ({n_b}) held-out pairs (§3)",
        None,
        float(g["gap"]),
        (lo, hi),
        "paper: BT RMs are as decisive on diverging as on high-agreement pairs (CI inside ±0.05)",
        -0.05 <= lo and hi <= 0.05,
        kind="claim",
    )
