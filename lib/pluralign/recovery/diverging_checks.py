"""Part I (Diverging Preferences) against the planted truth: the agreement classes (§2), the cause labeller
(§2.1), the demo's reward models (Table 2) and the mean-variance RM (§4), and two of the paper's claims."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd
from scipy import stats as st
from scipy.special import gammaln, ndtr

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
    "CLASS_TESTS",
    "annotator_probabilities",
    "vote_classes",
    "class_probabilities",
    "judgment_probabilities",
    "conditional_class_probabilities",
    "observed_classes",
    "expected_agreement",
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


#: the outputs of :func:`pluralign.diverging.agreement.agreement_classes` that the ``diverging_share`` row checks
#: pair by pair against the planted votes: its four classes (Diverging Preferences § 2 and § 3 "Results"; Table 2's
#: rows), the ``substantial`` flag of the diverging pairs (Table 2's "Diverging Prefs (Subst.)") and the four values
#: of its ``majority`` column (the response chosen by more than half of the judgments, "tie", or "none")
CLASS_TESTS = (
    "high-agreement-pref",
    "high-agreement-tie",
    "diverging",
    "other",
    "substantial",
    "majority A",
    "majority B",
    "majority tie",
    "majority none",
)


def annotator_probabilities(data) -> np.ndarray:
    """Per pair (rows in ``data.truth``'s order), the probability that one annotator of the *planted population*
    gives each of the five MultiPref judgments −2, −1, 0, +1, +2 (negative prefers A; significant when |p| = 2):
    the annotator's utility gap is Gaussian with the population's mean and variance of the weights and the
    simulator's judgment noise, cut at the simulator's ``tie`` and ``significant`` thresholds, and on a pair with
    a subtle factual error a mixture over noticing it (share ``detect``). Written from the simulator's definition
    (:mod:`pluralign.data.simulate`); :func:`pluralign.diverging.agreement.planted_divergence` computes the same
    model's P(diverging) by inclusion-exclusion, which a test ties to :func:`class_probabilities`."""
    from pluralign.data.simulate import FEATURES

    opts, truth = data.meta.get("options", {}), data.truth
    if truth is None or opts.get("annotation_format") != "multipref":
        raise ValueError("the planted votes need simulated MultiPref-format data (pluralign.data.simulate)")
    w = data.meta["weights"]
    mu, sd = w["mean"].reindex(FEATURES).to_numpy(float), w["sd"].reindex(FEATURES).to_numpy(float)
    dX = np.column_stack([truth[f"a_{f}"].to_numpy(float) - truth[f"b_{f}"].to_numpy(float) for f in FEATURES])
    fe = FEATURES.index("factual_error")
    tie, sig, detect = opts["tie"], opts["significant"], opts["detect"]
    var_nofe = (dX**2) @ np.where(np.arange(len(FEATURES)) == fe, 0.0, sd**2) + 2 * opts["noise"] ** 2

    def judgments(m, s):
        c = [ndtr((v - m) / s) for v in (sig, tie, -tie, -sig)]  # P(gap ≤ v)
        return np.column_stack([1 - c[0], c[0] - c[1], c[1] - c[2], c[2] - c[3], c[3]])

    m = dX @ mu
    noticed = judgments(m, np.sqrt(var_nofe + dX[:, fe] ** 2 * sd[fe] ** 2))
    missed = judgments(m - dX[:, fe] * mu[fe], np.sqrt(var_nofe))
    subtle = truth["subtle_error"].to_numpy(bool)[:, None]
    return np.where(subtle, detect * noticed + (1 - detect) * missed, noticed)


@functools.lru_cache(maxsize=16)
def _compositions(n: int) -> np.ndarray:
    """Every way ``n`` judgments fall on the five values −2 … +2: counts, one row per composition."""
    return np.array([c for c in itertools.product(range(n + 1), repeat=5) if sum(c) == n], dtype=int).reshape(-1, 5)


def vote_classes(counts: np.ndarray, ties: str = "majority") -> np.ndarray:
    """Per composition of a pair's judgments (``counts``: rows of the counts of −2, −1, 0, +1, +2), its outcome in
    every one of :data:`CLASS_TESTS` (0/1), from Diverging Preferences' definitions as quoted in
    :mod:`pluralign.diverging.agreement` (§ 2: diverging when one annotator prefers A, one prefers B and one of
    them significantly; substantial when one significantly prefers each; § 3: a high-agreement preference when
    more than half choose one response and nobody the other, a high-agreement tie when more than half tie, or
    under ``ties="plurality"`` when ties are at least as frequent as either response; diverging takes
    precedence, then the high-agreement preference). Written from the definitions, not through the library's
    classifier, so that :func:`class_probabilities` is the truth a correct classifier is measured against."""
    a2, a1, t, b1, b2 = np.asarray(counts, int).T
    na, nb, n = a2 + a1, b1 + b2, a2 + a1 + t + b1 + b2
    div = (na >= 1) & (nb >= 1) & (a2 + b2 >= 1)
    maj_a, maj_b, maj_t = 2 * na > n, 2 * nb > n, 2 * t > n
    pref = ((maj_a & (nb == 0)) | (maj_b & (na == 0))) & ~div
    tie_cls = (maj_t if ties == "majority" else (t > 0) & (t >= na) & (t >= nb)) & ~div & ~pref
    out = [pref, tie_cls, div, ~(div | pref | tie_cls), div & (a2 >= 1) & (b2 >= 1)]
    out += [maj_a, maj_b, maj_t, ~(maj_a | maj_b | maj_t)]
    return np.column_stack(out).astype(float)


def class_probabilities(data, ties: str = "majority") -> pd.DataFrame:
    """Per pair, the probability under the *planted population* of each outcome of :data:`CLASS_TESTS`: the exact
    expectation over its annotators' judgments, independent draws of :func:`annotator_probabilities` (the
    multinomial over every composition of as many judgments as the pair has, classified by :func:`vote_classes`).
    A pair without judgments is "other" with majority "none". Indexed by pair_id (``data.truth``'s order)."""
    p = annotator_probabilities(data)
    n_ann = data.n_annotators().reindex(data.truth.index).fillna(0).to_numpy(int)
    logp = np.log(np.clip(p, 1e-300, 1.0))
    out = np.zeros((len(p), len(CLASS_TESTS)))
    for n in np.unique(n_ann):
        rows = n_ann == n
        c = _compositions(int(n))
        weight = np.exp(gammaln(n + 1) - gammaln(c + 1).sum(1) + logp[rows] @ c.T)  # multinomial probabilities
        out[rows] = weight @ vote_classes(c, ties)
    return pd.DataFrame(out, index=data.truth.index, columns=list(CLASS_TESTS))


def judgment_probabilities(data) -> pd.DataFrame:
    """Per judgment (rows of ``data.annotations``), the probability of each of the five MultiPref judgments −2,
    −1, 0, +1, +2 given *who* judged: the annotator's own planted weights (``data.meta["annotators"]``, the pool;
    the factual-error weight 0 on a subtle error the annotator does not notice) make the utility gap
    (x_A − x_B) · w_j exactly, and the simulator's judgment noise (two entries' N(0, noise²)) is all that is left
    to chance, cut at its ``tie`` and ``significant`` thresholds. Written from the simulator's definition
    (:mod:`pluralign.data.simulate`). Returns the five probabilities with ``pair_id``."""
    from pluralign.data.simulate import FEATURES

    opts, truth = data.meta.get("options", {}), data.truth
    if truth is None or opts.get("annotation_format") != "multipref" or "annotators" not in data.meta:
        raise ValueError("the planted votes need simulated MultiPref-format data (pluralign.data.simulate)")
    pool = data.meta["annotators"]
    ann = data.annotations
    W = pool.reindex(ann["annotator_id"].to_numpy())[list(FEATURES)].to_numpy(float).copy()
    notices = pool["notices_subtle_errors"].reindex(ann["annotator_id"].to_numpy()).to_numpy(bool)
    t = truth.reindex(ann["pair_id"].to_numpy())
    dX = np.column_stack([t[f"a_{f}"].to_numpy(float) - t[f"b_{f}"].to_numpy(float) for f in FEATURES])
    fe = FEATURES.index("factual_error")
    W[t["subtle_error"].to_numpy(bool) & ~notices, fe] = 0.0
    m, s = (dX * W).sum(1), np.sqrt(2.0) * opts["noise"]
    tie, sig = opts["tie"], opts["significant"]
    c = [ndtr((v - m) / s) for v in (sig, tie, -tie, -sig)]  # P(gap ≤ v)
    probs = np.column_stack([1 - c[0], c[0] - c[1], c[1] - c[2], c[2] - c[3], c[3]])
    return pd.DataFrame(probs, columns=[-2, -1, 0, 1, 2], index=ann.index).assign(pair_id=ann["pair_id"].to_numpy())


@functools.lru_cache(maxsize=64)
def _step(k: int, v: int) -> np.ndarray:
    """The 0/1 matrix taking the compositions of ``k`` judgments to those of ``k + 1`` by one more judgment of
    value index ``v`` (rows :func:`_compositions` ``(k)``, columns ``(k + 1)``)."""
    before, after = _compositions(k), _compositions(k + 1)
    index = {tuple(c): i for i, c in enumerate(after)}
    T = np.zeros((len(before), len(after)))
    for i, c in enumerate(before):
        c = c.copy()
        c[v] += 1
        T[i, index[tuple(c)]] = 1.0
    return T


def conditional_class_probabilities(data, ties: str = "majority") -> pd.DataFrame:
    """Per pair, the probability of each outcome of :data:`CLASS_TESTS` given who judged it: the pair's
    judgments are independent draws of :func:`judgment_probabilities` (one distribution per judgment), their
    composition's distribution built one judgment at a time, and each composition classified by
    :func:`vote_classes`. This is the expectation the classifier is consistent for on these annotators: given them,
    pairs are independent, so a share's and a slope's variances are exact sums over pairs. A pair without
    judgments is "other" with majority "none". Indexed by pair_id (``data.truth``'s order)."""
    jp = judgment_probabilities(data)
    ids = data.truth.index
    out = np.zeros((len(ids), len(CLASS_TESTS)))
    out[:, [CLASS_TESTS.index("other"), CLASS_TESTS.index("majority none")]] = 1.0  # no judgment
    pos = ids.get_indexer(jp["pair_id"].to_numpy())
    keep = pos >= 0
    pos, probs = pos[keep], jp[[-2, -1, 0, 1, 2]].to_numpy(float)[keep]
    order = np.argsort(pos, kind="stable")
    pos, probs = pos[order], probs[order]
    sizes = np.bincount(pos, minlength=len(ids))
    rank = np.arange(len(pos)) - np.repeat(np.cumsum(sizes) - sizes, sizes)  # each judgment's place in its pair
    for n in np.unique(sizes[sizes > 0]):
        pairs = np.flatnonzero(sizes == n)
        stack = np.zeros((len(ids), int(n), 5))
        mine = sizes[pos] == n
        stack[pos[mine], rank[mine]] = probs[mine]
        stack = stack[pairs]
        dist = np.ones((len(pairs), 1))
        for k in range(int(n)):
            dist = sum((dist * stack[:, k, v : v + 1]) @ _step(k, v) for v in range(5))
        out[pairs] = dist @ vote_classes(_compositions(int(n)), ties)
    return pd.DataFrame(out, index=ids, columns=list(CLASS_TESTS))


def observed_classes(classified: pd.DataFrame, ids) -> np.ndarray:
    """The classifier's output (:func:`~pluralign.diverging.agreement.agreement_classes`) on the pairs ``ids`` as
    0/1 columns in the order of :data:`CLASS_TESTS`."""
    c = classified.reindex(ids)
    agreement, majority = c["agreement"].to_numpy(object), c["majority"].to_numpy(object)
    cols = [agreement == k for k in CLASS_TESTS[:4]]
    cols.append((agreement == "diverging") & c["substantial"].fillna(False).to_numpy(bool))
    cols += [majority == k for k in ("A", "B", "tie", "none")]
    return np.column_stack(cols).astype(float)


def expected_agreement(data, ties: str = "majority") -> pd.DataFrame:
    """Per pair, the probability under the *planted population* that its annotators make it diverging
    (``p_diverging``; :func:`class_probabilities`, equal to :func:`pluralign.diverging.agreement.
    planted_divergence`), of every outcome of :data:`CLASS_TESTS` (``p_<outcome>``) and whether it was planted
    taste-driven (``taste_driven``), indexed by pair_id."""
    try:
        probs = class_probabilities(data, ties)
    except ValueError as err:
        raise ValueError(f"expected_agreement needs simulated MultiPref-format data: {err}") from None
    out = probs.add_prefix("p_")
    out["taste_driven"] = data.truth["taste_driven"].reindex(out.index).to_numpy(bool)
    return out


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


def _shares_row(classified, data, seed, ties) -> dict:
    exp, P = _diverging_inputs(data, seed, ties)
    X = observed_classes(classified, exp.index)
    j = classes_judge(X, P)
    t = j["tests"].set_index(["outcome", "test"])
    perm = _permuted(seed)
    null = null_pass_rate_many(
        lambda nulls: _classes_ok_many(np.stack(nulls, axis=1), P), lambda g: X[perm(g, len(X))], seed=seed
    )
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
            f"the row's α = {ALPHA:g} split over the {j['m']} two-sided tests; exact variances of pairs independent "
            "given their annotators)",
            j["ok"],
            interval="normal, exact variance over pairs given their annotators",
            null_pass=null,
            reads=reads,
        ),
        "failing": ", ".join(j["failing"]),
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
            f"|z| ≤ {q:.2f} for the taste-driven share and the rate (Bonferroni: the row's α = {ALPHA:g} split over "
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
    exact probability under the planted population (:func:`class_probabilities`, :func:`classes_judge`).
    Estimate: the share of diverging pairs beside its planted expectation."""
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
