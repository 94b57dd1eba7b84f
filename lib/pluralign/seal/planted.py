"""The demo profile's planted truth in SEAL's terms, and the checks that SEAL's methods recover it.

- :func:`planted_features`, :func:`planted_taxonomy` — the simulator's planted features of the chosen and
  rejected entries, raw and in SEAL's taxonomy names (:data:`PLANTED_TO_RULES`);
- :func:`featurizer_agreement` — how well a featurizer (the rule-based stand-in) recovers the planted labels
  (the label-stability check of App. D.5 with the planted labels as the second labeller);
- :func:`imprint_recovery` (:class:`ImprintRecovery`) — feature imprints (Eq. 1) next to the planted population
  weights; :func:`mixed_weights` — the pair-count-weighted weights of a model trained on several populations;
- :func:`weight_recovery` — the feature-imprint page's recovery of the planted weights, by the method and by the
  trained reward models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign.seal.pairs import chosen_rejected

__all__ = [
    "planted_features",
    "PLANTED_TO_RULES",
    "planted_taxonomy",
    "featurizer_agreement",
    "ImprintRecovery",
    "imprint_recovery",
    "mixed_weights",
    "weight_recovery",
    "recovery_reading",
]


def planted_features(
    data, view: pd.DataFrame | None = None, features: Sequence[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The simulator's planted features of the chosen and rejected entries (``.truth`` a_/b_ columns),
    one row per pair of ``view`` (default: the table of :func:`chosen_rejected`), in its order: (chosen, rejected)."""
    if data.truth is None:
        raise ValueError(f"planted_features: {data.name!r} has no planted truth (simulated data only)")
    view = chosen_rejected(data).table if view is None else view
    from pluralign.data.simulate import FEATURES

    features = list(features or FEATURES)
    t = data.truth.loc[view["pair_id"]]
    is_a = (view["chosen_side"] == "A").to_numpy()
    ch = pd.DataFrame({f: np.where(is_a, t[f"a_{f}"], t[f"b_{f}"]) for f in features})
    rj = pd.DataFrame({f: np.where(is_a, t[f"b_{f}"], t[f"a_{f}"]) for f in features})
    return ch.astype(float), rj.astype(float)


PLANTED_TO_RULES = {
    "last_response_is_refusal": "refusal",
    "last_response_is_harmless": "not harmfulness",
    "last_response_sentiment": "sentiment (positive = 1, else neutral 0)",
    "response_has_list": "format",
    "last_response_is_helpful": "not (refusal or factual_error)",
}
"""How :func:`planted_taxonomy` names planted features in SEAL's taxonomy (and the rule featurizer's)."""


def planted_taxonomy(planted: pd.DataFrame) -> pd.DataFrame:
    """Planted features (:func:`planted_features`, one side) in SEAL's taxonomy names, numerically
    encoded as :func:`~pluralign.seal.features.feature_matrix` does (:data:`PLANTED_TO_RULES`):
    ``last_response_is_refusal``, ``last_response_is_harmless``, ``last_response_sentiment`` (1 positive,
    0 neutral: the simulator plants enthusiasm, never a negative tone), ``response_has_list`` (format),
    ``last_response_is_helpful`` (neither a refusal nor a factual error: the demo's stand-in for the
    LM-labeller's helpfulness, SEAL's first target feature), and ``verbosity`` unchanged."""
    need = ["refusal", "harmfulness", "sentiment", "format", "factual_error", "verbosity"]
    miss = [c for c in need if c not in planted.columns]
    if miss:
        raise ValueError(f"planted_taxonomy: planted features lack {miss}")
    return pd.DataFrame(
        {
            "last_response_is_refusal": planted["refusal"].to_numpy(float),
            "last_response_is_harmless": 1.0 - planted["harmfulness"].to_numpy(float),
            "last_response_sentiment": planted["sentiment"].to_numpy(float),
            "response_has_list": planted["format"].to_numpy(float),
            "last_response_is_helpful": 1.0 - np.maximum(planted["refusal"], planted["factual_error"]).to_numpy(float),
            "verbosity": planted["verbosity"].to_numpy(float),
        },
        index=planted.index,
    )


def featurizer_agreement(labels: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    """Agreement of a featurizer's labels (raw, as :func:`~pluralign.seal.rule_featurize`, or numeric) with
    the planted truth (:func:`planted_taxonomy`) on the same texts, per feature: ``n``, ``agreement``
    (share equal), Cohen's ``cohen_kappa``, ``prevalence_truth``, ``prevalence_labels``, and for the
    rule featurizer's ``response_words`` against planted ``verbosity`` the ``auroc`` (how well word count
    separates verbose from short entries; agreement/κ are NaN there). Rows matched by position."""
    from sklearn.metrics import roc_auc_score

    from pluralign.seal.features import feature_matrix, label_stability

    if len(labels) != len(truth):
        raise ValueError(f"featurizer_agreement: {len(labels)} labelled texts vs {len(truth)} planted rows")
    common = [c for c in truth.columns if c in labels.columns]
    out = label_stability(labels[common], truth[common], common)
    num = feature_matrix(labels[common].reset_index(drop=True), common)
    tr = truth[common].reset_index(drop=True)
    out["prevalence_truth"] = [float(tr[f].mean()) for f in out.index]
    out["prevalence_labels"] = [float(num[f].mean()) for f in out.index]
    out["auroc"] = np.nan
    if "response_words" in labels.columns and "verbosity" in truth.columns:
        y = truth["verbosity"].to_numpy(float)
        w = pd.to_numeric(labels["response_words"]).to_numpy(float)
        auc = roc_auc_score(y, w) if len(np.unique(y)) == 2 else np.nan
        out.loc["response_words ~ verbosity"] = {
            "n": len(y),
            "agreement": np.nan,
            "cohen_kappa": np.nan,
            "prevalence_truth": float(y.mean()),
            "prevalence_labels": np.nan,
            "auroc": auc,
        }
        out["n"] = out["n"].astype(int)
    return out


@dataclass(frozen=True)
class ImprintRecovery:
    """Feature imprints β_τ (SEAL Eq. 1) beside the simulator's planted population weights (the demo's
    recovery check), from :func:`imprint_recovery`. ``table``: per feature ``estimate``, ``ci_low``,
    ``ci_high``, ``weight``, ``scaled_weight``, ``same_sign``, ``covered``; ``scale`` the least-squares factor
    from weights to imprints, ``pearson_r`` the correlation of imprints and weights, ``sign_agreement`` the
    share of features (weight ≠ 0) whose imprint has the weight's sign."""

    table: pd.DataFrame
    scale: float
    pearson_r: float
    sign_agreement: float


def imprint_recovery(imprint, weights: pd.Series | dict) -> ImprintRecovery:
    """Feature imprints (:func:`~pluralign.seal.feature_imprint`: its :class:`~pluralign.seal.imprint.ImprintFit`
    or that fit's table) beside the planted population weights, as :class:`ImprintRecovery`.

    A Bradley-Terry RM's reward is on its own (logit) scale, the simulator's weights on the utility
    scale, so the weights are also shown rescaled by the least-squares factor through the origin
    ``s = Σ βw / Σ w²``. Per feature: ``estimate``, ``ci_low``, ``ci_high``, ``weight``, ``scaled_weight``,
    ``same_sign`` and ``covered`` (the rescaled weight inside the 95 % interval); fields ``scale``,
    ``pearson_r`` (imprints vs weights), ``sign_agreement`` (share of features, weight ≠ 0)."""
    imprint = getattr(imprint, "table", imprint)
    w = pd.Series(weights, dtype=float)
    est = imprint["estimate"].astype(float)
    common = [f for f in imprint.index if f in w.index and np.isfinite(est.get(f, np.nan))]
    if len(common) < 2:
        raise ValueError(f"imprint_recovery: fewer than two features with both an imprint and a weight ({common})")
    b, ww = est[common].to_numpy(), w[common].to_numpy()
    scale = float(b @ ww / (ww @ ww)) if ww @ ww > 0 else np.nan
    out = pd.DataFrame(
        {
            "estimate": b,
            "ci_low": imprint.loc[common, "ci_low"].to_numpy(float),
            "ci_high": imprint.loc[common, "ci_high"].to_numpy(float),
            "weight": ww,
            "scaled_weight": scale * ww,
        },
        index=pd.Index(common, name="feature"),
    )
    out["same_sign"] = np.where(ww == 0, np.nan, (np.sign(b) == np.sign(ww)).astype(float))
    out["covered"] = (out["scaled_weight"] >= out["ci_low"]) & (out["scaled_weight"] <= out["ci_high"])
    nz = ww != 0
    return ImprintRecovery(
        table=out,
        scale=scale,
        pearson_r=float(np.corrcoef(b, ww)[0, 1]),
        sign_agreement=float(np.mean(np.sign(b[nz]) == np.sign(ww[nz]))) if nz.any() else np.nan,
    )


def mixed_weights(weights: Sequence, counts: Sequence) -> pd.Series:
    """Pair-count-weighted mean of several populations' feature weights, ``Σ_k n_k w_k / Σ_k n_k``: the
    weights a reward model trained on their pooled pairs is compared with (the post-D RM is trained on
    the other data plus D). ``weights``: Series (or dicts) indexed by feature; features missing from a
    population count as weight 0 there."""
    weights = [pd.Series(w, dtype=float) for w in weights]
    counts = np.asarray(counts, dtype=float)
    if len(weights) != len(counts) or not len(weights):
        raise ValueError(f"mixed_weights: {len(weights)} weight vectors for {len(counts)} counts")
    if (counts < 0).any() or counts.sum() <= 0:
        raise ValueError(f"mixed_weights: counts must be non-negative with a positive sum, got {counts.tolist()}")
    index = list(dict.fromkeys(f for w in weights for f in w.index))
    table = pd.concat([w.reindex(index).fillna(0.0) for w in weights], axis=1).to_numpy()
    return pd.Series(table @ counts / counts.sum(), index=pd.Index(index, name="feature"), name="weight")


def weight_recovery(study, imprint: dict) -> dict:
    """Recovery of the simulator's planted population weights (demo: ``study.F`` from planted features).

    Two checks of two different things. (1) The method: the imprint (Eq. 1, ``F.regressors``) of a
    reward that *is* D's population mean utility (planted features · D's mean weights) must give back
    those weights exactly. (2) The trained RMs (``imprint``: ``{"pre": ..., "post": ...}`` from
    :func:`~pluralign.seal.feature_imprint`): pre-D against the other data's weights and post-D against the
    pair-count-weighted mix of the other data and D (:func:`mixed_weights`), when every part of the other
    data carries planted weights; else post-D against D's weights.

    Returns a dict: ``utility`` (:func:`imprint_recovery` of the utility imprint, an :class:`ImprintRecovery`;
    ``covered`` NaN, its intervals have zero width), ``utility_error`` (largest |estimate − weight|), ``parts``
    (``{label: ImprintRecovery}`` for the RMs, labels starting "pre-D RM" / "post-D RM"),
    ``n_train`` (pairs each RM was trained on), ``summary`` (features, Pearson r, sign agreement, scale,
    coverage per check), ``table`` (all recovery tables stacked) and ``reproduced`` (every RM weight
    covered with the right sign)."""
    import warnings

    from pluralign.seal.imprint import feature_imprint, imprint_table

    F, D, view = study.F, study.D, study.view
    if F is None or F.source != "planted":
        raise ValueError("weight_recovery: needs the planted features (setup(..., features='planted'))")
    w_D = D.meta["weights"]["mean"]
    util = {e: getattr(F, e)[list(w_D.index)].to_numpy(float) @ w_D.to_numpy(float) for e in ("chosen", "rejected")}
    t_u = imprint_table(view["pair_id"], F.chosen, F.rejected, utility=(util["chosen"], util["rejected"]))
    with warnings.catch_warnings():
        # an exact fit: zero residuals, zero standard errors, and pyfixest's t = β / 0 warns; expected here
        warnings.simplefilter("ignore", RuntimeWarning)
        rec_u = imprint_recovery(feature_imprint(t_u, "utility", F.regressors), w_D)
    rec_u.table["covered"] = np.nan
    w_parts = [(p.meta["weights"]["mean"], len(p)) for p in study.other_parts if "weights" in p.meta]
    parts = {}
    if w_parts and len(w_parts) == len(study.other_parts):
        w_other = mixed_weights([w for w, _ in w_parts], [c for _, c in w_parts])
        w_post = mixed_weights([w for w, _ in w_parts] + [w_D], [c for _, c in w_parts] + [len(D)])
        parts["pre-D RM vs the other data's weights"] = imprint_recovery(imprint["pre"], w_other)
        parts["post-D RM vs the mix (other data + D)"] = imprint_recovery(imprint["post"], w_post)
    else:
        parts["post-D RM vs D's weights"] = imprint_recovery(imprint["post"], w_D)
    summary = pd.DataFrame(
        {
            k: {
                "features": len(v.table),
                "Pearson r (imprint vs weight)": v.pearson_r,
                "sign agreement": v.sign_agreement,
                "scale": v.scale,
                "rescaled weight inside the 95% CI": v.table["covered"].astype(float).mean(),
            }
            for k, v in {"planted utility (method check)": rec_u, **parts}.items()
        }
    )
    return {
        "utility": rec_u,
        "utility_error": float((rec_u.table["estimate"] - rec_u.table["weight"]).abs().max()),
        "parts": parts,
        "summary": summary,
        "n_train": {"pre": study.rms.n_train_pre, "post": study.rms.n_train_post},
        "table": pd.concat({"planted utility": rec_u.table, **{k: v.table for k, v in parts.items()}}, axis=0),
        "reproduced": all(bool(v.table["covered"].all()) and v.sign_agreement == 1 for v in parts.values()),
    }


def recovery_reading(parts: dict) -> str:
    """What :func:`weight_recovery`'s checks of the trained RMs (``parts``: ``{label: ImprintRecovery}``) say, in one
    sentence computed from their tables: reproduced (every rescaled weight inside its imprint's 95% CI, every sign
    right), or which features are missed in scale (right sign, rescaled weight outside the CI) and which inverted
    (opposite sign), counted over all the RMs' rows."""
    from pluralign.seal.display import display_name

    rows = pd.concat([v.table for v in parts.values()]) if parts else pd.DataFrame()
    if not len(rows):
        return ""
    inverted = rows["same_sign"] == 0
    missed = ~rows["covered"].astype(bool) & ~inverted
    n_inv, n_miss = int(inverted.sum()), int(missed.sum())
    if not n_inv and not n_miss:
        return "The trained RMs reproduce the planted weights within their intervals."
    names = lambda mask: ", ".join(dict.fromkeys(display_name(f) for f in rows.index[mask.to_numpy()]))  # noqa: E731
    n_rows = len(rows)
    if not n_inv:
        head = (
            f"So the trained RMs give every planted weight its sign, and {n_miss} of the {n_rows} rescaled weights "
            f"fall outside the imprint's 95% interval ({names(missed)}): misses in scale, none inverted."
        )
    else:
        miss = f"{n_miss} missed in scale ({names(missed)})" if n_miss else "none missed in scale otherwise"
        head = (
            f"So the trained RMs do not reproduce the planted weights: of the {n_rows} rescaled weights, {n_inv} "
            f"have the opposite sign ({names(inverted)}) and {miss}."
        )
    return (
        head + " Their imprints mix what the frozen encoder makes easy to see with what the annotators rewarded: this "
        "is a check of the small models, not of the method, and the imprints above describe these models, not the "
        "populations' preferences."
    )
