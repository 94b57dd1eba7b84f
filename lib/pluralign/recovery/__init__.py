"""The demo as a controlled experiment: every method of the library checked against the simulator's planted truth.

The demo profile's data come from :func:`pluralign.data.simulate`, so what each method should find is known.
:func:`recovery_table` runs one check per method (and one per central claim of each paper that the demo can
test) through the parts' own studies — the same settings and cache as the book's pages — and returns one
tidy table with columns :data:`COLUMNS`:

``part`` (diverging / seal / btb), ``quantity`` (a stable id), ``description``, ``planted`` (what the simulator
planted, NaN where the row tests a paper's claim rather than a planted value), ``estimate`` with its 95 %
``ci_low`` / ``ci_high``, ``criterion`` (the test, in words) and ``recovered`` (bool).

A *method row* passes when the method gives back what was planted; a *claim row* (``quantity`` starting
``claim_``) carries the paper's claim as its criterion and its verdict from the CI — it may come out either
way, and that is a finding about the simulated population, not a failure of the code.

Each check is one function taking the objects it needs (a study, a data set, a trained model), so the tests
run small versions of them; :func:`recovery_table` wires them to the demo profile's studies, each built as its book
page builds it, read through the studies' public members only.

- :mod:`.rows` — the table's columns, the three kinds of row, the shared intervals;
- :mod:`.diverging_checks`, :mod:`.seal_checks`, :mod:`.btb_checks` — the checks of Parts I, II and III;
- :mod:`.demo` — the demo table from the parts' studies, the page's result, the training curves, the command line.
"""

from pluralign.recovery.btb_checks import (
    claim_margin_improves_pstar,
    margin_pstar_correlation,
    subjectivity_category_accuracy,
)
from pluralign.recovery.demo import (
    PAGES,
    WHY,
    btb_rows,
    diverging_rows,
    main,
    page_params,
    part_study,
    recovery_table,
    result,
    seal_rows,
    training_curves,
)
from pluralign.recovery.diverging_checks import (
    VISIBLE_CAUSES,
    cause_agreement,
    claim_bt_decisive_on_diverging,
    claim_mv_identifies_diverging,
    diverging_share,
    diverging_taste_driven,
    expected_agreement,
    meanvar_auroc_diverging,
    rm_accuracy_high_agreement,
    rm_utility_correlation,
)
from pluralign.recovery.rows import COLUMNS, HIGH_AGREEMENT, REQUIRED, STAND_IN, fisher_ci, is_method, pearson_ci, row
from pluralign.recovery.seal_checks import (
    claim_seal_alignment_shift,
    imprint_rm,
    labelling_weights,
    oracle_imprint,
    oracle_robustness,
    residual_sd,
    robustness_sign,
)

__all__ = [
    "COLUMNS",
    "REQUIRED",
    "HIGH_AGREEMENT",
    "STAND_IN",
    "row",
    "is_method",
    "pearson_ci",
    "fisher_ci",
    "VISIBLE_CAUSES",
    "expected_agreement",
    "diverging_share",
    "diverging_taste_driven",
    "cause_agreement",
    "meanvar_auroc_diverging",
    "rm_accuracy_high_agreement",
    "rm_utility_correlation",
    "claim_mv_identifies_diverging",
    "claim_bt_decisive_on_diverging",
    "oracle_imprint",
    "imprint_rm",
    "residual_sd",
    "robustness_sign",
    "oracle_robustness",
    "claim_seal_alignment_shift",
    "labelling_weights",
    "margin_pstar_correlation",
    "subjectivity_category_accuracy",
    "claim_margin_improves_pstar",
    "PAGES",
    "WHY",
    "page_params",
    "part_study",
    "diverging_rows",
    "seal_rows",
    "btb_rows",
    "training_curves",
    "recovery_table",
    "result",
    "main",
]
