"""A seeded simulator of multi-annotator preference data with planted truth (the demo profile's data).

Every pair is drawn for one *cause* of (dis)agreement — the names of the Diverging Preferences
taxonomy (Zhang et al. 2024, Table 1: task-underspecification, verbosity, format, aesthetic-taste,
complexity, safety, capabilities, comply-vs-refuse, refuse-vs-refuse, errors) or ``none`` for
objective pairs (an obvious factual error, harmful compliance vs a refusal, or paraphrase-only pairs,
Beyond the Binary §3.1 "indistinguishable"). The two responses differ in planted features
(:data:`FEATURES`) and the *texts carry them*: long responses are longer, formatted ones have a heading
and a numbered list, complex ones use technical jargon, refusals say "I'm sorry, but I can't…",
enthusiastic ones open with "Great question!", harmful ones give harmful instructions, erroneous ones
state a wrong fact — so a text reward model can learn them.

Annotators are drawn from a population with heterogeneous tastes: each annotator j has weights
``w_j ~ Normal(mean_f, sd_f)`` over the features (:func:`population_weights`), broad on the style
features and narrow and strongly negative on ``factual_error`` and ``harmfulness``. The pool that labels
the data represents its population (``match_pool=True``, the default): its draws are moment-matched, so
the pool's mean and sd of every weight equal the population's and exactly ``round(detect · n_pool)`` of
its annotators notice subtle errors — a plain draw of 40 annotators is off by up to ±0.6 on a style
weight, and everything a page compares with the population would inherit that sampling error. Her utility for a
response with features x is ``u = w_j · x`` plus judgment noise. In the MultiPref format (Diverging
Preferences §2) she reports A/B/tie with slight or significant strength from the utility gap
``d = u(A) − u(B)``: tie if ``|d| ≤ tie``, slight if ``|d| ≤ significant``, else significant. In the
HelpSteer2 format she rates each response on a 1–5 Likert scale (``round(3.5 + 0.8·u + η)``, clipped),
and the preference is the Likert difference (1 slight, ≥ 2 significant, 0 tie), exactly as
:func:`pluralign.data.hub.likert_preference` reads real HelpSteer2 data.

``.truth`` (index ``pair_id``): ``a_<feature>``, ``b_<feature>``, ``a_words``, ``b_words``, ``share_a`` —
the *population* probability that a random annotator prefers A (ties count half), computed from the
population distribution, not from the sampled annotators (analytically for MultiPref; for HelpSteer2
exactly over the rating noise and by a 2,000-draw Monte-Carlo population over the weights) —,
``mean_gap`` (population mean of d), ``cause``, ``kind`` (``single`` / ``multiple`` correct answers, Beyond
the Binary §3.1), ``distinguishable``, ``taste_driven``, ``prompt_type``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtr

from pluralign.data.core import PreferenceData
from pluralign.data.simulated_pairs import make_pair

#: The demo's data sets: the simulator's 1,200 pairs in MultiPref's and in HelpSteer2's annotation format (the data
#: page's default, and Part I's, which keeps them apart)
DEMO_DATASETS = [
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}},
]

FEATURES = (
    "verbosity",
    "format",
    "complexity",
    "sentiment",
    "interpretation",
    "refusal",
    "factual_error",
    "harmfulness",
)
CAUSES = (
    "task-underspecification",
    "verbosity",
    "format",
    "aesthetic-taste",
    "complexity",
    "safety",
    "capabilities",
    "comply-vs-refuse",
    "refuse-vs-refuse",
    "errors",
    "none",
)
TASTE_CAUSES = frozenset(CAUSES[:9])

#: population (mean, sd) of each feature weight; objective features share strong negative weights
POPULATION = {
    "verbosity": (0.6, 1.0),
    "format": (0.4, 0.9),
    "complexity": (-0.3, 0.9),
    "sentiment": (0.2, 1.0),
    "interpretation": (0.0, 1.0),
    "refusal": (-0.5, 1.0),
    "factual_error": (-3.0, 0.3),
    "harmfulness": (-4.0, 0.3),
}
_FE = FEATURES.index("factual_error")
DETECT = 0.5  # share of annotators who notice a *subtle* error (cause "errors")

#: default share of pairs per planted cause (``mix=`` overrides; normalised); "none" has three kinds
MIX = {
    "none:error": 0.20,
    "none:harm": 0.10,
    "none:paraphrase": 0.10,
    "verbosity": 0.12,
    "format": 0.08,
    "complexity": 0.06,
    "aesthetic-taste": 0.07,
    "task-underspecification": 0.08,
    "comply-vs-refuse": 0.05,
    "refuse-vs-refuse": 0.03,
    "safety": 0.03,
    "capabilities": 0.02,
    "errors": 0.06,
}


def population_weights(weights: dict | None = None) -> pd.DataFrame:
    """The population's true feature weights: DataFrame indexed by feature with ``mean`` and ``sd``
    (what a reward model trained on many annotators' judgments should imprint, SEAL §2.1)."""
    pop = {**POPULATION, **(weights or {})}
    return pd.DataFrame(
        {"mean": [pop[f][0] for f in FEATURES], "sd": [pop[f][1] for f in FEATURES]},
        index=pd.Index(FEATURES, name="feature"),
    )


# ---------------------------------------------------------------------------------------------
# the population and its judgments
# ---------------------------------------------------------------------------------------------
def _share_gaussian(m, s, tie):
    """P(A ≻ B) + ½ P(tie) for d ~ N(m, s²), A preferred when d > tie, tie when |d| ≤ tie."""
    return 0.5 * (ndtr((m - tie) / s) + ndtr((m + tie) / s))


def _likert_probs(mean, noise):
    """P(L = 1..5) for L = clip(round(mean + η), 1, 5), η ~ N(0, noise²) (last axis = category)."""
    cuts = np.arange(1.5, 5.0, 1.0)  # 1.5, 2.5, 3.5, 4.5
    cdf = ndtr((cuts - mean[..., None]) / noise)
    cdf = np.concatenate([np.zeros(mean.shape + (1,)), cdf, np.ones(mean.shape + (1,))], axis=-1)
    return np.diff(cdf, axis=-1)


@dataclass
class _Drawn:
    """The drawn pairs before annotation, sides already swapped: prompts, texts, features of each side (one
    column per :data:`FEATURES`), and the plan's labels."""

    prompt: list
    text_a: np.ndarray
    text_b: np.ndarray
    XA: np.ndarray
    XB: np.ndarray
    subtle: np.ndarray
    cause: np.ndarray
    kind: np.ndarray
    prompt_type: list


def _draw_pairs(rng, text_rng, n_pairs: int, mix: dict | None) -> _Drawn:
    """Draw each pair's plan from ``mix``, generate its texts, and swap a random half of the pairs' sides so that
    the planted side is not always A."""
    mix = {k: v for k, v in (mix or MIX).items() if v > 0}
    plans = np.array(list(mix))
    p = np.array([mix[k] for k in plans], dtype=float)
    drawn = rng.choice(plans, size=n_pairs, p=p / p.sum())
    rows = [make_pair(text_rng, str(plan)) for plan in drawn]
    q, ta, tb, xa, xb, cause, kind, ptype, subtle = map(list, zip(*rows))
    XA = np.array([[x[f] for f in FEATURES] for x in xa], dtype=float)
    XB = np.array([[x[f] for f in FEATURES] for x in xb], dtype=float)
    swap = rng.random(n_pairs) < 0.5
    XA, XB = np.where(swap[:, None], XB, XA), np.where(swap[:, None], XA, XB)
    ta, tb = np.array(ta, dtype=object), np.array(tb, dtype=object)
    ta, tb = np.where(swap, tb, ta), np.where(swap, ta, tb)
    return _Drawn(q, ta, tb, XA, XB, np.array(subtle), np.array(cause), np.array(kind), ptype)


def _annotator_pool(rng, mu, sd, n_pool: int, detect: float, match_pool: bool):
    """The pool's weights ``W`` (n_pool × features) and who notices subtle errors ``D``: moment-matched to the
    population when ``match_pool`` (module docstring), else drawn plainly."""
    Z = rng.standard_normal((n_pool, len(FEATURES)))
    u = rng.random(n_pool)
    if match_pool and n_pool > 1:  # the pool's mean and sd of each weight are the population's
        Z = (Z - Z.mean(0)) / Z.std(0)
        D = np.argsort(np.argsort(u)) < int(round(detect * n_pool))
    else:
        D = u < detect
    return mu + sd * Z, D


def _utilities(rng, drawn: _Drawn, W, D, n_annotators: int):
    """Assign ``n_annotators`` of the pool to each pair: (pair index, annotator index, u(A), u(B)) per judgment;
    an annotator who misses a subtle error gives it weight 0."""
    n_pairs, n_pool = len(drawn.XA), len(W)
    who = np.argsort(rng.random((n_pairs, n_pool)), axis=1)[:, :n_annotators]
    pair_idx = np.repeat(np.arange(n_pairs), n_annotators)
    ann_idx = who.ravel()
    Wj = W[ann_idx].copy()
    Wj[drawn.subtle[pair_idx] & ~D[ann_idx], _FE] = 0.0  # annotators who miss a subtle error
    ua = (Wj * drawn.XA[pair_idx]).sum(1)
    ub = (Wj * drawn.XB[pair_idx]).sum(1)
    return pair_idx, ann_idx, ua, ub


def _multipref_judgments(rng, ann, ua, ub, drawn: _Drawn, mu, sd, *, noise, tie, significant, detect):
    """MultiPref format: write A/B/tie + strength into ``ann``; return the population share preferring A,
    analytic over the Gaussian weights and noise, a mixture over noticing errors."""
    d = ua - ub + noise * rng.standard_normal(len(ua)) - noise * rng.standard_normal(len(ua))
    mag = np.where(np.abs(d) > significant, 2, 1)
    ann["preference"] = np.where(np.abs(d) <= tie, 0, -np.sign(d) * mag).astype(np.int8)
    dX = drawn.XA - drawn.XB
    var_nofe = (dX**2) @ np.where(np.arange(len(FEATURES)) == _FE, 0.0, sd**2) + 2 * noise**2
    m_all, s_all = dX @ mu, np.sqrt(var_nofe + dX[:, _FE] ** 2 * sd[_FE] ** 2)
    m_miss = m_all - dX[:, _FE] * mu[_FE]
    return np.where(
        drawn.subtle,
        detect * _share_gaussian(m_all, s_all, tie) + (1 - detect) * _share_gaussian(m_miss, np.sqrt(var_nofe), tie),
        _share_gaussian(m_all, s_all, tie),
    )


def _helpsteer2_judgments(rng, ann, ua, ub, *, center, scale, noise):
    """HelpSteer2 format: write each response's 1–5 Likert rating and their difference into ``ann``."""
    la = np.clip(np.round(center + scale * ua + noise * rng.standard_normal(len(ua))), 1, 5)
    lb = np.clip(np.round(center + scale * ub + noise * rng.standard_normal(len(ub))), 1, 5)
    ann["preference"] = np.clip(lb - la, -2, 2).astype(np.int8)
    ann["likert_a"], ann["likert_b"] = la.astype(np.int8), lb.astype(np.int8)


def _helpsteer2_share(drawn: _Drawn, mu, sd, *, seed, n_monte_carlo, detect, center, scale, noise):
    """The population share preferring A in the HelpSteer2 format: Monte-Carlo population of weights, exact over
    the rating noise (the features are binary: computed once per distinct (x_A, x_B, subtle) combination)."""
    mc = np.random.default_rng([seed, 2])
    Wmc = mu + sd * mc.standard_normal((n_monte_carlo, len(FEATURES)))
    Dmc = mc.random(n_monte_carlo) < detect
    combos, inverse = np.unique(np.column_stack([drawn.XA, drawn.XB, drawn.subtle]), axis=0, return_inverse=True)
    ua_, ub_, sub_ = combos[:, : len(FEATURES)], combos[:, len(FEATURES) : -1], combos[:, -1].astype(bool)
    ushare = np.empty(len(combos))
    for lo in range(0, len(combos), 256):
        sl = slice(lo, min(lo + 256, len(combos)))
        ma = Wmc @ ua_[sl].T  # (mc, chunk)
        mb = Wmc @ ub_[sl].T
        miss = ~Dmc[:, None] & sub_[sl][None, :]
        ma = ma - np.where(miss, Wmc[:, [_FE]] * ua_[sl, _FE][None, :], 0.0)
        mb = mb - np.where(miss, Wmc[:, [_FE]] * ub_[sl, _FE][None, :], 0.0)
        pa = _likert_probs(center + scale * ma, noise)
        pb = _likert_probs(center + scale * mb, noise)
        cb = np.cumsum(pb, axis=-1)
        below = np.concatenate([np.zeros(cb.shape[:-1] + (1,)), cb[..., :-1]], axis=-1)  # P(L_b < l)
        ushare[sl] = ((pa * below).sum(-1) + 0.5 * (pa * pb).sum(-1)).mean(0)
    return ushare[inverse.ravel()]


def _truth(ids, drawn: _Drawn, share, mu, detect: float) -> pd.DataFrame:
    """``.truth``: the planted features of both sides, word counts, the population share and mean gap, and the
    plan's labels (module docstring)."""
    dX = drawn.XA - drawn.XB
    truth = pd.DataFrame(index=pd.Index(ids, name="pair_id"))
    for k, f in enumerate(FEATURES):
        truth[f"a_{f}"] = drawn.XA[:, k].astype(int)
        truth[f"b_{f}"] = drawn.XB[:, k].astype(int)
    truth["a_words"] = [len(t.split()) for t in drawn.text_a]
    truth["b_words"] = [len(t.split()) for t in drawn.text_b]
    truth["share_a"] = share
    truth["mean_gap"] = dX @ mu - np.where(drawn.subtle, (1 - detect) * dX[:, _FE] * mu[_FE], 0.0)
    truth["cause"] = drawn.cause
    truth["kind"] = drawn.kind
    truth["distinguishable"] = ~((dX == 0).all(1))
    truth["taste_driven"] = np.isin(drawn.cause, list(TASTE_CAUSES))
    truth["subtle_error"] = drawn.subtle
    truth["prompt_type"] = drawn.prompt_type
    return truth


def _annotator_ids(idx) -> np.ndarray:
    return np.char.add("sim-annotator-", np.char.zfill(np.asarray(idx).astype(str), 3))


def _meta(name: str, seed: int, options: dict, pop: pd.DataFrame, W, D) -> dict:
    """The data's ``meta``: its provenance, the options it was drawn with, the population's weights and the
    sampled pool's."""
    pool = pd.DataFrame(
        W, columns=list(FEATURES), index=pd.Index(_annotator_ids(np.arange(len(W))), name="annotator_id")
    )
    pool["notices_subtle_errors"] = D
    return {
        "name": name,
        "source": f"pluralign.data.simulate(seed={seed})",
        "hub_id": None,
        "license": "CC0-1.0 (generated by pluralign)",
        "citation": "pluralign simulator (pluralign.data.simulate); causes from Zhang et al. 2024, "
        "Diverging Preferences, Table 1",
        "options": options,
        "weights": pop,
        "annotators": pool,
        "features": list(FEATURES),
        "filters": [],
    }


def simulate(
    n_pairs: int = 2000,
    seed: int = 0,
    annotation_format: str = "multipref",
    n_annotators: int = 4,
    n_pool: int = 40,
    mix: dict | None = None,
    weights: dict | None = None,
    detect: float = DETECT,
    noise: float = 0.35,
    tie: float = 0.25,
    significant: float = 1.0,
    likert_center: float = 3.5,
    likert_scale: float = 0.8,
    likert_noise: float = 0.4,
    n_monte_carlo: int = 2000,
    split: str = "train",
    name: str | None = None,
    match_pool: bool = True,
) -> PreferenceData:
    """Simulated multi-annotator preference data with planted truth (module docstring).

    ``annotation_format``: ``"multipref"`` (A/B/tie + slight/significant from the utility gap) or
    ``"helpsteer2"`` (per-response 1–5 Likert; preference from their difference; ``likert_a``/``likert_b``
    kept). ``n_annotators`` per pair (4, as MultiPref's, Diverging Preferences § 2), drawn from a pool of ``n_pool``
    annotators (the table of the demo's difficulty, :mod:`pluralign.data.difficulty`, gives the sources of these
    defaults and of ``noise``) whose weights come from
    :func:`population_weights`. ``mix``: share of pairs per plan (keys of :data:`MIX`). Seeded: the same
    arguments give the same data. ``meta['weights']``: the population's true feature weights (mean, sd);
    ``meta['annotators']``: the sampled pool's weights. ``match_pool``: moment-match the pool to the
    population (module docstring); False draws it plainly (the pool then differs by its sampling error).
    """
    if annotation_format not in ("multipref", "helpsteer2"):
        raise ValueError("annotation_format must be 'multipref' or 'helpsteer2'")
    if n_annotators > n_pool:
        raise ValueError("n_annotators must not exceed n_pool")
    rng = np.random.default_rng(seed)
    text_rng = random.Random(f"pluralign-simulate-{seed}")  # texts: Python's Mersenne Twister, fast per call
    drawn = _draw_pairs(rng, text_rng, n_pairs, mix)
    pop = population_weights(weights)
    mu, sd = pop["mean"].to_numpy(), pop["sd"].to_numpy()
    W, D = _annotator_pool(rng, mu, sd, n_pool, detect, match_pool)
    pair_idx, ann_idx, ua, ub = _utilities(rng, drawn, W, D, n_annotators)
    ids = np.char.add(f"sim{seed}-", np.char.zfill(np.arange(n_pairs).astype(str), 6))
    ann = pd.DataFrame({"pair_id": ids[pair_idx], "annotator_id": _annotator_ids(ann_idx)})
    if annotation_format == "multipref":
        share = _multipref_judgments(
            rng, ann, ua, ub, drawn, mu, sd, noise=noise, tie=tie, significant=significant, detect=detect
        )
    else:
        likert = {"center": likert_center, "scale": likert_scale, "noise": likert_noise}
        _helpsteer2_judgments(rng, ann, ua, ub, **likert)
        share = _helpsteer2_share(drawn, mu, sd, seed=seed, n_monte_carlo=n_monte_carlo, detect=detect, **likert)
    name = name or f"simulated-{annotation_format}"
    pairs = _pairs_table(ids, name, split, drawn)
    options = {
        "n_pairs": n_pairs,
        "seed": seed,
        "annotation_format": annotation_format,
        "n_annotators": n_annotators,
        "n_pool": n_pool,
        "noise": noise,
        "tie": tie,
        "significant": significant,
        "detect": detect,
        "match_pool": match_pool,
    }
    meta = _meta(name, seed, options, pop, W, D)
    return PreferenceData(pairs, ann, meta, _truth(ids, drawn, share, mu, detect))


def _pairs_table(ids: np.ndarray, name: str, split: str, drawn) -> pd.DataFrame:
    """The simulated pairs as :class:`PreferenceData` holds pairs: id, data set, split, prompt and the two responses
    (the planted truth lives in ``.truth`` only)."""
    return pd.DataFrame(
        {
            "pair_id": ids,
            "dataset": name,
            "split": split,
            "prompt": drawn.prompt,
            "response_a": drawn.text_a,
            "response_b": drawn.text_b,
        }
    )
