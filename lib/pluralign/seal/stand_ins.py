"""What a SEAL page's run stands in for, in the profile note at the top of each page.

What a *profile* stands in for is written once in :mod:`pluralign.profiles` (keys ``seal.<page>``); the sentences
here depend on the study's *settings* instead — whether this project trained its own pre-D / post-D pair, which
featurizer made the features, which rewriter ran — so they are true for any parameter file, and a sentence about
the simulator appears only when the features or rewrites are the simulator's."""

from __future__ import annotations

__all__ = ["TRAINED_PAIR_NOTE", "PAGE_STAND_INS", "study_stand_ins", "page_stand_ins"]

#: What a page says when this project trains its own pre-D / post-D pair (no named ``reward_models``).
TRAINED_PAIR_NOTE = (
    "pre-D and post-D reward models trained by this project (pre-D on other preference data, "
    "post-D on that data plus D) in place of the OpenAssistant DeBERTa-v3 pair"
)

#: The stand-ins one page adds, by (page, feature source or rewriter).
PAGE_STAND_INS = {
    ("imprint", "planted"): "the rule-based featurizer checked against the planted features",
    ("imprint", "rules"): "no helpfulness, honesty, coherence or eloquence labels (surface patterns only)",
    ("robustness", "simulator"): "the simulator's own rewrites with planted feature flips in place of LM rewrites, "
    "and the planted flips in place of re-featurization",
}


def study_stand_ins(reward_models=None, F=None) -> list[str]:
    """The offline stand-ins of a SEAL study design: :data:`TRAINED_PAIR_NOTE` without named
    ``reward_models``, and, for features other than the LM-labeller's, what stands in for its taxonomy
    (the ``note`` of :func:`~pluralign.seal.design.entry_features`)."""
    out = []
    if reward_models is None:
        out.append(TRAINED_PAIR_NOTE)
    if F is not None and F.source != "llm":
        out.append(f"{F.note}, in place of the LM-labeller's taxonomy labels")
    return out


def page_stand_ins(study, page: str | None = None) -> list[str]:
    """The study design's stand-ins and those ``page`` adds (``"imprint"``: by the feature source;
    ``"robustness"``: by the rewriter)."""
    key = study.F.source if page == "imprint" and study.F else study.settings.rewriter
    extra = PAGE_STAND_INS.get((page, key if isinstance(key, str) else None))
    return list(study.stand_ins) + ([extra] if extra else [])
