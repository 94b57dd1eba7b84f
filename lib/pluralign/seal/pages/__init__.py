"""The SEAL pages (Part II), one module per book page, each holding that page's sections as functions of the
study (:class:`~pluralign.seal.study.Study`) that return a :class:`~pluralign.report.Result`:

- :mod:`.rewards_page` — D and the two reward models, what they score, reward vectors and shifts, a₊ / a₋, quadrants;
- :mod:`.imprint_page` — featurization, label stability, prevalence (Table 4), imprints (Eq. 1, Table 5), the planted
  weights' recovery, the reward-shift regression (Eq. 2, Table 6);
- :mod:`.resistance_page` — regimes (Table 1), γ (App. D.4), the regime t-tests, reward gaps (App. D.1), topics
  (App. E.1), resistance on other sets (§ 3), the misalignment regression (Eq. 3, Table 7);
- :mod:`.robustness_page` — the § 2.3 rewriting, label flips and similarity (Fig. 12, Table 3), robustness scores
  (Eq. 4, Table 8).

Every page module is named ``<page>_page`` (the page ``notebooks/<part>_<page>.py`` shows), apart from the concept
modules of the part; a page's notebook calls its sections, and puts the profile note at its top with
``report.profile_note(profile, stand_ins(study, "<page>"))`` (:func:`stand_ins`: what this part provides).
"""

from __future__ import annotations

from pluralign import profiles
from pluralign.seal.stand_ins import page_stand_ins

__all__ = ["stand_ins"]


def stand_ins(study, page: str) -> list[str]:
    """The offline stand-ins of ``page`` (``"rewards"``, ``"imprint"``, ``"resistance"``, ``"robustness"``): the
    profile's own (:func:`pluralign.profiles.stand_ins`, ``seal.<page>``) and the study design's and the page's
    (:func:`pluralign.seal.stand_ins.page_stand_ins`: the trained pair, the featurizer, the rewriter)."""
    own = profiles.stand_ins(study.profile, f"seal.{page}") if study.profile else []
    return own + page_stand_ins(study, page)
