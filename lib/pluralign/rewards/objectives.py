"""Reward-model training objectives and the training instances they are fitted on.

Objectives (per-instance losses, averaged over a batch):

- ``"bt"`` — Bradley-Terry: ``-log σ(r_c - r_r)`` (chosen c, rejected r).
- ``"bt-margin"`` — Bradley-Terry with a per-pair margin, Beyond the Binary Eq. (4):
  ``-log σ(r_c - r_r - m)``; identical to TRL ``RewardTrainer``'s ``margin`` column. The margin
  comes from ``margins=`` (e.g. Eq. (3) on synthetic LLM judgments) or, when not given, from the
  pair's own annotators by Eq. (3): ``m = |Σ j_i - n/2| / (n/2) = |2·share_a - 1|`` — the paper's
  "gold standard" with real multiple judgments. Eq. (3) itself is :func:`margin_from_counts` /
  :func:`margin_from_judgments` (the one implementation; :mod:`pluralign.btb` calls it).
- ``"mse"`` — regression of the reward on per-response Likert scores (HelpSteer2 style; the MSE
  reward model of Diverging Preferences §4 / Table 2).
- ``"mean-variance"`` — a distributional RM: every response gets a Gaussian reward N(μ, σ²); the
  probability that an annotator prefers A is ``P(A ≻ B) = Φ((μ_A - μ_B) / √(σ_A² + σ_B²))``
  (Thurstone case III); trained by negative log-likelihood of the individual annotator judgments.
  **Ties** count half for each side: a tie contributes ``-½ log P(A≻B) - ½ log P(B≻A)`` (the same
  convention as :meth:`PreferenceData.share_a`). With ``labels="aggregate"`` one instance per pair
  carries the soft target ``share_a`` (same optimum, pairs weighted equally rather than by their
  number of judgments).

Label sets (Diverging Preferences §3): ``labels="aggregate"`` — one instance per pair, the
majority label (pairs whose majority is a tie are dropped for BT, and the count is recorded; for MSE the
scores of the annotators in the majority, or with ``mse_aggregate="mean"`` / ``labels="aggregate-mean"``
every annotator's mean Likert score);
``labels="all"`` — every annotator judgment is its own instance (ties dropped for BT, counted).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from pluralign.train_options import OBJECTIVES

LABELS = ("aggregate", "all")
#: How the MSE-regression RM's aggregated ("Agg") Likert target is formed (:func:`_majority_likert`).
MSE_AGGREGATES = ("majority", "mean")
SIGMA_MIN = 1e-3


# ---- losses (torch, differentiable) -------------------------------------------------------------
def bt_loss(r_chosen: torch.Tensor, r_rejected: torch.Tensor, margin: torch.Tensor | None = None) -> torch.Tensor:
    """Per-instance Bradley-Terry loss ``-log σ(r_c - r_r - m)`` (Beyond the Binary Eq. 4; m = 0 → plain BT)."""
    d = r_chosen - r_rejected
    if margin is not None:
        d = d - margin
    return -F.logsigmoid(d)


def mse_loss(reward: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-response squared error ``(r - likert)²`` (HelpSteer2-style regression RM)."""
    return (reward - target) ** 2


def sigma_from_raw(raw: torch.Tensor) -> torch.Tensor:
    """The head's second output → σ > 0 (softplus plus a floor of 1e-3)."""
    return F.softplus(raw) + SIGMA_MIN


def mean_variance_prob_a(mu_a, mu_b, sigma_a, sigma_b):
    """``P(A ≻ B) = Φ((μ_A - μ_B) / √(σ_A² + σ_B²))`` (torch tensors or numpy arrays)."""
    if isinstance(mu_a, torch.Tensor):
        z = (mu_a - mu_b) / torch.sqrt(sigma_a**2 + sigma_b**2)
        return torch.special.ndtr(z)
    from scipy.special import ndtr

    z = (np.asarray(mu_a) - np.asarray(mu_b)) / np.sqrt(np.asarray(sigma_a) ** 2 + np.asarray(sigma_b) ** 2)
    return ndtr(z)


def mean_variance_nll(mu_a, mu_b, sigma_a, sigma_b, target_a: torch.Tensor) -> torch.Tensor:
    """Per-instance NLL ``-[y log Φ(z) + (1-y) log Φ(-z)]``, z = (μ_A-μ_B)/√(σ_A²+σ_B²);
    y = 1 (A preferred), 0 (B preferred), ½ (tie, counted half/half) or a soft share."""
    z = (mu_a - mu_b) / torch.sqrt(sigma_a**2 + sigma_b**2)
    log_pa = torch.special.log_ndtr(z)
    log_pb = torch.special.log_ndtr(-z)
    return -(target_a * log_pa + (1 - target_a) * log_pb)


def margin_from_counts(k, n):
    """Beyond the Binary Eq. (3) from counts: ``m = |k - n/2| / (n/2)`` where ``k`` is the number of the
    ``n`` binary judgments that prefer one response (either one: the formula is symmetric in A and B).
    Vectorised; ``n = 0`` gives NaN. ``m = 1`` when the judgments are unanimous, 0 when they split evenly."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("margin_from_counts: need 0 <= k <= n for every pair")
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.abs(k - n / 2) / (n / 2)
    m = np.where(n > 0, m, np.nan)
    return float(m) if m.ndim == 0 else m


def _as_j(x) -> int:
    if isinstance(x, str):
        u = x.strip().upper()
        if u in ("A", "0"):
            return 0
        if u in ("B", "1"):
            return 1
    elif isinstance(x, (bool, np.bool_)):
        pass  # booleans are ambiguous about which side they mean
    elif x is not None and not (isinstance(x, float) and np.isnan(x)) and x in (0, 1):
        return int(x)
    raise ValueError(
        f"margin: judgment {x!r} is not one of 0 / 1 (index of the preferred response, "
        f"0 = A = y_0, 1 = B = y_1) or 'A' / 'B'"
    )


def margin_from_judgments(judgments):
    """Beyond the Binary Eq. (3): ``m = |Σ_i j_i - n/2| / (n/2)`` for binary judgments ``j_i ∈ {0, 1}``
    (the index of the preferred response as in Eq. 1: 0 = A = y_0, 1 = B = y_1; the letters ``"A"`` /
    ``"B"`` are accepted too). Symmetric: the same whichever response the votes are counted for.

    * one pair: a 1-D sequence of ``n`` judgments → ``float`` (an empty one is an error);
    * many pairs: a 2-D array ``(pairs, n)`` or a sequence of per-pair sequences (lengths may differ,
      e.g. after unparseable verdicts) → ``ndarray`` of shape ``(pairs,)``; an empty pair gives NaN.

    Example: ``n = 10`` with 7 votes for A → ``|3 - 5| / 5 = 0.4``."""
    if isinstance(judgments, np.ndarray) and judgments.dtype != object:
        arr = judgments
        if not np.isin(arr, (0, 1)).all():
            bad = arr[~np.isin(arr, (0, 1))].ravel()[0]
            raise ValueError(f"margin: judgment {bad!r} is not 0 or 1 (0 = A = y_0, 1 = B = y_1)")
        if arr.ndim == 1:
            if arr.size == 0:
                raise ValueError("margin_from_judgments needs at least one judgment")
            return margin_from_counts(arr.sum(), arr.size)
        if arr.ndim == 2:
            return margin_from_counts(arr.sum(axis=1), np.full(arr.shape[0], arr.shape[1]))
        raise ValueError(f"margin: judgments must be 1-D (one pair) or 2-D (pairs × n), got {arr.ndim}-D")
    seq = list(judgments)
    if not seq:
        raise ValueError("margin_from_judgments needs at least one judgment")
    if not isinstance(seq[0], (list, tuple, np.ndarray, pd.Series)):
        js = [_as_j(x) for x in seq]
        return margin_from_counts(sum(js), len(js))
    rows = [[_as_j(x) for x in row] for row in seq]
    return margin_from_counts([sum(r) for r in rows], [len(r) for r in rows])


# ---- instances ---------------------------------------------------------------------------------
@dataclass
class Instances:
    """Training instances for one objective.

    ``kind="pairwise"``: columns ``prompt, first, second, target`` (target = P(first ≻ second): 1 for
    BT where ``first`` is the chosen response) and ``margin``. ``kind="pointwise"``: ``prompt,
    response, target`` (Likert). ``dropped``: counts of what was left out and why."""

    kind: str
    table: pd.DataFrame
    dropped: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.table)


def _margins_series(data, margins) -> pd.Series:
    ids = data.pairs["pair_id"]
    if margins is None:
        return (2 * data.share_a() - 1).abs().rename("margin")
    if isinstance(margins, pd.Series):  # aligned by pair_id, never by position
        if not margins.index.isin(ids).any():
            raise ValueError(
                f"margins is a Series whose index shares no pair_id with the data (e.g. "
                f"{margins.index[:3].tolist()} vs {ids.iloc[:3].tolist()}): index it by pair_id, "
                "or pass a plain array in the data's pair order"
            )
        m = margins.reindex(ids.values)
    else:
        arr = np.asarray(margins, dtype=float)
        if len(arr) != len(ids):
            raise ValueError(f"margins has {len(arr)} values but the data has {len(ids)} pairs")
        m = pd.Series(arr, index=ids.values)
    if m.isna().any():
        missing = m.index[m.isna()][:3].tolist()
        raise ValueError(f"margins missing for pair_id(s) {missing}")
    return m.astype(float).rename("margin")


def _majority_likert(data, a: pd.DataFrame, how: str, dropped: dict) -> pd.DataFrame:
    """The aggregated ("Agg") Likert targets of an MSE-regression RM, one row per pair (``pair_id,
    likert_a, likert_b``) from the judgments ``a`` that carry Likert scores.

    ``how="majority"`` (Diverging Preferences §3: "prior work aggregate labels across multiple annotators by
    taking the majority vote [...] We train each model on both the aggregated labels as well as over all
    annotations"): the pair's majority label is :meth:`PreferenceData.majority` (the project's one majority
    rule: A, B, tie or split), and its targets are the mean Likert scores of the annotators who voted with
    that majority (whose own preference is that label), so the target prefers the side the majority chose, by
    the majority's own scores. The paper does not say how a majority vote becomes a 1–5 score per response;
    this is our reading. Pairs without a majority ("split": A and B draw) have no aggregated label and are
    dropped (counted in ``dropped``). ``how="mean"``: the mean Likert score of every annotator (the
    project's earlier default, kept as an option; every pair kept)."""
    if how == "mean":
        return a.groupby("pair_id", sort=False)[["likert_a", "likert_b"]].mean().reset_index()
    maj = data.majority()
    pref = a["preference"].to_numpy()
    own = np.where(pref < 0, "A", np.where(pref > 0, "B", "tie"))
    keep = own == maj.reindex(a["pair_id"]).to_numpy()
    dropped["pairs split evenly between A and B (no majority)"] = int((maj == "split").sum())
    return a[keep].groupby("pair_id", sort=False)[["likert_a", "likert_b"]].mean().reset_index()


def build_instances(
    data, objective: str, labels: str = "aggregate", margins=None, *, mse_aggregate: str = "majority"
) -> Instances:
    """Turn :class:`~pluralign.data.PreferenceData` into training instances for ``objective``.

    ``mse_aggregate`` (``objective="mse"``, ``labels="aggregate"`` only): ``"majority"`` — the majority-vote
    label of Diverging Preferences §3 (the default) — or ``"mean"`` (the mean Likert score); see
    :func:`_majority_likert`. ``labels="aggregate-mean"`` is ``labels="aggregate"`` with
    ``mse_aggregate="mean"`` (a labels value :meth:`RewardModel.train` passes through)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if labels == "aggregate-mean":
        if objective != "mse":
            raise ValueError(
                f"labels='aggregate-mean' (the mean Likert score) is for objective='mse' only, not {objective!r}"
            )
        labels, mse_aggregate = "aggregate", "mean"
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {LABELS + ('aggregate-mean',)}, got {labels!r}")
    if mse_aggregate not in MSE_AGGREGATES:
        raise ValueError(f"mse_aggregate must be one of {MSE_AGGREGATES}, got {mse_aggregate!r}")
    pairs = data.pairs.set_index("pair_id")
    dropped: dict = {}
    if objective == "mse":
        return _pointwise_likert(data, pairs, labels, mse_aggregate, dropped)
    if objective == "mean-variance":
        return _preference_shares(data, pairs, labels, dropped)
    return _bradley_terry(data, pairs, objective, labels, margins, dropped)


def _pointwise_likert(data, pairs: pd.DataFrame, labels: str, mse_aggregate: str, dropped: dict) -> Instances:
    """MSE instances: one (prompt, response) per side of each judgment (or of each pair's aggregate), with its
    Likert score as the target."""
    ann = data.annotations
    for col in ("likert_a", "likert_b"):
        if col not in ann.columns or ann[col].isna().all():
            raise ValueError(f"objective='mse' needs Likert scores: annotations column {col!r} is missing or empty")
    a = ann.dropna(subset=["likert_a", "likert_b"])
    dropped["judgments without Likert scores"] = int(len(ann) - len(a))
    if labels == "aggregate":
        a = _majority_likert(data, a, mse_aggregate, dropped)
    rows_a = pd.DataFrame({"pair_id": a["pair_id"].values, "side": "a", "target": a["likert_a"].values})
    rows_b = pd.DataFrame({"pair_id": a["pair_id"].values, "side": "b", "target": a["likert_b"].values})
    t = pd.concat([rows_a, rows_b], ignore_index=True)
    p = pairs.loc[t["pair_id"]]
    t["prompt"] = p["prompt"].values
    t["response"] = np.where(t["side"] == "a", p["response_a"].values, p["response_b"].values)
    return Instances("pointwise", t[["pair_id", "prompt", "response", "target"]].astype({"target": float}), dropped)


def _preference_shares(data, pairs: pd.DataFrame, labels: str, dropped: dict) -> Instances:
    """Mean-variance instances: (A, B) with the share preferring A as the target (per judgment: 1, 0, or ½ for a
    tie; aggregated: the pair's share)."""
    ann = data.annotations
    if labels == "all":
        pref = ann["preference"].to_numpy()
        t = pd.DataFrame(
            {"pair_id": ann["pair_id"].values, "target": np.where(pref < 0, 1.0, np.where(pref > 0, 0.0, 0.5))}
        )
    else:
        s = data.share_a()
        t = pd.DataFrame({"pair_id": s.index.values, "target": s.values.astype(float)}).dropna()
    p = pairs.loc[t["pair_id"]]
    t["prompt"], t["first"], t["second"] = p["prompt"].values, p["response_a"].values, p["response_b"].values
    t["margin"] = 0.0
    return Instances("pairwise", t[["pair_id", "prompt", "first", "second", "target", "margin"]], dropped)


def _bradley_terry(data, pairs: pd.DataFrame, objective: str, labels: str, margins, dropped: dict) -> Instances:
    """Bradley-Terry instances (with or without margin): (preferred, other) per judgment or per majority label;
    ties and even splits are dropped and counted."""
    ann = data.annotations
    if labels == "aggregate":
        maj = data.majority()
        dropped["pairs whose majority label is a tie"] = int((maj == "tie").sum())
        dropped["pairs split evenly between A and B (no majority)"] = int((maj == "split").sum())
        maj = maj[maj.isin(["A", "B"])]
        t = pd.DataFrame({"pair_id": maj.index.values, "a_wins": (maj == "A").values})
    else:
        pref = ann["preference"].to_numpy()
        dropped["tie judgments"] = int((pref == 0).sum())
        keep = pref != 0
        t = pd.DataFrame({"pair_id": ann["pair_id"].values[keep], "a_wins": pref[keep] < 0})
    p = pairs.loc[t["pair_id"]]
    ra, rb = p["response_a"].values, p["response_b"].values
    t["prompt"] = p["prompt"].values
    t["first"] = np.where(t["a_wins"], ra, rb)
    t["second"] = np.where(t["a_wins"], rb, ra)
    t["target"] = 1.0
    if objective == "bt-margin":
        m = _margins_series(data, margins)
        t["margin"] = m.reindex(t["pair_id"].values).values
    else:
        if margins is not None:
            raise ValueError("margins= is only used by objective='bt-margin'")
        t["margin"] = 0.0
    return Instances("pairwise", t[["pair_id", "prompt", "first", "second", "target", "margin"]], dropped)


def instance_loss(
    objective: str,
    out_first: torch.Tensor,
    out_second: torch.Tensor | None,
    target: torch.Tensor,
    margin: torch.Tensor | None,
) -> torch.Tensor:
    """Mean loss of a batch; ``out_*`` are the model's raw outputs (n, k)."""
    if objective == "mse":
        return mse_loss(out_first[:, 0], target).mean()
    if objective == "mean-variance":
        mu_a, mu_b = out_first[:, 0], out_second[:, 0]
        s_a, s_b = sigma_from_raw(out_first[:, 1]), sigma_from_raw(out_second[:, 1])
        return mean_variance_nll(mu_a, mu_b, s_a, s_b, target).mean()
    use_margin = margin if objective == "bt-margin" else None
    return bt_loss(out_first[:, 0], out_second[:, 0], use_margin).mean()


def n_outputs(objective: str | None) -> int:
    """Head width: 2 (μ, raw σ) for the mean-variance RM, 1 otherwise."""
    return 2 if objective == "mean-variance" else 1


def logistic(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


__all__ = [
    "LABELS",
    "MSE_AGGREGATES",
    "bt_loss",
    "mse_loss",
    "mean_variance_prob_a",
    "mean_variance_nll",
    "margin_from_counts",
    "margin_from_judgments",
    "build_instances",
    "Instances",
    "instance_loss",
    "sigma_from_raw",
    "n_outputs",
    "logistic",
]
