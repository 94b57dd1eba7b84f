"""LM labels that failed (App. C.3): entries the LM-labeller gave no valid label, counted, and what a section says
when no pair is left to estimate from — shared by the feature-imprint and resistance pages.

A label fails when the labeller's answer does not parse as JSON or does not fit the App. C.3 schema
(:func:`~pluralign.seal.features.featurize` counts them in ``n_failed``); planted and rule-based features cannot
fail."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LabelFailures", "label_failures", "require_labels", "NO_LABELS"]

#: The findings line of a comparison with one of the paper's tables (its name in ``{}``) where no pair has the labels
#: it needs: a sentence for the page's box, never "—".
NO_LABELS = "No coefficient of {} could be estimated here: no pair has every label on both entries."


@dataclass(frozen=True)
class LabelFailures:
    """``failed`` of ``entries`` chosen and rejected entries without a valid label (every taxonomy key missing),
    ``pairs`` of ``n_pairs`` pairs with every regressor labelled on both entries (what Eq. 1-3 can use), and the
    ``labeller``'s name."""

    failed: int
    entries: int
    pairs: int
    n_pairs: int
    labeller: str | None

    @property
    def text(self) -> str:
        """ "N of M LM labels failed (why)", the count every section without an estimate states."""
        return (
            f"{self.failed} of {self.entries} LM labels failed (the labeller {self.labeller} gave no answer that "
            "parses as JSON and fits the App. C.3 schema)"
        )


def label_failures(F) -> LabelFailures | None:
    """The failed labels of :class:`~pluralign.seal.design.EntryFeatures` ``F`` from an LM-labeller
    (``features: llm``); None for planted or rule-based features (they cannot fail) and for no features."""
    if F is None or F.source != "llm" or F.labels_chosen is None:
        return None
    miss = [F.labels_chosen.isna().all(axis=1).to_numpy(), F.labels_rejected.isna().all(axis=1).to_numpy()]
    full = (
        F.chosen[F.regressors].notna().all(axis=1).to_numpy() & F.rejected[F.regressors].notna().all(axis=1).to_numpy()
    )
    return LabelFailures(
        failed=int(miss[0].sum() + miss[1].sum()),
        entries=int(len(miss[0]) + len(miss[1])),
        pairs=int(full.sum()),
        n_pairs=int(len(full)),
        labeller=F.labeller,
    )


def require_labels(study, usable: int | None = None, values: dict | None = None) -> None:
    """Raise :class:`~pluralign.report.NoEstimate` ("N of M LM labels failed …, so no pair has labels on both
    entries.") when a section has nothing to estimate from: no pair has ``usable`` labels (default: every regressor
    on both entries) because the LM-labeller's answers failed. ``values``: the section's declared names it can still
    give (:func:`pluralign.report.section` fills the others with "—")."""
    from pluralign.report import NoEstimate

    f = study.label_failures
    if f is not None and (f.pairs if usable is None else usable) <= 0:
        raise NoEstimate(f"{f.text}, so no pair has labels on both entries.", values)
