"""The pages of Part IV, one module per book page, each holding that page's sections as functions of the study
(:func:`pluralign.cross.setup`) that return a :class:`pluralign.report.Result`:

- :mod:`.margins_page` — question 1, margins by agreement class (``notebooks/cross_margins.py``);
- :mod:`.uncertainty_page` — question 2, reward-model uncertainty against the margin (``cross_uncertainty.py``);
- :mod:`.regimes_page` — question 3, SEAL's alignment regimes by agreement class (``cross_regimes.py``);
- :mod:`.training_page` — question 4, which training handles disagreement (``cross_training.py``).

A section given :class:`pluralign.cross.studies.Studies` (several data sets analysed apart) runs on each and joins
the results.
"""
