"""The sections of the LLM cause-classifier page (:mod:`pluralign.diverging.pages.causes_llm_page`)."""

from __future__ import annotations

import pytest

from pluralign import diverging
from pluralign.diverging.pages import causes_llm_page

SPECS = [
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "helpsteer2"}},
]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return diverging.setup(
        datasets=SPECS, annotation={"dir": str(tmp_path_factory.mktemp("sheets")), "reference": "planted", "n": 20}
    )


def test_the_prompt_and_no_classifier_without_one(study):
    assert "```text" in causes_llm_page.prompt(study).note
    assert "not run on this profile" in causes_llm_page.llm_causes(study).skipped


def test_the_classifiers_agreement_with_people_in_words():
    """What the page's findings quote: the classifier's mean κ with each human annotator and α with it as one more
    annotator; the skipped section names no setting."""
    import pandas as pd

    from pluralign.diverging import causes as cz

    a, b = cz.CAUSE_IDS[0], cz.CAUSE_IDS[1]
    rows = [
        {"pair_id": f"p{i}", "annotator": who, "causes": [a if (i + k) % 3 else b]}
        for i in range(12)
        for k, who in enumerate(("ann1", "ann2"))
    ]
    humans = pd.DataFrame(rows)
    llm = pd.DataFrame([{"pair_id": f"p{i}", "annotator": "llm", "causes": [a if i % 3 else b]} for i in range(12)])
    table, said = causes_llm_page._agreement_with_people(humans, llm)
    everyone = cz.label_agreement(pd.concat([humans, llm], ignore_index=True))
    with_llm = [k for pair, k in everyone["pairwise_kappa"].items() if "llm" in pair]
    assert said == (
        f"mean κ with the human annotators {sum(with_llm) / 2:.2f}, α (MASI) with the classifier as one more "
        f"annotator {everyone['alpha']:.2f}"
    )
    assert "annotator" in table and causes_llm_page._agreement_with_people(None, llm) is None


def test_without_a_classifier_the_section_names_no_setting(study):
    r = causes_llm_page.llm_causes(study)
    assert "cause_classifier" not in r.skipped and r.values["llm_causes_says"].startswith("the classifier is not run")
