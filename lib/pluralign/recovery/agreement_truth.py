"""The planted truth of Diverging Preferences' agreement classes (§ 2 and § 3; Table 2's rows): the probability of
every outcome of :func:`pluralign.diverging.agreement.agreement_classes` for each pair of the simulated data, under
the planted population (exact over the compositions of a pair's judgments) and given who judged the pair (its
annotators' own planted weights, the judgment noise the only chance left), and the classifier's output read as the
same outcomes. The ``diverging_share`` and ``diverging_taste_driven`` rows (:mod:`.diverging_checks`) judge the
library's classifier against them."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd
from scipy.special import gammaln, ndtr

__all__ = [
    "CLASS_TESTS",
    "annotator_probabilities",
    "vote_classes",
    "class_probabilities",
    "judgment_probabilities",
    "conditional_class_probabilities",
    "observed_classes",
    "vote_outcomes",
    "expected_agreement",
]


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


def vote_outcomes(data, ids, ties: str = "majority") -> np.ndarray:
    """Per pair of ``ids``, its outcome in every one of :data:`CLASS_TESTS` (0/1, the layout of
    :func:`observed_classes`) from its own planted judgments: the composition of the MultiPref ``preference`` values
    −2 … +2 in ``data.annotations`` (negative prefers A) classified by :func:`vote_classes`, the definitions
    written apart from the library's classifier. Given the votes the classes are determined, so a correct classifier
    equals this on every pair. A pair without judgments is "other" with majority "none"; a judgment outside −2 … +2
    is a ``ValueError`` naming its row."""
    ann = data.annotations
    pref = pd.to_numeric(ann["preference"], errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isin(pref, (-2, -1, 0, 1, 2)))
    if len(bad):
        raise ValueError(
            f"{data.name}: annotation row {int(bad[0])}, field preference: {ann['preference'].iat[bad[0]]!r} is not "
            "a MultiPref judgment (-2, -1, 0, +1, +2)"
        )
    pos = pd.Index(ids).get_indexer(ann["pair_id"].to_numpy())
    keep = pos >= 0
    counts = np.zeros((len(ids), 5), dtype=int)
    np.add.at(counts, (pos[keep], pref[keep].astype(int) + 2), 1)
    return vote_classes(counts, ties)


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
