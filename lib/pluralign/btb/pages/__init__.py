"""The pages of Part III (Beyond the Binary), one module each, holding that page's sections as functions of the
study (:class:`pluralign.btb.study.Study`) that return a :class:`pluralign.report.Result`:

- :mod:`.subjectivity_page` — the categories of subjectivity and p* (§3.1–3.2, Eq. 2, Appendix B);
- :mod:`.margins_page` — synthetic judgments and their margins (§3.3, Eq. 3, Appendix A);
- :mod:`.rewards_page` — the margin-regularized reward model against the baseline (Eqs. 1 and 4, Tables 1–2);
- :mod:`.decidability_page` — the sections of that page's decidability study: are Table 1's differences decidable
  from this run?

The sections the subjectivity and rewards pages share (where p* and the categories come from) are in
:mod:`pluralign.btb.provenance`.

Every page module is named ``<page>_page`` (the page ``notebooks/<part>_<page>.py`` shows), apart from the concept
modules of the part; a page's notebook calls its sections, and puts the profile note at its top with
``report.profile_note(profile, stand_ins(study, "<page>"))`` (:func:`stand_ins`: what this part provides).
"""

from __future__ import annotations

from pluralign import profiles
from pluralign.btb.provenance import pairs_taken

__all__ = ["stand_ins"]


def stand_ins(study, page: str) -> list[str]:
    """The offline stand-ins this profile uses on ``page`` (``"subjectivity"``, ``"margins"``, ``"rewards"``; the
    sentences of :mod:`pluralign.profiles`, keys ``btb.<page>``), with the settings they quote: the judge's noise
    and draws, the embedded judge's pairs, the HH-RLHF pairs taken (all pairs, the test pairs)."""
    s = study.settings
    return profiles.stand_ins(
        study.profile,
        f"btb.{page}",
        noise=s.judge.noise,
        n=s.judge.n,
        embedded_pairs=s.embedded_pairs,
        hh_rlhf=pairs_taken(s.per_dataset, "hh-rlhf"),
        hh_rlhf_test=pairs_taken(s.evaluation.test_per_dataset, "hh-rlhf"),
    )
