"""When the LM-labeller's answers fail (unparseable JSON, a random-weight or a real model), each section of the
SEAL pages (imprint, resistance, robustness) either estimates from the labelled pairs and counts the failed ones, or
— nothing left to estimate from — raises ``report.NoEstimate``, shown as "no estimate: N of M … failed", that
still glues every name the page's prose quotes."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd

from pluralign.llm.options import LLMOptions
from pluralign.presentation import MISSING
from pluralign.seal.design import AlignmentModels, entry_features
from pluralign.seal.flips import flip_shares, similarity_by_flip
from pluralign.seal.label_failures import require_labels
from pluralign.seal.lm_rewrites import Rewrites
from pluralign.seal.pages import imprint_page, resistance_page, robustness_page
from pluralign.seal.rewriting import RewriteRun, no_flips
from pluralign.seal.settings import SealSettings
from pluralign.seal.study import Study

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
        settings=SealSettings(features="llm", labeller={"name": "fake-labeller"}),
    )


def _llm_topics(st: Study) -> Study:
    """The study with the page's topics read from the LM-labeller's labels (topic_source: llm)."""
    return dataclasses.replace(st, settings=st.settings.replace(topic_source="llm"))


IMPRINT_NAMES = {
    "paper_harmless_pre",
    "paper_harmless_post",
    "n_imprint_obs",
    "n_imprint_missing",
    "paper_n_t5",
    "paper_vif_dropped",
    "vif_rule",
    "n_t5_compared",
    "t5_verdicts",
    "harmless_sentence",
}


def test_seal_sections_without_any_label_say_no_estimate_with_the_counts_and_glue_the_prose_names():
    st = _study(lambda p: True)
    check = imprint_page.featurizer_check(st)
    assert check.table["entries without a valid label"].iloc[0] == 2 * N
    assert check.table["pairs labelled on both entries"].iloc[0] == 0
    assert f"{2 * N} of {2 * N} LM labels failed" in check.note and "JSON" in check.note
    want = f"no estimate: {2 * N} of {2 * N} LM labels failed"
    im = imprint_page.imprints(st)
    assert im.skipped.startswith(want) and set(im.values) == IMPRINT_NAMES
    assert im.values["n_imprint_obs"] == 0 and im.values["n_imprint_missing"] == N
    assert im.values["paper_n_t5"] == 15  # the paper's numbers are still quoted
    assert imprint_page.vif_dropped(st).skipped.startswith(want)
    sr = imprint_page.shift_regression(st)
    assert sr.skipped.startswith(want) and sr.values["t6_r2"] == MISSING
    assert sr.values["t6_verdicts"].startswith("No coefficient of Table 6")  # a sentence, never "—" in the box
    assert im.values["t5_verdicts"].startswith("No coefficient of Table 5")
    mis = resistance_page.misalignment(st)
    assert mis.skipped.startswith(want) and set(mis.values) == {"t7_base", "n_t7_separated", "t7_verdicts"}
    assert mis.values["n_t7_separated"] == MISSING and 0 <= mis.values["t7_base"] <= 1
    top = resistance_page.topic_distribution(_llm_topics(st))
    assert top.skipped.startswith(want)
    assert top.values == {"top_topic": MISSING, "top_topic_share": MISSING, "no_topic_share": MISSING}
    rules = resistance_page.labeller_rules(st)
    assert f"{2 * N} of {2 * N} LM labels failed" in rules.note and f"{N} of {N} pairs lack" in rules.note
    with warnings.catch_warnings():  # no 0/0 warning on the page's stderr
        warnings.simplefilter("error", RuntimeWarning)
        agree = resistance_page.labeller_agreement(st)  # its prose quotes the share as text: no "nan" on the page
    assert agree.values["share_i_text"].startswith(
        f"an undefined share (no pair has a γ: {2 * N} of {2 * N} LM labels failed"
    )


def test_seal_sections_with_some_labels_failed_estimate_and_count_them():
    # the chosen entry of pairs 3 and 7 and the rejected entry of pair 7 fail: two pairs lose a label
    st = _study(lambda p: p.endswith(("chosen 3", "chosen 7", "rejected 7")))
    check = imprint_page.featurizer_check(st)
    assert check.table["entries without a valid label"].iloc[0] == 3
    assert check.table["pairs labelled on both entries"].iloc[0] == N - 2
    assert f"3 of {2 * N} LM labels failed" in check.note
    im = imprint_page.imprints(st)
    assert not im.skipped and im.table is not None
    assert im.values["n_imprint_missing"] == 2 and im.values["n_imprint_obs"] == 2 * (N - 2)
    assert not imprint_page.vif_dropped(st).skipped
    sr = imprint_page.shift_regression(st)
    assert not sr.skipped and np.isfinite(sr.values["t6_r2"])
    agree = resistance_page.labeller_agreement(st)
    assert agree.values["share_i_text"] == f"{agree.values['share_i']:.3f}"
    top = resistance_page.topic_distribution(_llm_topics(st))
    assert not top.skipped and (top.table["pairs left out (n)"] == 2).all()
    assert top.values["top_topic"] in ("health", "politics")


def test_seal_planted_or_rule_features_have_no_label_failures():
    st = _study(lambda p: True)
    st = dataclasses.replace(st, F=entry_features(None, st.view, "rules"))
    assert st.label_failures is None and require_labels(st) is None
    assert "entries without a valid label" not in imprint_page.featurizer_check(st).table


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
    # an LM rewriter whose run is given below (model_copy: the settings without the labeller its check asks for)
    st.settings = st.settings.model_copy(update={"rewriter": LLMOptions(name="stand-in"), "n_rewrite": len(rw.idx)})
    st.rewriting = rw
    return st


def test_robustness_without_any_label_flip_says_no_estimate_and_glues_its_names():
    st = _rw_study(_rewrite_run(flips_missing=24))
    lf = robustness_page.label_flips(st)
    assert lf.skipped == (
        "no estimate: the labeller gave no valid label (no answer that parses as JSON and fits the "
        "schema) for the original or the rewrite of 24 of 24 rewritten entries, so no entry has a "
        "label flip."
    )
    rob = robustness_page.robustness(st)
    assert rob.skipped == lf.skipped and rob.values["n_pi_separated"] == MISSING
    assert rob.values["robustness_model"].startswith("LPM")
    assert "24 of 24 rewritten entries" in robustness_page.rewrite_summary(st).note
    # no pair kept at all: nothing was labelled, and the reason is the rewrites' checks
    none = robustness_page.label_flips(_rw_study(_rewrite_run(0, kept=False)))
    assert none.skipped.startswith("no estimate: no pair was kept of the 12 drawn for rewriting (12 dropped")
    st0 = _rw_study(_rewrite_run(0, kept=False))
    st0.rewriting.rewrites.prompts = None  # whole dialogues: no re-scoring check on no pair
    assert "nan" not in robustness_page.rewrite_summary(st0).note


def test_robustness_with_some_labels_failed_counts_them_and_keeps_the_rest():
    rw = _rewrite_run(flips_missing=3)
    st = _rw_study(rw)
    assert no_flips(rw) == ""
    assert "3 of 24 rewritten entries" in robustness_page.rewrite_summary(st).note
    f = rw.rewrites.flips["chosen"]  # rows 0 and 1 missing
    shares = flip_shares(f)
    assert (shares["n"] == 10).all()
    sim = similarity_by_flip(np.linspace(0, 1, 12), f)
    assert sim.groupby(level="feature")["n"].sum().eq(10).all()


def test_similarity_by_flip_without_flips_is_an_empty_table():
    f = pd.DataFrame({"a": [np.nan, np.nan]})
    out = similarity_by_flip([0.5, 0.7], f)
    assert len(out) == 0 and list(out.columns) == ["mean", "sd", "n"] and out.index.names == ["feature", "flip"]


def test_label_stability_counts_each_labellers_failed_entries_of_all():
    st = _study(lambda p: p.endswith("chosen 3"))
    good, bad = Labeller(lambda p: False), Labeller(lambda p: True)
    good.name, bad.name = "good", "bad"
    # loaded labellers in place of load arguments (model_copy: a setting holds arguments, the study may hold these)
    st.settings = st.settings.model_copy(update={"stability_labellers": [good, bad], "stability_share": 0.1})
    res = imprint_page.label_stability(st)
    k = res.data["k"]
    assert f"good: 0 of {2 * k}; bad: {2 * k} of {2 * k}." in res.note and "JSON" in res.note


def _outputs(result, monkeypatch) -> list:
    """What displaying ``result`` in a page's cell leaves in the notebook: its outputs, as nbformat writes them."""
    import IPython.display
    import nbformat

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, metadata=None: shown.append((obj, metadata or {})))
    result._ipython_display_()
    mime = {"Markdown": "text/markdown", "HTML": "text/html"}
    return [nbformat.v4.new_output("display_data", data={mime[type(o).__name__]: o.data}, metadata=m) for o, m in shown]


def test_a_page_whose_labeller_answers_nothing_parseable_keeps_the_section_and_its_reason_box(monkeypatch, tmp_path):
    """The imprint page's sections on a labeller that answers no JSON at all: the feature-imprint section, which ran
    and has no estimate, stays on the executed page with its heading and its counted reason in a warning box; the
    label-stability section, which does not apply (no labellers to compare), is left out and named at the top."""
    import nbformat

    from pluralign.book import page_notes
    from pluralign.book.html import export_html

    st = _study(lambda p: True)
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook(
        cells=[
            md("# Feature imprint"),
            md("## The feature imprint\n\nOn {glue:text}`n_imprint_obs` observations."),
            code("imprint_page.imprints(study)", outputs=_outputs(imprint_page.imprints(st), monkeypatch)),
            md("## Label stability across LM-labellers"),
            code(
                "imprint_page.label_stability(study)", outputs=_outputs(imprint_page.label_stability(st), monkeypatch)
            ),
        ]
    )
    assert page_notes.hide_skipped_sections(nb) == ["Label stability across LM-labellers"]
    (line,) = page_notes.insert_left_out_note(nb, "paper")
    assert line.startswith("- *Label stability across LM-labellers* — label stability needs instruction-tuned")
    assert page_notes.failed_sections(nb) == ["The feature imprint"]
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, path)
    html = export_html(path).read_text()
    assert "The feature imprint" in html and "Label stability across LM-labellers</h2>" not in html
    assert f"<strong>Warning.</strong> <strong>No estimate.</strong> {2 * N} of {2 * N} LM labels failed" in html
    assert "Not run on the paper profile" in html and "label stability needs instruction-tuned" in html
