"""The SEAL paper's reported numbers (Revel et al. 2024, ``../shared/seeds/003_*.txt``), for the book's
"paper vs ours" tables.

``PAPER`` is a plain dict; :func:`paper_table` turns its regression tables into DataFrames. Sources are
given per entry: "paper" (the PDF text) or "seal-code" (``harvard-lil/SEAL`` ``analysis/main_results.ipynb``
outputs, read from the public repository). Regression tables are indexed by the paper's feature names.
"""
from __future__ import annotations

import pandas as pd

__all__ = ["PAPER", "paper_table"]

_F15 = ("human_vocabulary_quality", "last_response_is_anthropomorphic", "last_response_is_coherent",
        "last_response_is_refusal", "last_response_is_helpful", "last_response_is_harmless",
        "last_response_is_honest", "last_response_sentiment", "last_response_contains_insult",
        "last_response_is_sexually_explicit", "last_response_breaks_privacy", "last_response_is_discriminatory",
        "last_response_is_manipulative", "last_response_is_creative", "last_response_is_eloquent")

# Table 5: (post estimate, post SE, post p, pre estimate, pre SE, pre p)
_T5 = [(0.21284, 0.02284, 0.000, 0.25881, 0.03010, 0.000), (-0.61226, 0.01360, 0.000, -0.91505, 0.01793, 0.000),
       (-0.38344, 0.01094, 0.000, 0.23353, 0.01442, 0.000), (0.61075, 0.01493, 0.000, -0.11935, 0.01968, 0.000),
       (1.07610, 0.00925, 0.000, 0.78703, 0.01219, 0.000), (2.08980, 0.01407, 0.000, -0.84607, 0.01854, 0.000),
       (-0.17055, 0.01499, 0.000, -0.26134, 0.01976, 0.000), (0.76730, 0.00616, 0.000, 0.58662, 0.00811, 0.000),
       (-0.24154, 0.03519, 0.000, 0.11357, 0.04638, 0.244), (-0.61869, 0.03961, 0.000, 0.19863, 0.05220, 0.002),
       (-1.09550, 0.02970, 0.000, 0.50450, 0.03915, 0.000), (-0.20794, 0.02359, 0.000, -0.02221, 0.03109, 1.000),
       (-0.17711, 0.02966, 0.000, -0.16672, 0.03909, 0.000), (-0.38265, 0.01446, 0.000, -0.31163, 0.01905, 0.000),
       (0.81163, 0.00675, 0.000, 1.39720, 0.00890, 0.000)]
# Table 6: (c estimate, c SE, c p, r estimate, r SE, r p)
_T6 = [(0.19211, 2.24897, 1.0, 2.29442, 2.26386, 1.0), (-1.05953, 0.82726, 1.0, 0.48927, 0.77168, 1.0),
       (-1.04764, 0.64807, 1.0, -0.35782, 0.56979, 1.0), (10.91525, 0.76758, 0.0, -7.93692, 0.92410, 0.0),
       (-0.86119, 0.52211, 1.0, 1.78618, 0.49831, 0.01047), (8.24882, 0.96681, 0.0, -9.21136, 0.79467, 0.0),
       (0.81146, 0.96707, 1.0, -2.55246, 0.74986, 0.02060), (2.16623, 0.35899, 0.0, -2.22267, 0.36968, 0.0),
       (-1.48596, 2.58849, 1.0, 0.73784, 1.70057, 1.0), (-5.70818, 2.93893, 1.0, 0.84001, 2.12900, 1.0),
       (-5.40997, 2.20115, 0.43339, 5.44889, 1.63167, 0.02603), (-0.73003, 1.68584, 1.0, -1.30329, 1.31072, 1.0),
       (2.17074, 1.98345, 1.0, -6.97529, 1.48322, 0.00008), (0.91934, 0.84508, 1.0, -0.27606, 0.88523, 1.0),
       (-2.53064, 0.40271, 0.0, -5.40440, 0.42642, 0.0)]
# Table 7: (c estimate, c SE, c p, r estimate, r SE, r p)
_T7 = [(-0.020899, 0.016126, 1.0, -0.032251, 0.016233, 1.0), (0.070119, 0.005932, 0.0, -0.026791, 0.005533, 0.0),
       (-0.005847, 0.004647, 1.0, 0.013688, 0.004086, 0.025), (-0.114708, 0.005504, 0.0, 0.134595, 0.006626, 0.0),
       (-0.104705, 0.003744, 0.0, 0.090030, 0.003573, 0.0), (-0.090648, 0.006932, 0.0, 0.114110, 0.005698, 0.0),
       (0.007014, 0.006934, 1.0, -0.001048, 0.005377, 1.0), (-0.069651, 0.002574, 0.0, 0.077641, 0.002651, 0.0),
       (0.092365, 0.018561, 0.0, -0.029072, 0.012194, 0.531), (0.088068, 0.021073, 0.001, -0.080579, 0.015266, 0.0),
       (0.081714, 0.015783, 0.0, -0.078483, 0.011700, 0.0), (0.012132, 0.012088, 1.0, 0.011894, 0.009398, 1.0),
       (0.051903, 0.014222, 0.008, -0.007189, 0.010635, 1.0), (0.012372, 0.006060, 1.0, -0.026076, 0.006348, 0.001),
       (-0.084117, 0.002888, 0.0, 0.116636, 0.003058, 0.0)]


def _rows(vals, keys):
    return {f: dict(zip(keys, v)) for f, v in zip(_F15, vals)}


PAPER: dict = {
    "source": "Revel, Cargnelutti, Eloundou, Leppert (2024), SEAL: Systematic Error Analysis for Value ALignment",
    "dataset": {"name": "Anthropic/hh-rlhf (train)", "n_pairs": 160_800, "n_entries": 321_600},
    "models": {"pre": "OpenAssistant/reward-model-deberta-v3-large",
               "post": "OpenAssistant/reward-model-deberta-v3-large-v2",
               "labeller": "gpt-4-turbo-2024-04-09", "rewriter": "Mistral 7B v0.1 Instruct (FP16, T=0.1)",
               "similarity": "BAAI/bge-m3", "stability_labellers": ["Gemma 7B", "Mistral 7B v0.2 Instruct"]},
    # § 2.3, footnote 13: the rewriter; App. D.5: the label-stability re-labelling
    "rewriting": {"model": "Mistral 7B v0.1 Instruct", "precision": "FP16", "temperature": 0.1},
    "stability": {"share": 0.01, "temperature": 0.0},
    "n_features": 19, "n_target_features": 2, "n_spoiler_features": 17,
    "reward_range": {"post": (-8.5, 6.2), "pre": (-6.9, 7.1)},                     # footnote 9
    # § 2.2 and Table 1
    "alignment": {"a_plus_pre": 0.57, "a_plus_post": 0.74, "a_minus_post": 0.26,
                  "stayed_aligned_share": 0.48, "reversed_share": 0.08},
    "table1": {"prevalence": {"became-aligned": 0.26, "stayed-aligned": 0.48, "stayed-misaligned": 0.18,
                              "reversed": 0.08},
               "lm_labeller_agreement": {"became-aligned": 0.74, "stayed-aligned": 0.86, "stayed-misaligned": 0.34,
                                         "reversed": 0.47}},
    "regime_shares_seal_code": {"became-aligned": 0.2577, "stayed-aligned": 0.4829, "stayed-misaligned": 0.1719,
                                "reversed": 0.0875},                                # issue 6, from SEAL notebooks
    "indifferent_share": 0.73,                                                       # § 3: 73% of pairs have γ = i
    # seal-code: main_results.ipynb, cell "Compute the various alignment regimes"
    "gamma_seal_code": {"c": 28_443, "r": 10_840, "i": 121_517,
                        "lm_agreement_decisive": 0.7240536618893669,                 # c / (c + r), n = 39,283
                        "pre_rm_alignment_decisive": 0.5665300511671716,             # pre-D RM aligned, γ ≠ i pairs
                        "post_rm_alignment_decisive": 0.804088282463152,             # post-D RM aligned, γ ≠ i pairs
                        "post_rm_agrees_with_lm_decisive": 30_263 / 39_283},
    # seal-code: counts of (chosen helpful, chosen harmless, rejected helpful, rejected harmless)
    "gamma_label_counts": {(1, 1, 1, 1): 102151, (1, 1, 0, 1): 19071, (0, 1, 0, 1): 12093, (0, 1, 1, 1): 8917,
                           (0, 0, 0, 0): 7131, (0, 1, 0, 0): 4860, (1, 1, 0, 0): 3628, (0, 0, 0, 1): 819,
                           (0, 0, 1, 1): 725, (1, 1, 1, 0): 453, (0, 1, 1, 0): 263, (0, 0, 1, 0): 193,
                           (1, 0, 0, 0): 168, (1, 0, 1, 1): 153, (1, 0, 1, 0): 142, (1, 0, 0, 1): 33},
    # Table 2 (App. D.4): (chosen helpful, chosen harmless, rejected helpful, rejected harmless) -> γ
    "table2": {(0, 0, 0, 0): "i", (1, 1, 1, 1): "i", (0, 1, 0, 1): "i", (1, 0, 1, 0): "i", (1, 1, 1, 0): "c",
               (0, 0, 1, 1): "r", (1, 1, 0, 0): "c", (0, 1, 1, 0): "r", (1, 0, 0, 1): "c", (1, 0, 0, 0): "c",
               (0, 1, 1, 1): "r", (0, 1, 0, 0): "c", (1, 0, 1, 1): "r", (0, 0, 1, 0): "r", (1, 1, 0, 1): "c",
               (0, 0, 0, 1): "r"},
    # App. D.2 (post-D RM)
    "quadrants": {"both positive": 0.28, "both negative": 0.53, "chosen negative only": 0.03,
                  "rejected negative only": 0.17},
    # Table 4 / App. E: share of entries with the feature (sentiment: mean of -1/0/1)
    "table4": {"last_response_is_sexually_explicit": (0.003, 0.007), "last_response_contains_insult": (0.004, 0.011),
               "last_response_breaks_privacy": (0.006, 0.012), "last_response_is_manipulative": (0.007, 0.013),
               "last_response_is_discriminatory": (0.013, 0.0244),
               "last_response_is_anthropomorphic": (0.041, 0.03), "last_response_is_creative": (0.042, 0.038),
               "last_response_is_refusal": (0.048, 0.048), "last_response_sentiment": (0.212, 0.13),
               "last_response_is_eloquent": (0.324, 0.266), "last_response_is_helpful": (0.782, 0.703),
               "last_response_is_coherent": (0.873, 0.798), "last_response_is_harmless": (0.942, 0.895),
               "last_response_is_honest": (0.963, 0.935), "human_vocabulary_quality": (0.985, 0.985)},
    "table5": _rows(_T5, ("post_estimate", "post_std_error", "post_p", "pre_estimate", "pre_std_error", "pre_p")),
    "table6": _rows(_T6, ("c_estimate", "c_std_error", "c_p", "r_estimate", "r_std_error", "r_p")),
    "table7": _rows(_T7, ("c_estimate", "c_std_error", "c_p", "r_estimate", "r_std_error", "r_p")),
    "vif_dropped": ["assistant_is_anthropomorphic", "assistant_is_coherent"],       # seal-code angle.R
    # § 2.3, Table 8 (raw p-values) and Table 3
    "robustness": {"share_rewritten": 0.01, "a_plus_rewritten": 0.71, "exp_pi_c_plus_sentiment": 1.13,
                   "exp_pi_r_minus_sentiment": 1.12,
                   "features": ["last_response_is_coherent", "last_response_is_eloquent", "last_response_sentiment"],
                   "unchanged": ["last_response_is_helpful", "last_response_is_harmless"]},
    "table8": {("c", "last_response_is_coherent", -1): (-0.0037198, 0.070268, 0.915682),
               ("c", "last_response_is_coherent", 1): (-0.0445428, 0.088111, 0.311985),
               ("r", "last_response_is_coherent", -1): (0.0059984, 0.068248, 0.860464),
               ("r", "last_response_is_coherent", 1): (-0.0289716, 0.083300, 0.486681),
               ("c", "last_response_is_eloquent", -1): (0.0219833, 0.064110, 0.492840),
               ("c", "last_response_is_eloquent", 1): (0.0271622, 0.111184, 0.625125),
               ("r", "last_response_is_eloquent", -1): (-0.0133509, 0.055353, 0.629528),
               ("r", "last_response_is_eloquent", 1): (0.0183889, 0.106732, 0.730410),
               ("c", "last_response_sentiment", -1): (-0.0117169, 0.066044, 0.722723),
               ("c", "last_response_sentiment", 1): (0.1169116, 0.072508, 0.001261),
               ("r", "last_response_sentiment", -1): (0.0979206, 0.065446, 0.002768),
               ("r", "last_response_sentiment", 1): (0.0093179, 0.069321, 0.788057)},
    # Table 3: mean ± sd cosine similarity, keyed (entry, flip) -> {feature: (mean, sd)}
    "table3": {("c", -1): {"helpful": (0.94, 0.04), "harmless": (0.94, 0.03), "coherent": (0.95, 0.04),
                           "eloquent": (0.94, 0.04), "sentiment": (0.96, 0.03)},
               ("c", 0): {"helpful": (0.96, 0.03), "harmless": (0.96, 0.04), "coherent": (0.96, 0.04),
                          "eloquent": (0.96, 0.04), "sentiment": (0.96, 0.04)},
               ("c", 1): {"helpful": (0.94, 0.05), "harmless": (0.95, 0.04), "coherent": (0.95, 0.04),
                          "eloquent": (0.95, 0.03), "sentiment": (0.96, 0.03)},
               ("r", -1): {"helpful": (0.94, 0.04), "harmless": (0.94, 0.04), "coherent": (0.95, 0.04),
                           "eloquent": (0.94, 0.04), "sentiment": (0.95, 0.04)},
               ("r", 0): {"helpful": (0.96, 0.04), "harmless": (0.96, 0.04), "coherent": (0.96, 0.04),
                          "eloquent": (0.96, 0.03), "sentiment": (0.96, 0.04)},
               ("r", 1): {"helpful": (0.95, 0.05), "harmless": (0.95, 0.03), "coherent": (0.96, 0.03),
                          "eloquent": (0.96, 0.04), "sentiment": (0.96, 0.04)}},
    "taxonomy_patched_entries": 5,                                                    # App. B.2: 5 of 321,600
    "future_work_resistance": {"web-gpt": 0.49, "summarize-from-feedback": 0.66},
}


def paper_table(name: str) -> pd.DataFrame:
    """``PAPER[name]`` as a DataFrame: "table1", "table3", "table4", "table5", "table6", "table7", "table8"."""
    if name == "table1":
        return pd.DataFrame(PAPER["table1"])
    if name == "table3":
        rows = [{"entry": e, "flip": f, "feature": k, "mean": m, "sd": s}
                for (e, f), d in PAPER["table3"].items() for k, (m, s) in d.items()]
        return pd.DataFrame(rows).set_index(["entry", "feature", "flip"]).sort_index()
    if name == "table4":
        return pd.DataFrame(PAPER["table4"], index=["chosen", "rejected"]).T.rename_axis("feature")
    if name in ("table5", "table6", "table7"):
        return pd.DataFrame(PAPER[name]).T.rename_axis("feature")
    if name == "table8":
        rows = [{"entry": e, "feature": f, "flip": lv, "estimate": a, "std_error": b, "p_value": c}
                for (e, f, lv), (a, b, c) in PAPER["table8"].items()]
        return pd.DataFrame(rows).set_index(["entry", "feature", "flip"])
    raise KeyError(f"paper_table: no table {name!r}; have table1, table3-table8")
