"""Part I's study core (:mod:`pluralign.diverging.study`): ``setup`` has the one signature of every part, loads
each data set apart, resolves named models, and keeps the public names recovery reads."""

from __future__ import annotations

import functools
import inspect
import subprocess
import sys

import pytest

from pluralign import diverging, paper, report
from pluralign.diverging import agreement
from pluralign.diverging.pages import stand_ins
from pluralign.llm.options import LLMOptions
from pluralign.params import ParamsError

SPECS = [
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "helpsteer2"}},
]


def test_import_does_not_import_torch():
    code = "import sys, pluralign.diverging, pluralign; pluralign.agreement_classes; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_top_level_agreement_classes_is_the_parts():
    import pluralign

    assert pluralign.agreement_classes is diverging.agreement_classes is agreement.agreement_classes


def test_setup_loads_each_data_set_apart_and_checks_the_paper_reference():
    s = diverging.setup(datasets=SPECS[:1])
    assert s.names == ["simulated-multipref"] and (s.settings.split.test, s.settings.split.validation) == (300, 100)
    assert s.settings.annotation.n == 50 and (s.settings.cause_classifier.llm, s.settings.cause_classifier.pairs) == (
        None,
        50,
    )
    with pytest.raises(ValueError, match="not loaded"):
        diverging.setup(datasets=SPECS[:1], paper_reference={"pandalm": "multipref"})
    with pytest.raises(ParamsError, match="not a key of models"):
        diverging.setup(datasets=SPECS[:1], reward_model="nope", models={"tiny": {"head": "linear"}})
    named = diverging.setup(datasets=SPECS[:1], reward_model="tiny", models={"tiny": {"head": "mlp"}})
    assert named.settings.reward_model.kwargs() == {"head": "mlp"} and named.head == "small MLP"
    assert named.models == {"tiny": {"head": "mlp"}}


def test_setup_has_the_one_signature_of_every_part():
    params = inspect.signature(diverging.setup).parameters
    assert list(params) == ["profile", "seed", "models", "settings", "page", "overrides"]
    assert params["profile"].default == "demo" and params["seed"].default == 0
    assert params["models"].kind is inspect.Parameter.KEYWORD_ONLY
    s = diverging.setup("paper", 3, settings={"datasets": SPECS[:1], "n_boot": 10}, n_boot=20)
    assert (s.profile, s.seed, s.settings.n_boot) == ("paper", 3, 20)  # overrides lie over settings
    with pytest.raises(TypeError, match=r"unknown setting\(s\) \['nope'\]"):
        diverging.setup(datasets=SPECS[:1], nope=1)
    # the judges' and the classifier's models may name an entry of `models` too
    m = {"gpt": {"name": "openai:gpt-4o"}}
    s = diverging.setup(
        datasets=SPECS[:1], models=m, cause_classifier={"llm": "gpt"}, judge_llm={"load": "gpt", "label": "GPT"}
    )
    assert s.settings.cause_classifier.llm == LLMOptions.create(m["gpt"]) and s.settings.cause_classifier.pairs == 50
    assert s.settings.judge_llm.load == LLMOptions.create(m["gpt"]) and s.settings.judge_llm.label == "GPT"


def test_every_page_parameter_file_is_a_setup_call():
    """A page's resolved parameters (profile, seed, models and settings fields) build its settings on every
    profile (recovery calls ``setup(**page_params(...))``)."""
    from pluralign.diverging.settings import DivergingSettings
    from pluralign.recovery import page_params

    pages = {"demo": ["agreement", "causes", "rewards", "know"], "paper": ["causes_llm"]}
    for profile in ("demo", "sample", "paper"):
        for page in pages["demo"] + (pages["paper"] if profile == "paper" else []):
            params = page_params(f"diverging_{page}", profile)
            settings = {k: v for k, v in params.items() if k not in ("profile", "seed", "models")}
            DivergingSettings.create(**settings)  # raises on a name that is not a setting


def test_profile_note_names_the_pages_stand_ins():
    s = diverging.setup(datasets=SPECS[:1])
    text = report.profile_note(s.profile, stand_ins(s, "rewards")).data
    assert "**demo** profile" in text and "linear head over frozen all-MiniLM-L6-v2" in text
    paper = diverging.setup(datasets=SPECS[:1], profile="paper")
    assert "Stand-ins" not in report.profile_note(paper.profile, stand_ins(paper, "know")).data


def test_the_public_names_recovery_reads():
    s = diverging.setup(datasets=SPECS[:1], seed=2)
    assert s.seed == 2 and s.data[0].name == "simulated-multipref"
    cl = s.classified["simulated-multipref"]
    assert cl.equals(agreement.agreement_classes(s.data[0]))
    assert list(s.diverging_ids["simulated-multipref"]) == list(cl.index[cl["agreement"] == "diverging"])
    for name in ("classified", "diverging_ids", "runs", "mv_runs"):  # computed once per study
        assert isinstance(inspect.getattr_static(diverging.Study, name), functools.cached_property), name
    from pluralign.diverging.study import MeanVarianceRun

    assert [f for f in MeanVarianceRun.__dataclass_fields__] == ["run", "mv", "summary"]


def test_each_part_one_page_names_the_version_of_the_paper_it_follows():
    """The "do models know" page (mean-variance RM, LLM judges) follows the full arXiv version 2410.14632; the
    other Part I pages the workshop version (the seed); both are in references.bib, and every cited key is."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    bib = set(re.findall(r"@\w+\{([^,]+),", (root / "references.bib").read_text()))
    assert {"zhang2024diverging", "zhang2024divergingworkshop"} <= bib
    assert "2410.14632" in (root / "references.bib").read_text().split("zhang2024diverging,")[1].split("@")[0]
    follows = {
        "diverging_agreement": "zhang2024divergingworkshop",
        "diverging_causes": "zhang2024divergingworkshop",
        "diverging_rewards": "zhang2024divergingworkshop",
        "diverging_know": "zhang2024diverging",
        "diverging_causes_llm": "zhang2024diverging",
    }
    for page, key in follows.items():
        text = (root / "notebooks" / f"{page}.py").read_text()
        said = text.split("*Version followed:*")[1].split("{cite}`")[1].split("`")[0]
        assert said == key, (page, said)
    cited = {
        k.strip()
        for f in (root / "notebooks").glob("*.py")
        for keys in re.findall(r"\{cite(?::[pt])?\}`([^`]+)`", f.read_text())
        for k in keys.split(",")
    }
    assert cited <= bib, cited - bib
    assert all("workshop version" in n for n in paper.numbers("diverging")["note"])
