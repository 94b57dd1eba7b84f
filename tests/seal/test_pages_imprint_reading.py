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
