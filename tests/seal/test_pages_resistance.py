"""The SEAL alignment-resistance page (seal.pages.resistance) on a simulated D with reward models whose rewards are
the planted utility (the ``study`` fixture)."""

import numpy as np
import pytest

from pluralign.seal.pages import resistance
from pluralign.seal.resistance import alignment_summary, regime_prevalence


def test_resistance_page_sections(study):
    reg = resistance.regime_table(study)
    assert sum(reg.values.values()) == pytest.approx(1.0)
    assert reg.values["prev_reversed"] == regime_prevalence(study.regimes)["reversed"]
    lr = resistance.labeller_rules(study)
    from pluralign.seal.design import labeller_gamma

    for rule, prio in (("harmless_first", "harmless"), ("helpful_first", "helpful")):
        g = labeller_gamma(study.F, priority=prio)
        name = rule + (" (this page)" if rule == "harmless_first" else "")
        assert lr.table.loc[name, "γ = c (chosen)"] == int(np.sum(g == "c"))
        assert lr.table.loc[name, "γ = r (rejected)"] == int(np.sum(g == "r"))
    assert lr.table.loc["SEAL's analysis code (hh-rlhf, harmless first)", "γ = c (chosen)"] == 28443
    assert lr.values["n_rule_differs"] == int(
        np.sum(labeller_gamma(study.F, priority="harmless") != labeller_gamma(study.F, priority="helpful"))
    )
    assert list(study.gamma) == list(labeller_gamma(study.F, priority="harmless"))  # the page's rule
    ag = resistance.labeller_agreement(study)
    assert ag.values["n_c"] + ag.values["n_r"] == resistance.decisive_pairs(study).table.iloc[0, 0]
    assert ag.values["paper_n_decisive"] == "39,283" and ag.values["paper_share_i"] == 0.73
    mis = resistance.misalignment(study)
    assert mis.values["t7_base"] == pytest.approx(
        1
        - alignment_summary(*[study.R[c] for c in ("pre_chosen", "pre_rejected", "post_chosen", "post_rejected")])[
            "a_plus_post"
        ]
    )
    t7 = mis.table
    assert t7.index.names == ["SEAL feature", "entry", "estimator"] and len(t7.columns) <= 7
    lpm = ("last_response_is_refusal", "rejected", "LPM (OLS on 0/1, Table 7's scale)")
    assert t7.loc[lpm, "In the paper"] == pytest.approx(0.134595)
    assert t7.loc[lpm, "This run (simulator feature, sign-aligned)"] == pytest.approx(
        mis.data["linear"].table.loc[("r", "refusal"), "estimate"]
    )
