"""The numbers Diverging Preferences (Zhang et al. 2024) reports, as rows of the tidy table of
:mod:`pluralign.paper`. **Version**: every number here is from the workshop version (Workshop on Pluralistic
Alignment at NeurIPS 2024, ``zhang2024divergingworkshop`` in references.bib; the project's seed text), whose
Table 2 is the one the pages compare with; the full arXiv version (2410.14632, ``zhang2024diverging``), which the
"do models know" and LLM-judge sections follow, reports more (and may number its tables differently). Each row's
``note`` names the version.

- ``§2``: the share of pairs with diverging preferences ("about 39%" of MultiPref, "24%" of HelpSteer2);
- ``Table 1``: the frequency of each cause among the authors' sampled diverging pairs (rows: Table 1's
  category names; a pair can carry several causes, so a column sums to more than 1);
- ``§2.1``: the authors' agreement on the cause labels, Cohen's κ over full label sets and Krippendorff's
  α with MASI distance;
- ``Table 2``: per data set and agreement subset, the number of held-out examples (``# Ex.``) and each
  reward model's mean P(chosen ≻ rejected) (BT) or r_chosen − r_rejected (MSE; HelpSteer2 only). The row is
  ``"<data set> / <subset>"`` (e.g. ``"MultiPref / High-Agreement Prefs."``), the column the model.
"""

_D = {"multipref": "MultiPref", "helpsteer2": "HelpSteer2"}

NUMBERS: list[dict] = [
    {
        "table": "§2",
        "row": "MultiPref",
        "column": "diverging share",
        "value": 0.39,
        "note": '"This process yields about 39% of preference pairs"',
    },
    {
        "table": "§2",
        "row": "HelpSteer2",
        "column": "diverging share",
        "value": 0.24,
        "note": '"which we find comprise 24% of all examples"',
    },
    {
        "table": "§2.1",
        "row": "MultiPref",
        "column": "κ",
        "value": 0.59,
        "note": "three authors, 50 diverging pairs; Cohen's κ over full label sets",
    },
    {
        "table": "§2.1",
        "row": "MultiPref",
        "column": "α (MASI)",
        "value": 0.68,
        "note": "three authors, 50 diverging pairs; Krippendorff's α with MASI distance",
    },
    {
        "table": "§2.1",
        "row": "HelpSteer2",
        "column": "κ",
        "value": 0.58,
        "note": "three authors, 50 diverging pairs; Cohen's κ over full label sets",
    },
    {
        "table": "§2.1",
        "row": "HelpSteer2",
        "column": "α (MASI)",
        "value": 0.62,
        "note": "three authors, 50 diverging pairs; Krippendorff's α with MASI distance",
    },
]

# Table 1: category -> (MultiPref, HelpSteer2)
_TABLE1 = {
    "Task Underspecification": (0.20, 0.22),
    "Verbosity": (0.38, 0.44),
    "Format": (0.20, 0.32),
    "Aesthetic Taste": (0.14, 0.22),
    "Complexity": (0.10, 0.10),
    "Safety": (0.16, 0.00),
    "Capabilities": (0.04, 0.04),
    "Comply vs. Refuse": (0.05, 0.04),
    "Refuse vs. Refuse": (0.20, 0.00),
    "Hallucinations, Degenerate Outputs, and Errors": (0.14, 0.24),
}
NUMBERS += [
    {"table": "Table 1", "row": cat, "column": col, "value": v}
    for cat, vals in _TABLE1.items()
    for col, v in zip(("MultiPref", "HelpSteer2"), vals)
]

# Table 2: data set -> column -> values over the subsets (in the paper's row order)
_SUBSETS = (
    "High-Agreement Prefs.",
    "High-Agreement Ties",
    "Diverging Prefs. (All)",
    "Diverging Prefs. (Subst.)",
    "All Examples",
)
_TABLE2 = {
    "multipref": {
        "# Ex.": [127, 141, 178, 74, 500],
        "BT (Agg)": [0.786, 0.663, 0.798, 0.820, 0.762],
        "BT (All)": [0.669, 0.580, 0.663, 0.690, 0.647],
    },
    "helpsteer2": {
        "# Ex.": [298, 117, 147, 69, 576],
        "BT (Agg)": [0.751, 0.673, 0.722, 0.731, 0.725],
        "BT (All)": [0.718, 0.631, 0.678, 0.694, 0.688],
        "MSE (Agg)": [0.811, 0.412, 0.706, 0.834, 0.683],
        "MSE (All)": [0.676, 0.340, 0.573, 0.692, 0.565],
    },
}
NUMBERS += [
    {
        "table": "Table 2",
        "row": f"{_D[ds]} / {subset}",
        "column": col,
        "value": v,
        "decimals": 0 if col == "# Ex." else 3,
    }
    for ds, cols in _TABLE2.items()
    for col, vals in cols.items()
    for subset, v in zip(_SUBSETS, vals)
]

#: The version every number above comes from (see the module docstring).
VERSION = "workshop version (Pluralistic Alignment @ NeurIPS 2024)"
for _row in NUMBERS:
    _row["note"] = f"{_row['note']}; {VERSION}" if _row.get("note") else VERSION
