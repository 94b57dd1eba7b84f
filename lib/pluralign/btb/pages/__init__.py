"""The pages of Part III (Beyond the Binary), one module each, holding that page's sections as functions of the
study (:class:`pluralign.btb.study.Study`) that return a :class:`pluralign.report.Result`:

- :mod:`.subjectivity_page` — the categories of subjectivity and p* (§3.1–3.2, Eq. 2, Appendix B);
- :mod:`.margins_page` — synthetic judgments and their margins (§3.3, Eq. 3, Appendix A);
- :mod:`.rewards_page` — the margin-regularized reward model against the baseline (Eqs. 1 and 4, Tables 1–2);
- :mod:`.provenance` — where p* and the categories come from, shared by the subjectivity and rewards pages.
"""
