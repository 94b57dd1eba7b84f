"""Progress shows as plain lines in a log, as nothing inside a page."""

import io

from pluralign import progress


def test_log_lines_have_no_carriage_returns_or_escape_codes():
    out = io.StringIO()
    with progress._Lines(10, "scoring", "text", stream=out, every=0.0) as b:
        for _ in range(10):
            b.update(1)
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.strip().splitlines()
    assert lines[-1].startswith("scoring: 10/10 texts (100%)") and len(lines) == 10


def test_disabled_or_empty_work_shows_nothing(capsys):
    with progress.bar(0, "x") as b:
        b.update(0)
    with progress.bar(5, "x", enabled=False) as b:
        b.update(5)
    assert capsys.readouterr().err == ""
