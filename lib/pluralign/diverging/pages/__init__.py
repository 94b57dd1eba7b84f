"""The sections of the Part I pages (Diverging Preferences), one module per page, each section a function of a
:class:`pluralign.diverging.study.Study` returning a :class:`pluralign.report.Result`:

- :mod:`.agreement_page` — §2's agreement classes: their shares beside the paper's, examples, planted recovery;
- :mod:`.causes_page` — Table 1 and §2.1: the taxonomy, cause frequencies, the annotation round-trip, κ and α-MASI;
- :mod:`.causes_llm_page` — the LLM cause classifier (the full version of the paper);
- :mod:`.rewards_page` — §3 and Table 2: the reward models, their decisiveness per agreement subset;
- :mod:`.know_page` — do models know? The mean-variance RM's predicted disagreement, LLM judges' decisiveness.
"""
