"""The numbers Beyond the Binary (Padmakumar et al. 2024, arXiv 2412.03822) reports, as rows of the tidy
table of :mod:`pluralign.paper`.

- ``Table 1``: the Pearson correlation between a reward model's P(A ≻ B) and the aggregate user preference
  p* on the 150-pair test set (25 random pairs from each of six data sets), per data set, domain (ID / OOD),
  category of subjectivity (Multiple / Single Correct, also split by domain) and distinguishability. The
  row is the category as printed; the columns are ``N`` (pairs in the cell), ``baseline`` (the OpenAssistant
  DeBERTa-v3-large-v2 RM, trained with Eq. 1), ``regularized`` (DeBERTa-v3 trained with Eq. 4) and ``Δ``
  (regularized − baseline).

The N printed for "Single Correct ID" (40) and "Multiple Correct OOD" (34) are inconsistent with the other
rows (Multiple 106 = ID + OOD needs 66 + 40; Single 44 needs 34 + 10; ID 100 = 66 + 34); they are kept as
printed. Table 2 (mean L1 distance) is described in the text (regularization lowers L1 on the All-ID /
All-OOD averages and on multiple-correct pairs; the baseline is slightly better on indistinguishable than on
distinguishable pairs), but its numbers are not in the project's copy of the paper (the PDF extraction lost
that table), so no L1 rows are given rather than guessed.
"""

_TABLE1 = [  # as printed: (category, N, baseline, regularized, Δ)
    ("WebGPT", 25, 0.677, 0.637, -0.040),
    ("HH-RLHF", 25, 0.974, 0.974, 0.000),
    ("OpenAI Summarize", 25, 0.468, 0.585, 0.117),
    ("InstructGPT-J", 25, 0.573, 0.544, -0.029),
    ("ID", 100, 0.734, 0.749, 0.015),
    ("PRISM", 25, 0.472, 0.658, 0.186),
    ("UltraFeedback", 25, 0.248, 0.277, 0.029),
    ("OOD", 50, 0.377, 0.488, 0.111),
    ("Multiple Correct", 106, 0.572, 0.626, 0.054),
    ("Single Correct", 44, 0.802, 0.799, -0.003),
    ("Multiple Correct ID", 66, 0.691, 0.715, 0.024),
    ("Single Correct ID", 40, 0.835, 0.824, -0.011),
    ("Multiple Correct OOD", 34, 0.251, 0.384, 0.133),
    ("Single Correct OOD", 10, 0.694, 0.766, 0.072),
    ("Distinguishable", 124, 0.640, 0.686, 0.046),
    ("Indistinguishable", 26, 0.631, 0.652, 0.021),
]
_NOTE = {
    "Single Correct ID": "N as printed (inconsistent with the other rows)",
    "Multiple Correct OOD": "N as printed (inconsistent with the other rows)",
}

NUMBERS: list[dict] = [
    {
        "table": "Table 1",
        "row": row,
        "column": col,
        "value": float(v),
        "note": _NOTE.get(row, ""),
        "decimals": 0 if col == "N" else 3,
    }
    for row, *vals in _TABLE1
    for col, v in zip(("N", "baseline", "regularized", "Δ"), vals)
]
