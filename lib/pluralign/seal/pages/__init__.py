"""The SEAL pages (Part II), one module per book page, each holding that page's sections as functions of the
study (:class:`~pluralign.seal.study.Study`) that return a :class:`~pluralign.report.Result`:

- :mod:`.rewards_page` — D and the two reward models, what they score, reward vectors and shifts, a₊ / a₋, quadrants;
- :mod:`.imprint_page` — featurization, label stability, prevalence (Table 4), imprints (Eq. 1, Table 5), the planted
  weights' recovery, the reward-shift regression (Eq. 2, Table 6);
- :mod:`.resistance_page` — regimes (Table 1), γ (App. D.4), the regime t-tests, reward gaps (App. D.1), topics
  (App. E.1), resistance on other sets (§ 3), the misalignment regression (Eq. 3, Table 7);
- :mod:`.robustness_page` — the § 2.3 rewriting, label flips and similarity (Fig. 12, Table 3), robustness scores
  (Eq. 4, Table 8).
"""
