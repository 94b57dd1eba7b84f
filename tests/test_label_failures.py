"""Issue 16: when an LM-labeller's answers fail (unparseable JSON, a random-weight or a real model), each section of
the SEAL pages (imprint, resistance, robustness) and of Beyond the Binary's subjectivity page either estimates from
the labelled pairs and counts the failed ones, or — nothing left to estimate from — returns a skipped
``report.Result`` saying "no estimate: N of M … failed" that still glues every name the page's prose quotes."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from pluralign.report import MISSING
from pluralign.seal.design import AlignmentModels, entry_features
from pluralign.seal.robustness import Rewrites, flip_shares, similarity_by_flip
from pluralign.seal.study import RewriteRun, Study

N = 60  # pairs


def _view(n=N):
    return pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(n)],
            "prompt": [f"Q{i}?" for i in range(n)],
            "chosen": [f"chosen {i}" for i in range(n)],
            "rejected": [f"rejected {i}" for i in range(n)],
            "chosen_side": ["A"] * n,
        }
    )


class Labeller:
    """An LM-labeller (``structured``) that answers the App. C.3 schema with random labels, and with an
    unparseable string for the texts ``fails`` picks."""

    model = "fake-labeller"

    def __init__(self, fails):
        self.fails, self.rng = fails, np.random.default_rng(0)

    def structured(self, prompts, schema, job=None, **kw):
        out = []
        for p in prompts:
            lab = {k: bool(self.rng.integers(2)) for k in schema["properties"]}
            lab["last_response_sentiment"] = str(self.rng.choice(["negative", "neutral", "positive"]))
            lab["topics"] = [str(self.rng.choice(["health", "politics"]))]
            lab["last_response_is_discriminating_against"] = []
            out.append("{'not': json" if self.fails(p) else lab)
        return out


def _study(fails) -> Study:
    v = _view()
    F = entry_features(None, v, "llm", llm=Labeller(fails))
    rng = np.random.default_rng(1)
    R = pd.DataFrame(
        {
            "pair_id": v["pair_id"],
            **{f"{k}_{e}": rng.normal(size=len(v)) for k in ("pre", "post") for e in ("chosen", "rejected")},
        }
    )
    return Study(
        D=None,
        other=None,
        other_parts=[],
        view=v,
        rms=AlignmentModels(pre=None, post=None, design="fake"),
        R=R,
        F=F,
        profile="paper",
    )


IMPRINT_NAMES = {
    "paper_harmless_pre",
    "paper_harmless_post",
    "n_imprint_obs",
    "n_imprint_missing",
    "paper_n_t5",
    "paper_vif_dropped",
    "n_t5_compared",
}


def test_seal_sections_without_any_label_say_no_estimate_with_the_counts_and_glue_the_prose_names():
    st = _study(lambda p: True)
    check = st.featurizer_check()
    assert check.table["entries without a valid label"].iloc[0] == 2 * N
    assert check.table["pairs labelled on both entries"].iloc[0] == 0
    assert f"{2 * N} of {2 * N} LM labels failed" in check.note and "JSON" in check.note
    want = f"no estimate: {2 * N} of {2 * N} LM labels failed"
    im = st.imprints()
    assert im.skipped.startswith(want) and set(im.values) == IMPRINT_NAMES
    assert im.values["n_imprint_obs"] == 0 and im.values["n_imprint_missing"] == N
    assert im.values["paper_n_t5"] == 15  # the paper's numbers are still quoted
    assert st.vif_dropped().skipped.startswith(want)
    sr = st.shift_regression()
    assert sr.skipped.startswith(want) and sr.values == {"t6_r2": MISSING}
    mis = st.misalignment()
    assert mis.skipped.startswith(want) and set(mis.values) == {"t7_base", "n_t7_separated"}
    assert mis.values["n_t7_separated"] == MISSING and 0 <= mis.values["t7_base"] <= 1
    top = st.topic_distribution("llm")
    assert top.skipped.startswith(want)
    assert top.values == {"top_topic": MISSING, "top_topic_share": MISSING, "no_topic_share": MISSING}
    rules = st.labeller_rules()
    assert f"{2 * N} of {2 * N} LM labels failed" in rules.note and f"{N} of {N} pairs lack" in rules.note
    with warnings.catch_warnings():  # no 0/0 warning on the page's stderr
        warnings.simplefilter("error", RuntimeWarning)
        agree = st.labeller_agreement()  # its prose quotes the share as text: no "nan" on the page
    assert agree.values["share_i_text"].startswith(f"— (no pair has a γ: {2 * N} of {2 * N} LM labels failed")


def test_seal_sections_with_some_labels_failed_estimate_and_count_them():
    # the chosen entry of pairs 3 and 7 and the rejected entry of pair 7 fail: two pairs lose a label
    st = _study(lambda p: p.endswith(("chosen 3", "chosen 7", "rejected 7")))
    check = st.featurizer_check()
    assert check.table["entries without a valid label"].iloc[0] == 3
    assert check.table["pairs labelled on both entries"].iloc[0] == N - 2
    assert f"3 of {2 * N} LM labels failed" in check.note
    im = st.imprints()
    assert not im.skipped and im.table is not None
    assert im.values["n_imprint_missing"] == 2 and im.values["n_imprint_obs"] == 2 * (N - 2)
    assert not st.vif_dropped().skipped
    sr = st.shift_regression()
    assert not sr.skipped and np.isfinite(sr.values["t6_r2"])
    agree = st.labeller_agreement()
    assert agree.values["share_i_text"] == f"{agree.values['share_i']:.3f}"
    top = st.topic_distribution("llm")
    assert not top.skipped and (top.table["pairs left out (n)"] == 2).all()
    assert top.values["top_topic"] in ("health", "politics")


def test_seal_planted_or_rule_features_have_no_label_failures():
    st = _study(lambda p: True)
    st.F = entry_features(None, st.view, "rules")
    assert st._label_failures() is None and st._no_label_estimate() is None
    assert "entries without a valid label" not in st.featurizer_check().table


# ---- robustness: label flips of the rewritten entries ----------------------------------------------------
def _rewrite_run(flips_missing: int, k: int = 12, kept: bool = True) -> RewriteRun:
    rng = np.random.default_rng(2)
    feats = ["last_response_is_helpful", "last_response_is_harmless", "last_response_is_coherent"]
    flips = {}
    for e in ("chosen", "rejected"):
        f = pd.DataFrame(rng.integers(-1, 2, size=(k, len(feats))).astype(float), columns=feats)
        flips[e] = f
    for i in range(flips_missing):  # a failed label: the whole row of flips missing
        flips["chosen" if i % 2 == 0 else "rejected"].iloc[i // 2] = np.nan
    n_kept = k if kept else 0
    if not kept:
        flips = {e: f.iloc[:0] for e, f in flips.items()}
    rp = Rewrites(
        view=_view(n_kept),
        kept=np.arange(n_kept),
        originals={"chosen": [], "rejected": []},
        rewritten={"chosen": [], "rejected": []},
        flips=flips,
        status=pd.DataFrame({"chosen": ["ok"] * k, "rejected": ["ok" if kept else "identical"] * k}),
        n_pairs=k,
        n_kept=n_kept,
        n_dropped=k - n_kept,
        dropped=pd.Series({"ok / identical": k - n_kept}) if not kept else pd.Series(dtype=int),
        prompts=[""] * n_kept,
    )
    return RewriteRun(idx=np.arange(k), rewrites=rp, before=np.ones(n_kept, bool), after=np.zeros(n_kept, bool))


def _rw_study(rw: RewriteRun) -> Study:
    st = _study(lambda p: False)
    st.settings = {"rewriter": {"backend": "none"}}
    st._memo["rewriting"] = rw
    return st


def test_robustness_without_any_label_flip_says_no_estimate_and_glues_its_names():
    st = _rw_study(_rewrite_run(flips_missing=24))
    lf = st.label_flips()
    assert lf.skipped == (
        "no estimate: the labeller gave no valid label (no answer that parses as JSON and fits the "
        "schema) for the original or the rewrite of 24 of 24 rewritten entries, so no entry has a "
        "label flip."
    )
    rob = st.robustness()
    assert rob.skipped == lf.skipped and rob.values["n_pi_separated"] == MISSING
    assert rob.values["robustness_model"].startswith("LPM")
    assert "24 of 24 rewritten entries" in st.rewrite_summary().note
    # no pair kept at all: nothing was labelled, and the reason is the rewrites' checks
    none = _rw_study(_rewrite_run(0, kept=False)).label_flips()
    assert none.skipped.startswith("no estimate: no pair was kept of the 12 drawn for rewriting (12 dropped")
    st0 = _rw_study(_rewrite_run(0, kept=False))
    st0._memo["rewriting"].rewrites.prompts = None  # whole dialogues: no re-scoring check on no pair
    assert "nan" not in st0.rewrite_summary().note


def test_robustness_with_some_labels_failed_counts_them_and_keeps_the_rest():
    rw = _rewrite_run(flips_missing=3)
    st = _rw_study(rw)
    assert st._no_flips(rw) is None
    assert "3 of 24 rewritten entries" in st.rewrite_summary().note
    f = rw.rewrites.flips["chosen"]  # rows 0 and 1 missing
    shares = flip_shares(f)
    assert (shares["n"] == 10).all()
    sim = similarity_by_flip(np.linspace(0, 1, 12), f)
    assert sim.groupby(level="feature")["n"].sum().eq(10).all()


def test_similarity_by_flip_without_flips_is_an_empty_table():
    f = pd.DataFrame({"a": [np.nan, np.nan]})
    out = similarity_by_flip([0.5, 0.7], f)
    assert len(out) == 0 and list(out.columns) == ["mean", "sd", "n"] and out.index.names == ["feature", "flip"]


# ---- Beyond the Binary: p* from the LLM labeller's answers -------------------------------------------------
class TenPeople:
    """An LLM labeller (Appendix B task 3) whose answer is a function of the prompt; None = unparseable."""

    def __init__(self, answer, name):
        self.answer, self.name = answer, name

    def generate(self, prompts, max_tokens=None, temperature=None, top_p=None, n=1, job=None):
        return [[self.answer(p) or "{garbage"] * n for p in prompts]


def test_p_star_from_llm_counts_unparseable_answers():
    from pluralign.btb import subjectivity as S
    from pluralign.data.core import PreferenceData

    pairs = pd.DataFrame(
        {
            "pair_id": ["p0", "p1", "p2"],
            "dataset": "t",
            "split": "test",
            "prompt": ["Capital of France?", "A poem about rain.", "A joke."],
            "response_a": ["Paris.", "Rain falls", "Why did..."],
            "response_b": ["Lyon.", "Drops on glass", "Knock knock"],
        }
    )
    ann = pd.DataFrame({"pair_id": ["p0", "p1", "p2"], "annotator_id": "x", "preference": [-1, 1, -2]})
    d = PreferenceData(pairs, ann, {"name": "t"})
    lab = TenPeople(lambda p: "7 A - 3 B" if "France" in p else None, "ten-some")
    with pytest.warns(UserWarning, match="2 of 3 answers unparseable"):
        p = S.p_star_from("llm", d, labeller=lab)
    assert p.attrs == {"llm_answers": 3, "llm_unparsed": 2}
    assert p["p0"] == pytest.approx(0.7) and int(p.isna().sum()) == 2
    # through a fallback chain (as the paper profile's [labels, annotators, llm]) the counts add up
    with pytest.warns(UserWarning):
        w = S.p_star_with_source(["llm"], d, labeller=TenPeople(lambda p: None, "ten-none"))
    assert w.attrs == {"llm_answers": 3, "llm_unparsed": 3} and w["p_star"].isna().all()
    assert w["p_star"].attrs == w.attrs


def _btb_study(missing: str):
    from pluralign.btb.study import setup

    st = setup("demo", 0)
    p = st.p_star.copy()
    if missing == "all":
        p[:] = np.nan
        p.attrs = {"llm_answers": len(p), "llm_unparsed": len(p)}
    else:
        p.iloc[:5] = np.nan
        p.attrs = {"llm_answers": len(p), "llm_unparsed": 5}
    st.__dict__["p_star"] = p
    return st, len(p)


def test_btb_sections_without_any_p_star_say_no_estimate_and_glue_the_prose_names():
    st, n = _btb_study("all")
    want = f"no estimate: p\\* is missing for {n} of {n} pairs: {n} of {n} answers of the LLM labeller"
    cat = st.categories()  # the counts per category still stand
    assert cat.table["n"].sum() >= n and cat.table["mean_p_star"].isna().all()
    assert f"{n} of {n} pairs" in cat.note and "No estimate of the mean" in cat.note
    assert st.p_star_by_category().skipped.startswith(want)
    gap = st.binary_judgment_gap()
    assert gap.skipped.startswith(want)
    assert set(gap.values) == {"btb_binary_l1", "btb_binary_l1_lo", "btb_binary_l1_hi", "btb_binary_dropped"}
    assert gap.values["btb_binary_l1"] == MISSING and isinstance(gap.values["btb_binary_dropped"], int)


def test_btb_sections_with_some_p_star_missing_estimate_from_the_rest_and_count_them():
    st, n = _btb_study("some")
    cat = st.categories()
    dims = cat.table.groupby("dimension")["n_without_p_star"].sum()
    assert (dims == 5).all() and cat.table["mean_p_star"].notna().all()
    assert f"p\\* is missing for 5 of {n} pairs: 5 of {n} answers" in cat.note
    by = st.p_star_by_category()
    assert not by.skipped and len(by.data["frame"]) == n - 5 and "not plotted" in by.note
    gap = st.binary_judgment_gap()
    assert not gap.skipped and np.isfinite(gap.values["btb_binary_l1"])
    ev = gap.data["evaluation"]
    assert ev.loc[ev["grouping"] == "all", "n"].max() <= n - 5
    assert "5 of" in gap.note


def _btb_rewards_study(missing: str):
    """Beyond the Binary's rewards page on the simulator (rm_helpers.btb_reward_study), with the LLM labeller's p*
    missing for every test pair or for 5."""
    from rm_helpers import btb_reward_study

    s = btb_reward_study()
    real = s.p_star_of

    def p_star_of(data, ids=None):
        p = real(data, ids).copy()
        n = len(p) if missing == "all" else 5
        p.iloc[:n] = np.nan
        p.attrs = {"llm_answers": len(p), "llm_unparsed": n}
        return p

    s.p_star_of = p_star_of
    return s


def test_btb_rewards_without_any_test_p_star_say_no_estimate_and_glue_the_prose_names():
    s = _btb_rewards_study("all")
    n = len(s.comparison.splits.test)
    want = f"no estimate: p\\* is missing for {n} of {n} pairs: {n} of {n} answers of the LLM labeller"
    assert s.comparison.table is None
    t1 = s.table("pearson")
    assert t1.skipped.startswith(want) and t1.values["btb_r_baseline"] == MISSING
    assert set(t1.values) == {
        f"btb_r_{k}{suf}" for k in ("baseline", "regularized", "delta") for suf in ("", "_lo", "_hi")
    }
    assert s.table("l1").skipped.startswith(want)
    for r in (s.directions(), s.beside_paper(), s.paper_sized_check(), s.rm_vs_p_star(), s.delta_plot("pearson")):
        assert r.skipped.startswith(want) and r.figure is None
    assert not s.learning_rate_sweep().skipped and s.training_margins().figure is not None  # no p* needed


def test_btb_rewards_with_some_test_p_star_missing_estimate_from_the_rest_and_count_them():
    s = _btb_rewards_study("some")
    c = s.comparison
    n = len(c.splits.test)
    row = c.table[(c.table.grouping == "all") & (c.table.metric == "pearson")].iloc[0]
    assert row["n"] == n - 5
    keep = c.p_star.index[c.p_star.notna()]
    assert row["baseline"] == pytest.approx(np.corrcoef(c.p_star[keep], c.p_baseline[keep])[0, 1])
    t1 = s.table("pearson")
    assert not t1.skipped and t1.values["btb_n_test"] == n - 5
    assert f"p\\* is missing for 5 of {n} pairs" in t1.note and "left out" in t1.note
    small = s.paper_sized_check()
    assert small.values["btb_small_n"] == 50
    assert len(s.rm_vs_p_star().data["frame"]) == n - 5


def test_category_summary_counts_pairs_without_p_star():
    from pluralign.btb.subjectivity import category_summary

    kind = pd.Series(["single", "multiple", "single"], index=["a", "b", "c"])
    t = category_summary(kind, None, pd.Series([1.0, np.nan, 0.25], index=["a", "b", "c"])).set_index("category")
    assert t.loc["Single Correct", "mean_p_star"] == pytest.approx(0.625)
    assert t.loc["Single Correct", "n_without_p_star"] == 0 and t.loc["Multiple Correct", "n_without_p_star"] == 1
    assert np.isnan(t.loc["Multiple Correct", "mean_p_star"]) and t.loc["Multiple Correct", "n"] == 1
    # every pair with p*: the table is as before (no count column)
    full = category_summary(kind, None, pd.Series([1.0, 0.5, 0.25], index=["a", "b", "c"]))
    assert "n_without_p_star" not in full.columns


def test_label_stability_counts_each_labellers_failed_entries_of_all():
    st = _study(lambda p: p.endswith("chosen 3"))
    good, bad = Labeller(lambda p: False), Labeller(lambda p: True)
    good.name, bad.name = "good", "bad"
    st.settings = {"stability_labellers": [good, bad], "stability_share": 0.1}
    res = st.label_stability()
    k = res.data["k"]
    assert f"good: 0 of {2 * k}; bad: {2 * k} of {2 * k}." in res.note and "JSON" in res.note


def test_a_no_estimate_section_shows_as_such_and_is_hidden_like_a_skipped_one(monkeypatch):
    import IPython.display

    from pluralign.report import SKIPPED_SECTION, Result

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, metadata=None: shown.append((obj.data, metadata)))
    Result(table=None, skipped="no estimate: 3 of 3 LM labels failed.")._ipython_display_()
    Result(table=None, skipped="no labeller on this profile.")._ipython_display_()
    assert shown == [
        ("*No estimate:* 3 of 3 LM labels failed.", {SKIPPED_SECTION: True}),
        ("*Not run on this profile:* no labeller on this profile.", {SKIPPED_SECTION: True}),
    ]


def test_a_page_states_the_failed_answers_so_its_kernel_does_not_warn(monkeypatch):
    """The library warns that LLM answers failed (counted); in a book page, whose text states the counts, the runner
    sets PLURALIGN_ON_PAGE and the warning stays off the page's stderr. Beyond the Binary's judgments section
    states the unparseable verdicts and the pairs left without a margin."""
    from pluralign import report
    from pluralign.book import runner
    from pluralign.btb.study import setup

    assert runner._environment("paper")[report.ON_PAGE] == "1"
    with pytest.warns(UserWarning, match="3 of 9 failed"):
        report.stated_warning("3 of 9 failed")
    monkeypatch.setenv(report.ON_PAGE, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report.stated_warning("3 of 9 failed")
    st = setup("demo", 0)
    sj = st.judgments.copy()
    sj.loc[sj.index[:4], "n_unparsed"] = sj.loc[sj.index[:4], "n"]
    sj.loc[sj.index[:4], "n_valid"] = 0
    st.__dict__["judgments"] = sj
    note = st.synthetic_judgments().note
    assert (
        f"{int(sj['n'].iloc[:4].sum())} of {int(sj['n'].sum()):,} verdicts" in note
        and f"4 of {len(sj):,} pairs" in note
    )


def test_btb_rewards_without_any_parseable_judgment_says_the_margins_are_missing_and_plots_none():
    """Every training pair without a parseable judgment (the rehearsal's random judge): the training-margins
    section counts them, says Eq. 4 is Eq. 1 on this run, and draws no histogram of fill values."""
    s = _btb_rewards_study("some")
    real = s.judgments_of

    def judgments_of(data, p_star=None):
        j = real(data, p_star).copy()
        j["n_valid"], j["margin"] = 0, np.nan
        return j

    s.judgments_of = judgments_of
    r = s.training_margins()
    n = len(s.comparison.margins)
    assert s.comparison.margins_missing == n and (s.comparison.margins == 0).all()
    assert r.figure is None and f"{n:,} of {n:,} training pairs have no parseable judgment" in r.note
    assert "trained with the baseline's loss" in r.note
