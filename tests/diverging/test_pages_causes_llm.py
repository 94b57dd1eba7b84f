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
