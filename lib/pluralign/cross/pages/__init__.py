"""The pages of Part IV, one module per book page, each holding that page's sections as functions of the study
(:func:`pluralign.cross.setup`) that return a :class:`pluralign.report.Result`:

- :mod:`.margins_page` — question 1, margins by agreement class (``notebooks/cross_margins.py``);
- :mod:`.uncertainty_page` — question 2, reward-model uncertainty against the margin (``cross_uncertainty.py``);
- :mod:`.regimes_page` — question 3, SEAL's alignment regimes by agreement class (``cross_regimes.py``);
- :mod:`.training_page` — question 4, which training handles disagreement (``cross_training.py``).

A section given :class:`pluralign.cross.studies.Studies` (several data sets analysed apart) runs on each and joins
the results.

Every page module is named ``<page>_page`` (the page ``notebooks/<part>_<page>.py`` shows), apart from the concept
modules of the part; a page's notebook calls its sections, and puts the profile note at its top with
``report.profile_note(profile, stand_ins(study, "<page>"))`` (:func:`stand_ins`: what this part provides).
"""

from __future__ import annotations

from pluralign import profiles
from pluralign.cross.studies import Studies
from pluralign.llm.options import LLMOptions

__all__ = ["stand_ins"]


def stand_ins(study, page: str) -> list[str]:
    """The offline stand-ins this profile uses on the Part IV pages (``page``: one of them; the four share the
    sentences of :mod:`pluralign.profiles` under ``cross``), with the judge they quote (its name, noise and draws);
    for :class:`~pluralign.cross.studies.Studies`, the first data set's study."""
    study = next(iter(study.studies.values())) if isinstance(study, Studies) else study
    model = study.judge.model
    judge = (model.name or "an LLM") if isinstance(model, LLMOptions) else str(model)
    return profiles.stand_ins(study.profile, "cross", noise=study.judge.noise, n=study.judge.n, judge=judge)
