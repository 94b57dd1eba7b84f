"""The SEAL alignment-robustness page (seal.pages.robustness_page) on a simulated D rewritten by the simulator, with
reward models whose rewards are the planted utility (the ``study`` fixture)."""

import numpy as np
import pytest

from pluralign.seal.pages import robustness_page


def test_robustness_page_sections(study):
    rs = robustness_page.rewrite_summary(study)
    assert rs.table.loc["pairs drawn for rewriting", "this run"] == 60 and rs.table.loc["pairs kept", "this run"] == 60
    assert study.rewriting is study.rewriting  # computed once
    fl = robustness_page.label_flips(study)
    assert fl.table.index.names == ["entry", "feature", "flip"]
    assert np.allclose(fl.data["shares"][[-1, 0, 1]].sum(axis=1), 1.0)
    assert fl.table["share of entries"].groupby(level=["entry", "feature"]).sum().between(0.99, 1.01).all()
    # Table 3 on the same rows where the paper has the feature (sentiment), — elsewhere
    p3 = fl.table["cosine mean (paper, Table 3)"]
    assert p3.loc[("chosen", "sentiment", 1)] == 0.96 and p3.loc[("rejected", "sentiment", -1)] == 0.95
    assert p3.loc[("chosen", "verbosity", 0)] != p3.loc[("chosen", "verbosity", 0)]  # NaN: not in Table 3
    pi = robustness_page.robustness(study)
    assert pi.data["scores"].n_pairs <= 60 and "pairs enter the regression" in pi.note
    assert f"{pi.data['scores'].n_pairs} pairs enter the regression" in pi.note
    # the LPM (SEAL's code) is plotted by default, the logit beside it; the paper's Table 8 beside both
    assert pi.data["scores"].model == "linear" and pi.data["fits"]["logit"].model == "logit"
    assert study.robustness_scores is pi.data["scores"]  # the public name recovery reads
    t8 = pi.table
    assert t8.index.names == ["SEAL feature", "score", "estimator"]
    lpm = "LPM (SEAL's code, Table 8's scale)"
    assert t8.loc[("sentiment", "π^c_+", lpm), "In the paper"] == pytest.approx(0.1169, abs=1e-4)
    lin = pi.data["fits"]["linear"].table
    first = lin.index[0]
    from pluralign.paper.seal import flip_label
    from pluralign.presentation import present_html

    long = pi.data["long"].set_index(["paper_feature", "group", "variant"])
    assert long.loc[(first[1], flip_label(first[0], first[2]), lpm), "estimate"] == pytest.approx(
        lin.loc[first, "estimate"]
    )
    # Table 8 prints raw p-values: a score the paper does not find (π^c_-(sentiment), p = 0.72) reads so
    assert long.loc[("last_response_sentiment", "π^c_-", lpm), "verdict"] in ("n.s. in paper", "not estimated")
    assert long.loc[("last_response_sentiment", "π^c_-", lpm), "paper_p"] == pytest.approx(0.7227, abs=1e-4)
    assert "nan" not in present_html(t8).lower()


def test_sections_without_features_or_rewriting_say_so(study):
    from pluralign.seal.study import Study

    bare = Study(D=study.D, other=None, other_parts=[], view=study.view, rms=study.rms, R=study.R)
    from pluralign.seal.pages import imprint_page

    with pytest.raises(ValueError, match="features"):
        imprint_page.imprints(bare)
    assert (
        "rewriting needs" in robustness_page.rewrite_summary(bare).skipped
        and robustness_page.robustness(bare).table is None
    )
    assert bare.robustness_scores is None
    assert "no planted weights" in imprint_page.planted_recovery(bare).skipped
