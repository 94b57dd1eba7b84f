"""The sections of the Part I pages (Diverging Preferences), one module per page, each section a function of a
:class:`pluralign.diverging.study.Study` returning a :class:`pluralign.report.Result`:

- :mod:`.agreement_page` — §2's agreement classes: their shares beside the paper's, examples, planted recovery;
- :mod:`.causes_page` — Table 1 and §2.1: the taxonomy, cause frequencies, the annotation round-trip, κ and α-MASI;
- :mod:`.causes_llm_page` — the LLM cause classifier (the full version of the paper);
- :mod:`.rewards_page` — §3 and Table 2: the reward models, their decisiveness per agreement subset;
- :mod:`.know_page` — do models know? The mean-variance RM's predicted disagreement, LLM judges' decisiveness.

Every page module is named ``<page>_page`` (the page ``notebooks/<part>_<page>.py`` shows), apart from the concept
modules of the part; a page's notebook calls its sections, and puts the profile note at its top with
``report.profile_note(profile, stand_ins(study, "<page>"))`` (:func:`stand_ins`: what this part provides).
"""

from __future__ import annotations

from pluralign import profiles

__all__ = ["stand_ins"]


def stand_ins(study, page: str) -> list[str]:
    """The offline stand-ins this profile uses on ``page`` (``"agreement"``, ``"causes"``, ``"rewards"``,
    ``"know"``; the sentences of :mod:`pluralign.profiles`, keys ``diverging.<page>``), with the reward-model head
    they name."""
    return profiles.stand_ins(study.profile, f"diverging.{page}", head=study.head)
