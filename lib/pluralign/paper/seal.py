"""The numbers SEAL (Revel et al. 2024, ``../shared/seeds/003_*.txt``) reports, as rows of the tidy table of
:mod:`pluralign.paper`.

Each row names where the number is printed (``table``), its row and column labels, the value (shares as
fractions) and, for regression coefficients, the standard error. Numbers read from SEAL's public analysis
code (``harvard-lil/SEAL``, ``analysis/main_results.ipynb`` outputs) rather than the PDF are in the table
``"SEAL analysis code"`` (or say so in ``note``). Regression tables are labelled by the paper's feature names
(Tables 5-7 by :data:`TABLE5_FEATURES`, the one list of those rows, which the taxonomy reads too).
The paper's facts that are not numbers (data set and model names, Table 2's γ rule) are in
:mod:`pluralign.seal.facts`.
"""

_CODE = "SEAL analysis code (main_results.ipynb)"

TABLE5_FEATURES = (
    "human_vocabulary_quality",
    "last_response_is_anthropomorphic",
    "last_response_is_coherent",
    "last_response_is_refusal",
    "last_response_is_helpful",
    "last_response_is_harmless",
    "last_response_is_honest",
    "last_response_sentiment",
    "last_response_contains_insult",
    "last_response_is_sexually_explicit",
    "last_response_breaks_privacy",
    "last_response_is_discriminatory",
    "last_response_is_manipulative",
    "last_response_is_creative",
    "last_response_is_eloquent",
)
"""The 15 features of Tables 5-7, in the paper's row order (the regressors of Eq. 1; the taxonomy's
:data:`~pluralign.seal.taxonomy.IMPRINT_FEATURES`)."""

# Table 5: (post estimate, post SE, post p, pre estimate, pre SE, pre p), Bonferroni p-values
_T5 = [
    (0.21284, 0.02284, 0.000, 0.25881, 0.03010, 0.000),
    (-0.61226, 0.01360, 0.000, -0.91505, 0.01793, 0.000),
    (-0.38344, 0.01094, 0.000, 0.23353, 0.01442, 0.000),
    (0.61075, 0.01493, 0.000, -0.11935, 0.01968, 0.000),
    (1.07610, 0.00925, 0.000, 0.78703, 0.01219, 0.000),
    (2.08980, 0.01407, 0.000, -0.84607, 0.01854, 0.000),
    (-0.17055, 0.01499, 0.000, -0.26134, 0.01976, 0.000),
    (0.76730, 0.00616, 0.000, 0.58662, 0.00811, 0.000),
    (-0.24154, 0.03519, 0.000, 0.11357, 0.04638, 0.244),
    (-0.61869, 0.03961, 0.000, 0.19863, 0.05220, 0.002),
    (-1.09550, 0.02970, 0.000, 0.50450, 0.03915, 0.000),
    (-0.20794, 0.02359, 0.000, -0.02221, 0.03109, 1.000),
    (-0.17711, 0.02966, 0.000, -0.16672, 0.03909, 0.000),
    (-0.38265, 0.01446, 0.000, -0.31163, 0.01905, 0.000),
    (0.81163, 0.00675, 0.000, 1.39720, 0.00890, 0.000),
]
# Table 6: (c estimate, c SE, c p, r estimate, r SE, r p)
_T6 = [
    (0.19211, 2.24897, 1.0, 2.29442, 2.26386, 1.0),
    (-1.05953, 0.82726, 1.0, 0.48927, 0.77168, 1.0),
    (-1.04764, 0.64807, 1.0, -0.35782, 0.56979, 1.0),
    (10.91525, 0.76758, 0.0, -7.93692, 0.92410, 0.0),
    (-0.86119, 0.52211, 1.0, 1.78618, 0.49831, 0.01047),
    (8.24882, 0.96681, 0.0, -9.21136, 0.79467, 0.0),
    (0.81146, 0.96707, 1.0, -2.55246, 0.74986, 0.02060),
    (2.16623, 0.35899, 0.0, -2.22267, 0.36968, 0.0),
    (-1.48596, 2.58849, 1.0, 0.73784, 1.70057, 1.0),
    (-5.70818, 2.93893, 1.0, 0.84001, 2.12900, 1.0),
    (-5.40997, 2.20115, 0.43339, 5.44889, 1.63167, 0.02603),
    (-0.73003, 1.68584, 1.0, -1.30329, 1.31072, 1.0),
    (2.17074, 1.98345, 1.0, -6.97529, 1.48322, 0.00008),
    (0.91934, 0.84508, 1.0, -0.27606, 0.88523, 1.0),
    (-2.53064, 0.40271, 0.0, -5.40440, 0.42642, 0.0),
]
# Table 7: (c estimate, c SE, c p, r estimate, r SE, r p)
_T7 = [
    (-0.020899, 0.016126, 1.0, -0.032251, 0.016233, 1.0),
    (0.070119, 0.005932, 0.0, -0.026791, 0.005533, 0.0),
    (-0.005847, 0.004647, 1.0, 0.013688, 0.004086, 0.025),
    (-0.114708, 0.005504, 0.0, 0.134595, 0.006626, 0.0),
    (-0.104705, 0.003744, 0.0, 0.090030, 0.003573, 0.0),
    (-0.090648, 0.006932, 0.0, 0.114110, 0.005698, 0.0),
    (0.007014, 0.006934, 1.0, -0.001048, 0.005377, 1.0),
    (-0.069651, 0.002574, 0.0, 0.077641, 0.002651, 0.0),
    (0.092365, 0.018561, 0.0, -0.029072, 0.012194, 0.531),
    (0.088068, 0.021073, 0.001, -0.080579, 0.015266, 0.0),
    (0.081714, 0.015783, 0.0, -0.078483, 0.011700, 0.0),
    (0.012132, 0.012088, 1.0, 0.011894, 0.009398, 1.0),
    (0.051903, 0.014222, 0.008, -0.007189, 0.010635, 1.0),
    (0.012372, 0.006060, 1.0, -0.026076, 0.006348, 0.001),
    (-0.084117, 0.002888, 0.0, 0.116636, 0.003058, 0.0),
]
# Table 4 / App. E: share of entries with the feature (sentiment: mean of -1/0/1), (chosen, rejected)
_T4 = {
    "last_response_is_sexually_explicit": (0.003, 0.007),
    "last_response_contains_insult": (0.004, 0.011),
    "last_response_breaks_privacy": (0.006, 0.012),
    "last_response_is_manipulative": (0.007, 0.013),
    "last_response_is_discriminatory": (0.013, 0.0244),
    "last_response_is_anthropomorphic": (0.041, 0.03),
    "last_response_is_creative": (0.042, 0.038),
    "last_response_is_refusal": (0.048, 0.048),
    "last_response_sentiment": (0.212, 0.13),
    "last_response_is_eloquent": (0.324, 0.266),
    "last_response_is_helpful": (0.782, 0.703),
    "last_response_is_coherent": (0.873, 0.798),
    "last_response_is_harmless": (0.942, 0.895),
    "last_response_is_honest": (0.963, 0.935),
    "human_vocabulary_quality": (0.985, 0.985),
}
# Table 8 (raw p-values): (entry, feature, flip) -> (estimate, SE, p)
_T8 = {
    ("c", "last_response_is_coherent", -1): (-0.0037198, 0.070268, 0.915682),
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
    ("r", "last_response_sentiment", 1): (0.0093179, 0.069321, 0.788057),
}
# Table 3: mean and sd of the BGE-m3 cosine similarity of original and rewrite, (entry, flip) -> (mean, sd) per
# feature of _T3_FEATURES
_T3_FEATURES = ("helpful", "harmless", "coherent", "eloquent", "sentiment")
_T3 = {
    ("c", -1): ((0.94, 0.04), (0.94, 0.03), (0.95, 0.04), (0.94, 0.04), (0.96, 0.03)),
    ("c", 0): ((0.96, 0.03), (0.96, 0.04), (0.96, 0.04), (0.96, 0.04), (0.96, 0.04)),
    ("c", 1): ((0.94, 0.05), (0.95, 0.04), (0.95, 0.04), (0.95, 0.03), (0.96, 0.03)),
    ("r", -1): ((0.94, 0.04), (0.94, 0.04), (0.95, 0.04), (0.94, 0.04), (0.95, 0.04)),
    ("r", 0): ((0.96, 0.04), (0.96, 0.04), (0.96, 0.04), (0.96, 0.03), (0.96, 0.04)),
    ("r", 1): ((0.95, 0.05), (0.95, 0.03), (0.96, 0.03), (0.96, 0.04), (0.96, 0.04)),
}
# SEAL analysis code: counts of (chosen helpful, chosen harmless, rejected helpful, rejected harmless) labels
_LABEL_COUNTS = {
    (1, 1, 1, 1): 102151,
    (1, 1, 0, 1): 19071,
    (0, 1, 0, 1): 12093,
    (0, 1, 1, 1): 8917,
    (0, 0, 0, 0): 7131,
    (0, 1, 0, 0): 4860,
    (1, 1, 0, 0): 3628,
    (0, 0, 0, 1): 819,
    (0, 0, 1, 1): 725,
    (1, 1, 1, 0): 453,
    (0, 1, 1, 0): 263,
    (0, 0, 1, 0): 193,
    (1, 0, 0, 0): 168,
    (1, 0, 1, 1): 153,
    (1, 0, 1, 0): 142,
    (1, 0, 0, 1): 33,
}
_REGIMES = ("became-aligned", "stayed-aligned", "stayed-misaligned", "reversed")
_ENTRY = {"c": "chosen", "r": "rejected"}


def flip_label(entry: str, flip: int) -> str:
    """The column label of a robustness score in Table 8: ``"π^c_+"`` (chosen entry, flip +1), ``"π^r_-"``, …"""
    sign = "+" if flip > 0 else "-"
    return f"π^{entry}_{sign}" if abs(flip) == 1 else f"π^{entry}_{sign}{abs(flip)}"


def _r(table, row, column, value, se=None, note="", decimals=None):
    return {
        "table": table,
        "row": row,
        "column": column,
        "value": value,
        "se": float("nan") if se is None else se,
        "note": note,
        "decimals": float("nan") if decimals is None else decimals,
    }


#: The decimals Tables 5–7 print: (estimate and SE, p-value)
_DECIMALS = {"Table 5": (5, 3), "Table 6": (5, 5), "Table 7": (6, 3)}


NUMBERS: list[dict] = [
    _r("§2", "Anthropic/hh-rlhf (train)", "pairs", 160_800),
    _r("§2", "Anthropic/hh-rlhf (train)", "entries", 321_600),
    _r("App. C.3", "taxonomy", "features", 19),
    _r("App. C.3", "taxonomy", "target features", 2),
    _r("App. C.3", "taxonomy", "spoiler features", 17),
    _r("App. B.2", "taxonomy", "entries patched", 5, note="of 321,600"),
    _r("footnote 9", "pre-D RM", "lowest reward", -6.9),
    _r("footnote 9", "pre-D RM", "highest reward", 7.1),
    _r("footnote 9", "post-D RM", "lowest reward", -8.5),
    _r("footnote 9", "post-D RM", "highest reward", 6.2),
    # § 2.2: alignment score a₊ and resistance a₋ (a₋ of the pre-D RM is 1 − a₊, not printed)
    _r("§2.2", "pre-D RM", "a₊", 0.57),
    _r("§2.2", "post-D RM", "a₊", 0.74),
    _r("§2.2", "post-D RM", "a₋", 0.26),
    *[_r("Table 1", g, "prevalence", v) for g, v in zip(_REGIMES, (0.26, 0.48, 0.18, 0.08))],
    *[_r("Table 1", g, "LM-labeller agreement", v) for g, v in zip(_REGIMES, (0.74, 0.86, 0.34, 0.47))],
    *[
        _r(_CODE, g, "share of pairs", v, note="Table 1 rounds these")
        for g, v in zip(_REGIMES, (0.2577, 0.4829, 0.1719, 0.0875))
    ],
    # the 'Agreement rate stats' cell: the pairs of each regime (the n of its standard errors; they sum to 160,800)
    *[_r(_CODE, g, "pairs in the regime", v) for g, v in zip(_REGIMES, (41_445, 77_646, 27_644, 14_065))],
    _r("§3", "γ = i", "share of pairs", 0.73),
    _r(_CODE, "γ = c", "pairs", 28_443),
    _r(_CODE, "γ = r", "pairs", 10_840),
    _r(_CODE, "γ = i", "pairs", 121_517),
    _r(_CODE, "γ ≠ i", "LM-labeller agreement with the human label", 0.7240536618893669, note="c / (c + r)"),
    _r(_CODE, "γ ≠ i", "pre-D RM a₊", 0.5665300511671716),
    _r(_CODE, "γ ≠ i", "post-D RM a₊", 0.804088282463152),
    _r(_CODE, "γ ≠ i", "post-D RM agrees with the LM-labeller", 30_263 / 39_283),
    *[
        _r(
            _CODE + ", labels",
            " ".join(map(str, k)),
            "pairs",
            v,
            note="(chosen helpful, chosen harmless, rejected helpful, rejected harmless)",
        )
        for k, v in _LABEL_COUNTS.items()
    ],
    *[
        _r("App. D.2", q, "post-D RM", v)
        for q, v in (
            ("both positive", 0.28),
            ("both negative", 0.53),
            ("chosen negative only", 0.03),
            ("rejected negative only", 0.17),
        )
    ],
    *[_r("Table 4", f, e, v) for f, cr in _T4.items() for e, v in zip(("chosen", "rejected"), cr)],
    *[
        r
        for f, (qe, qs, qp, pe, ps, pp) in zip(TABLE5_FEATURES, _T5)
        for r in (
            _r("Table 5", f, "pre-D", pe, ps, decimals=5),
            _r("Table 5", f, "post-D", qe, qs, decimals=5),
            _r("Table 5", f, "pre-D p", pp, note="Bonferroni", decimals=3),
            _r("Table 5", f, "post-D p", qp, note="Bonferroni", decimals=3),
        )
    ],
    *[
        r
        for name, vals in (("Table 6", _T6), ("Table 7", _T7))
        for f, (ce, cs, cp, re_, rs, rp) in zip(TABLE5_FEATURES, vals)
        for r in (
            _r(name, f, "chosen", ce, cs, decimals=_DECIMALS[name][0]),
            _r(name, f, "rejected", re_, rs, decimals=_DECIMALS[name][0]),
            _r(name, f, "chosen p", cp, note="Bonferroni", decimals=_DECIMALS[name][1]),
            _r(name, f, "rejected p", rp, note="Bonferroni", decimals=_DECIMALS[name][1]),
        )
    ],
    *[
        r
        for (e, f, lv), (est, se, p) in _T8.items()
        for r in (_r("Table 8", f, flip_label(e, lv), est, se), _r("Table 8", f, flip_label(e, lv) + " p", p))
    ],
    *[
        r
        for (e, lv), d in _T3.items()
        for f, (m, s) in zip(_T3_FEATURES, d)
        for r in (
            _r("Table 3", f, f"{_ENTRY[e]}, flip {lv:+d}" if lv else f"{_ENTRY[e]}, flip 0", m),
            _r("Table 3", f, (f"{_ENTRY[e]}, flip {lv:+d}" if lv else f"{_ENTRY[e]}, flip 0") + " sd", s),
        )
    ],
    _r("§2.3", "rewritten pairs", "share of D", 0.01),
    _r("§2.3", "rewriter", "temperature", 0.1),
    _r("§2.3", "post-D RM", "a₊ after rewriting", 0.71),
    _r("§2.3", "exp(π^c_+(sentiment))", "odds ratio", 1.13),
    _r("§2.3", "exp(π^r_-(sentiment))", "odds ratio", 1.12),
    _r("App. D.5", "re-labelled pairs", "share of D", 0.01),
    _r("App. D.5", "stability labellers", "temperature", 0.0),
    _r("§6", "web-gpt", "a₋", 0.49),
    _r("§6", "summarize-from-feedback", "a₋", 0.66),
]
