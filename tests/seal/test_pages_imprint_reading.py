"""The feature-imprint page says each thing once: the notes of Table 4, Table 5 and Table 6 share no sentence (the
mapping is said under Table 4, the verdicts' meanings under Table 5, only further ones under Table 6)."""

import re

from pluralign.seal.pages import imprint_page


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.:])\s+|\n+", text) if len(s.strip()) > 30]


def test_the_comparison_notes_share_no_sentence(study):
    notes = [imprint_page.prevalence(study).note, imprint_page.imprints(study).note]
    notes.append(imprint_page.shift_regression(study).note)
    seen = {}
    for k, note in enumerate(notes):
        for s in _sentences(note):
            assert s not in seen, f"said twice (sections {seen.get(s)} and {k}): {s}"
            seen[s] = k
    assert "Further verdicts" in notes[2] or "Verdicts:" not in notes[2]


def test_the_glued_values_name_no_code_identifier(study):
    """Every text the imprint page glues into its prose reads in display names (the paper's VIF-dropped features
    were glued as assistant_is_anthropomorphic and assistant_is_coherent)."""
    import re

    for section in (imprint_page.imprints, imprint_page.planted_recovery, imprint_page.shift_regression):
        for k, v in section(study).values.items():
            if isinstance(v, str):
                assert not re.search(r"\b[a-z]+(?:_[a-z0-9]+)+\b", v), (k, v)
    assert imprint_page.imprints(study).values["paper_vif_dropped"] == (
        "anthropomorphic assistant (whole dialogue) and coherent assistant (whole dialogue)"
    )
