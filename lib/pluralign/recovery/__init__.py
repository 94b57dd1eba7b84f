"""The demo as a controlled experiment: every method of the library checked against the simulator's planted truth.

The demo profile's data come from :func:`pluralign.data.simulate`, so what each method should find is known.
:func:`recovery_table` runs one check per method (and one per central claim of each paper that the demo can
test) through the parts' own studies — the same settings and cache as the book's pages — and returns one
tidy table with columns :data:`COLUMNS`:

``part`` (diverging / seal / btb), ``quantity`` (a stable id), ``kind`` (method / stand-in / claim /
plumbing, :mod:`.rows`), ``description``, ``planted`` (what the simulator planted; NaN where nothing was),
``estimate`` with its 95 % ``ci_low`` / ``ci_high`` and their resampling unit ``interval``, ``criterion`` (the
test, in words) and ``recovered`` (bool). Method rows gate: ``pluralign recovery`` exits 1 when one misses.

Each check is one function taking the objects it needs (a study, a data set, a trained model), so the tests
run small versions of them; :func:`recovery_table` wires them to the demo profile's studies, each built as its book
page builds it, read through the studies' public members only.

- :mod:`.context` — the pages whose studies the checks read, and what a run of them holds;
- :mod:`.rows` — the table's columns, the four kinds of row, the shared intervals;
- :mod:`.diverging_checks`, :mod:`.seal_checks`, :mod:`.btb_checks` — the checks of Parts I, II and III, with
  Part I's planted agreement classes in :mod:`.agreement_truth`, Part II's method rows in :mod:`.imprint_checks`
  (Eq. 1), :mod:`.resistance_checks` (Eq. 3, Table 1) and :mod:`.robustness_checks` (Eq. 4);
- :mod:`.mutations` — broken variants of every method run through the same checks: each must fail its row;
- :mod:`.demo` — the demo table from the parts' studies, the page's result, the training curves, the command line;
- :mod:`.study` — how often the method rows fail correct methods, over fresh populations.
"""

import types

from pluralign.recovery.agreement_truth import expected_agreement
from pluralign.recovery.btb_checks import (
    claim_margin_improves_pstar,
    expected_margin_correlation,
    expected_signed_margin,
    margin_judge,
    margin_pstar_correlation,
    subjectivity_category_accuracy,
)
from pluralign.recovery.context import PAGES, RecoveryContext, book_seed, page_params, part_study
from pluralign.recovery.demo import (
    KIND_NOTES,
    WHY,
    btb_rows,
    commit_seed,
    difficulty,
    diverging_rows,
    main,
    mutation_result,
    planning_result,
    recovery_context,
    recovery_table,
    result,
    seal_rows,
    sweep_result,
    training_curves,
)
from pluralign.recovery.diverging_checks import (
    PAPER_CAUSE_KAPPA,
    VISIBLE_CAUSES,
    cause_agreement,
    claim_bt_decisive_on_diverging,
    claim_mv_identifies_diverging,
    diverging_judge,
    diverging_share,
    diverging_taste_driven,
    meanvar_auroc_diverging,
    rm_accuracy_high_agreement,
    rm_utility_correlation,
)
from pluralign.recovery.imprint_checks import imprint_judge, oracle_imprint, oracle_imprint_text
from pluralign.recovery.resistance_checks import oracle_resistance, planted_resistance
from pluralign.recovery.robustness_checks import oracle_robustness, planted_scores
from pluralign.recovery.rows import (
    ALPHA,
    COLUMNS,
    HIGH_AGREEMENT,
    KINDS,
    REQUIRED,
    coverage_floor,
    exact_share_ci,
    fisher_ci,
    is_method,
    pearson_ci,
    row,
    two_way_share_ci,
)
from pluralign.recovery.seal_checks import (
    claim_seal_alignment_shift,
    imprint_rm,
    labelling_weights,
    oracle_utilities,
    residual_sd,
    robustness_sign,
)

#: every name imported above (the public names of the submodules that a user of the package needs), listed once
__all__ = sorted(k for k, v in globals().items() if not k.startswith("_") and not isinstance(v, types.ModuleType))
