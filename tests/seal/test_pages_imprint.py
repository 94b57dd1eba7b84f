"""The SEAL feature-imprint page (seal.pages.imprint_page) on a simulated D with reward models whose rewards are the
planted utility (the ``study`` fixture)."""

import pytest

from pluralign.seal.pages import imprint_page


def test_imprint_page_sections(study):
    im = imprint_page.imprints(study)
    assert im.values["n_imprint_obs"] == 2 * len(study.view) and im.values["paper_n_t5"] == 15
    assert im.values["paper_harmless_post"] == 2.0898
    # Table 5's rows (SEAL's names): this run's estimate of the simulator feature that plays each, sign-aligned,
    # beside the paper's, in both variants of Eq. 1, with a verdict from the CI
    from pluralign.presentation import present_html
    from pluralign.seal.compare import THIS_RUN
    from pluralign.seal.design import PAPER_FEATURES
    from pluralign.seal.display import display_name

    t = im.table
    long = im.data["long"]
    assert t.index.names == ["SEAL feature", "RM", "estimator"] and len(t.columns) <= 7
    run = THIS_RUN
    assert {"simulator feature", "In the paper", run, "verdict"} <= set(t.columns)
    fe = im.data["fixed_effects"]["post"].table["estimate"]
    lf = long.set_index(["paper_feature", "group", "variant"])
    for sim, (name, sign) in PAPER_FEATURES.items():  # every mapped feature: the paper's number on this run's row
        row = t.loc[(display_name(name), "post-D", "pair fixed effects (this project)")]
        assert float(row["In the paper"]) == pytest.approx(
            im.paper.set_index(["feature", "group"]).loc[(name, "post-D"), "estimate"]
        )
        assert lf.loc[(name, "post-D", "pair fixed effects (this project)"), "estimate"] == pytest.approx(
            sign * fe[sim]
        )
        assert row["simulator feature"] == f"{display_name(sim)} × {'+1' if sign > 0 else '−1'}"
    assert t.loc[("harmless", "post-D", "pair fixed effects (this project)"), "In the paper"] == "2.08980"  # as printed
    assert im.values["n_t5_compared"] == len(PAPER_FEATURES)
    # a paper-only feature: no number of this run, the reason in short; demo-only features come last
    eloq = t.loc[("eloquent", "post-D", "—")]
    assert eloq[run] == "—" and eloq["verdict"] == "no counterpart"
    assert list(dict.fromkeys(t.index.get_level_values(0)))[-1] == "interpretation"
    assert "nan" not in present_html(t).lower()
    fc = imprint_page.featurizer_check(study)
    assert fc.table.loc["refusal", "agreement"] == 1.0 and "AUROC" in fc.note
    assert "LM-labellers" in imprint_page.label_stability(study).skipped
    prev = imprint_page.prevalence(study)
    p4 = prev.table
    assert p4.loc["harmless", "simulator feature"] == "1 − harmfulness"
    assert p4.loc["harmless", "share chosen (this run, simulator feature)"] == pytest.approx(
        1 - study.F.chosen["harmfulness"].mean()
    )
    assert p4.loc["harmless", "share chosen (paper)"] == 0.942
    rec = imprint_page.planted_recovery(study)
    assert rec.table.loc["Pearson r (imprint vs weight)", "planted utility (method check)"] == pytest.approx(1.0)
    assert imprint_page.vif_dropped(study).table.shape == (4, 1)
    assert 0 <= imprint_page.shift_regression(study).values["t6_r2"] <= 1


def test_no_sentence_about_the_simulator_without_planted_features(study):
    """With the rule featurizer's features (the sample profile's), no section of the imprint or resistance page
    speaks of the simulator (a sentence about planted features appears only where the features are planted)."""
    import dataclasses

    from pluralign.seal.design import entry_features
    from pluralign.seal.pages import resistance_page

    rules = dataclasses.replace(study, F=entry_features(study.D, study.view, "rules"))
    sections = [
        imprint_page.featurizer_check,
        imprint_page.feature_mapping,
        imprint_page.label_stability,
        imprint_page.prevalence,
        imprint_page.imprints,
        imprint_page.planted_recovery,
        imprint_page.shift_regression,
        resistance_page.labeller_rules,
        resistance_page.reward_gap_distributions,
        resistance_page.misalignment,
    ]
    for section in sections:
        r = section(rules)
        text = f"{r.note} {r.skipped} {r.values}".lower()
        assert "simulator" not in text and "enthusiastic" not in text, section.__name__
    assert "simulator's is the share of enthusiastic" not in imprint_page.prevalence(rules).note
    assert "enthusiastic entries" in imprint_page.prevalence(study).note  # on planted features it is said
