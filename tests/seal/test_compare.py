"""SEAL's tables on the paper's rows (seal.compare, seal.design.PAPER_FEATURES): the simulator → SEAL feature
mapping, this run's estimates sign-aligned beside the paper's, and logit terms without a finite estimate
reported as such (never as a number, never plotted)."""

import math

import numpy as np
import pandas as pd
import pytest

from pluralign.data.simulate import FEATURES as SIM_FEATURES
from pluralign.seal.compare import THIS_RUN, mapping_table, on_paper_rows, separated
from pluralign.seal.design import PAPER_FEATURES, UNMAPPED_FEATURES, paper_feature_map
from pluralign.seal.facts import paper_table
from pluralign.seal.taxonomy import FEATURES as TAXONOMY
from pluralign.seal.verdicts import NOT_CONVERGED


def test_mapping_names_exist_in_seal_taxonomy_and_tables_with_the_right_signs():
    assert PAPER_FEATURES["harmfulness"] == ("last_response_is_harmless", -1)
    assert PAPER_FEATURES["refusal"] == ("last_response_is_refusal", 1)
    assert PAPER_FEATURES["sentiment"] == ("last_response_sentiment", 1)
    assert PAPER_FEATURES["factual_error"] == ("last_response_is_honest", -1)
    for sim, (name, sign) in PAPER_FEATURES.items():
        assert sim in SIM_FEATURES and name in TAXONOMY and sign in (1, -1)
        for t in ("Table 4", "Table 5", "Table 6", "Table 7"):
            assert name in paper_table(t).index, (name, t)
    # every simulator feature is either mapped or says why not; no SEAL feature is played twice
    assert set(SIM_FEATURES) <= set(PAPER_FEATURES) | set(UNMAPPED_FEATURES)
    assert len({n for n, _ in PAPER_FEATURES.values()}) == len(PAPER_FEATURES)
    m = paper_feature_map(list(SIM_FEATURES))
    assert m.loc["harmfulness", "sign"] == -1 and not isinstance(m.loc["verbosity", "paper_feature"], str)
    assert "length" in m.loc["verbosity", "why"]


def test_seal_names_map_to_themselves_on_every_other_profile():
    m = paper_feature_map(["last_response_is_refusal", "last_response_is_eloquent", "response_has_list"])
    assert m.loc["last_response_is_refusal", "paper_feature"] == "last_response_is_refusal"
    assert m.loc["last_response_is_eloquent", "sign"] == 1
    assert not isinstance(m.loc["response_has_list", "paper_feature"], str)
    t = mapping_table(list(SIM_FEATURES))
    assert t.loc["last_response_is_harmless", "simulator feature"] == "harmfulness"
    assert t.loc["last_response_is_harmless", "sign"] == "−1" and (t.index == "—").sum() == 4


def _paper(rows):
    return pd.DataFrame(rows, columns=["feature", "group", "estimate", "se"])


def test_on_paper_rows_sign_aligns_and_gives_verdicts():
    ours = pd.DataFrame(
        {
            "feature": ["harmfulness", "refusal", "verbosity"],
            "group": "post-D",
            "estimate": [-2.0, 0.01, 1.0],
            "std_error": [0.1, 0.5, 0.1],
        }
    )
    paper = _paper(
        [
            ("last_response_is_harmless", "post-D", 2.09, 0.01),
            ("last_response_is_refusal", "post-D", 0.61, 0.01),
            ("last_response_is_eloquent", "post-D", 0.81, 0.01),
        ]
    )
    order = ["last_response_is_refusal", "last_response_is_harmless", "last_response_is_eloquent"]
    table, long = on_paper_rows(
        ours, paper, ["harmfulness", "refusal", "verbosity"], paper_order=order, groups=["post-D"], n=100
    )
    run = THIS_RUN
    assert list(table.index.get_level_values(0)) == order + ["verbosity"]  # paper's rows, then this run's own
    h = table.loc[("last_response_is_harmless", "post-D")]
    assert h[run] == "2.00 [1.80, 2.20]" and h["In the paper"] == 2.09 and h["simulator feature"] == "harmfulness × −1"
    assert h["verdict"] == "same sign"
    assert table.loc[("last_response_is_refusal", "post-D"), "verdict"] == "inconclusive"
    e = table.loc[("last_response_is_eloquent", "post-D")]
    assert e[run] == "—" and e["In the paper"] == 0.81 and e["verdict"] == "no counterpart"
    v = table.loc[("verbosity", "post-D")]
    assert math.isnan(v["In the paper"]) and v["verdict"] == "above 0"
    assert long.set_index("paper_feature").loc["last_response_is_harmless", "ci_low"] == pytest.approx(
        2.0 - 1.96 * 0.1, abs=1e-3
    )


def test_a_term_without_finite_estimate_is_reported_not_shown_as_a_number():
    ours = pd.DataFrame(
        {
            "feature": ["harmfulness", "harmfulness"],
            "group": ["rejected", "rejected"],
            "variant": ["LPM", "logit"],
            "estimate": [-0.4, -24.054],
            "std_error": [0.05, 94411.0],
            "status": [None, NOT_CONVERGED],
        }
    )
    paper = _paper([("last_response_is_harmless", "rejected", 0.114, 0.006)])
    table, long = on_paper_rows(
        ours,
        paper,
        ["harmfulness"],
        paper_order=["last_response_is_harmless"],
        groups=["rejected"],
        variants=["LPM", "logit"],
    )
    run = THIS_RUN
    row = table.loc[("last_response_is_harmless", "rejected", "logit")]
    assert row[run] == NOT_CONVERGED and row["verdict"] == "did not converge"
    assert math.isnan(long.loc[long["variant"] == "logit", "estimate"].iloc[0])  # no number anywhere
    assert table.loc[("last_response_is_harmless", "rejected", "LPM"), run].startswith("0.400 [")


def test_separated_finds_complete_and_quasi_separation_on_hand_cases():
    y = np.array([1, 0, 1, 0, 1, 0, 0, 0])
    ch = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 0, 0, 0, 0, 0, 0, 0]})
    rj = pd.DataFrame({"a": [0, 1, 0, 1, 0, 1, 0, 0], "b": [1, 0, 1, 0, 0, 1, 0, 1]})
    # rejected a = 1 only on y = 0 pairs: quasi-separation; chosen a mixes; b never varies on the chosen side
    assert separated(y, ch, rj, ["a", "b"]) == {("r", "a")}
    assert separated(y, ch.assign(a=y), rj, ["a"]) == {("c", "a"), ("r", "a")}


def test_misalignment_logit_separation_is_not_plotted(tmp_path):
    """Eq. 3 on data where a harmful rejected entry is never misaligned: the logit term is reported as not
    converged, the figure is the LPM's (no axis out to thousands)."""
    from pluralign.seal.pages import resistance_page
    from pluralign.seal.study import Study

    rng = np.random.default_rng(0)
    n = 400
    ch = pd.DataFrame({"harmfulness": np.zeros(n), "refusal": rng.integers(0, 2, n).astype(float)})
    rj = pd.DataFrame(
        {"harmfulness": rng.integers(0, 2, n).astype(float), "refusal": rng.integers(0, 2, n).astype(float)}
    )
    post_c = rng.normal(size=n)
    post_r = np.where(rj["harmfulness"] == 1, post_c - 5, post_c + rng.normal(size=n))
    R = pd.DataFrame(
        {
            "pair_id": np.arange(n),
            "pre_chosen": post_c,
            "pre_rejected": post_r,
            "post_chosen": post_c,
            "post_rejected": post_r,
        }
    )

    class F:
        source, chosen, rejected, regressors = "planted", ch, rj, ["harmfulness", "refusal"]

    st = Study(D=None, other=None, other_parts=[], view=pd.DataFrame({"pair_id": np.arange(n)}), rms=None, R=R, F=F)
    mis = resistance_page.misalignment(st)
    assert ("r", "harmfulness") in mis.data["separated"]
    cell = mis.table.loc[("harmless", "rejected", "logit (Eq. 3 as written)"), THIS_RUN]
    assert cell == NOT_CONVERGED and "did not converge" in mis.note
    assert max(abs(x) for ax in mis.figure.axes for x in ax.get_xlim()) < 5


def test_no_finite_estimate_takes_separated_terms_and_huge_ses_of_an_unconverged_fit():
    import pandas as pd

    from pluralign.seal.compare import no_finite_estimate

    t = pd.DataFrame({"std_error": [0.1, 0.2, 0.15, 94411.0]}, index=["a", "b", "c", "d"])
    assert no_finite_estimate(t, converged=True, separated_terms=["b", "zz"]) == {"b"}
    assert no_finite_estimate(t, converged=False, separated_terms=["b"]) == {"b", "d"}
