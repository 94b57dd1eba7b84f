"""The sampling temperatures SEAL states — the LM-labeller's and the stability labellers' 0 (§ 2.1, App. D.5) and the
rewriter's 0.1 (§ 2.3, footnote 13) — are settings (``labeller_temperature``, ``rewrite_temperature``) that reach
every call of those LMs: the entries' features, the stability check and the rewriting with its re-labelling."""

import dataclasses

import pandas as pd
import pytest

from pluralign.seal.settings import SealSettings


class Recorder:
    """An LM that answers the App. C.3 taxonomy (every feature true, sentiment neutral) and the App. C.5 rewrite
    prompt (the excerpt with a sentence appended), recording the temperature of every call."""

    def __init__(self, name):
        self.model = self.name = name
        self.temperatures = []

    def structured(self, prompts, schema, job=None, temperature=None, **kw):
        self.temperatures.append(temperature)
        out = []
        for _ in prompts:
            lab = {k: True for k in schema["properties"]}
            lab["last_response_sentiment"] = "neutral"
            lab["topics"], lab["last_response_is_discriminating_against"] = [], []
            out.append(lab)
        return out

    def generate(self, prompts, max_tokens=None, temperature=None, top_p=None, n=1):
        self.temperatures.append(temperature)
        return [[p.split("Text excerpt: ", 1)[1].rsplit("\n\nRewriting:", 1)[0] + " Indeed."] for p in prompts]


def _view(n=4):
    return pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(n)],
            "prompt": [f"Human: question {i}" for i in range(n)],
            "chosen": [f"a helpful answer {i}" for i in range(n)],
            "rejected": [f"a short answer {i}" for i in range(n)],
            "chosen_side": ["A"] * n,
        }
    )


def test_the_labellers_temperature_reaches_features_and_the_stability_check():
    from pluralign.seal.design import entry_features, stability_check

    lab = Recorder("labeller")
    F = entry_features(None, _view(), "llm", llm=lab, temperature=0.0)
    assert lab.temperatures == [0.0, 0.0]
    other = Recorder("other")
    stability_check(_view(), F, [other], share=0.5, temperature=0.0)
    assert other.temperatures == [0.0]


def test_the_settings_reach_the_rewriter_and_the_relabelling(study, monkeypatch):
    """``rewrite_run`` sends the rewriter the run's ``rewrite_temperature`` and the labeller its
    ``labeller_temperature`` (other values than the paper's, so a default could not pass for them)."""
    import pluralign.llm
    from pluralign.seal.rewriting import rewrite_run

    lms = {"rewriter": Recorder("rewriter"), "labeller": Recorder("labeller")}
    monkeypatch.setattr(pluralign.llm, "load", lambda name, **kw: lms[name])
    settings = study.settings.replace(
        rewriter={"name": "rewriter"},
        labeller={"name": "labeller"},
        n_rewrite=5,
        rewrite_temperature=0.3,
        labeller_temperature=0.2,
    )
    run = rewrite_run(dataclasses.replace(study, settings=settings))
    assert run.rewrites.n_kept == 5
    assert set(lms["rewriter"].temperatures) == {0.3} and set(lms["labeller"].temperatures) == {0.2}


def test_the_paper_temperatures_are_the_defaults_and_negative_ones_are_refused():
    s = SealSettings()
    assert (s.labeller_temperature, s.rewrite_temperature) == (0.0, 0.1)
    with pytest.raises(ValueError, match="rewrite_temperature: Input should be greater than or equal to 0"):
        SealSettings.create(rewrite_temperature=-0.1)
