"""What the runner writes into an executed page besides its cells' own outputs.

A banner on every page computed on a rehearsal mirror (:func:`insert_rehearsal_banner`, decided from the mirror's
files by :func:`rehearsal_mirror`), a note when the page's LLM endpoints were redirected
(:func:`insert_redirect_note`), and the sections whose :class:`~pluralign.report.Result` has ``skipped`` set: one
that does not apply to the page's profile is tagged out of the book (:func:`hide_skipped_sections`) and named with
its reason in one line near the top (:func:`insert_left_out_note`); one that ran and has no estimate stays, its
reason in a warning box (:func:`failed_sections` lists them), its prose quoting "—" where a value is missing
(:func:`unformat_missing_glue`).
"""

from __future__ import annotations

import re
from pathlib import Path

# the hidden file in each of a rehearsal mirror's model and data set folders that marks it as a rehearsal copy
from pluralign.book.rehearsal_artefacts import SIDECAR as REHEARSAL_SIDECAR

#: the sentence every page computed on a rehearsal mirror carries at its top
REHEARSAL_BANNER = "{profile} profile — rehearsal on random-weight models; numbers are meaningless"


def rehearsal_mirror(mirror: str | Path | None) -> bool:
    """Whether the Hub mirror in use is a rehearsal mirror (:mod:`pluralign.book.rehearsal`): it holds
    ``REHEARSAL.json`` or a folder ``<owner>/<name>`` with the rehearsal sidecar. Decided from the data, never a
    flag."""
    if not mirror:
        return False
    root = Path(mirror).expanduser()
    if (root / "REHEARSAL.json").is_file():
        return True
    return root.is_dir() and any(f.is_file() for f in root.glob(f"*/*/{REHEARSAL_SIDECAR}"))


def insert_rehearsal_banner(nb, profile: str) -> bool:
    """Put the rehearsal banner (a warning admonition) right after the page's title cell (the first level-1
    heading; the top if there is none), once. Returns whether it was inserted."""
    import nbformat

    if any("pluralign-rehearsal" in c.get("metadata", {}).get("tags", []) for c in nb.cells):
        return False
    at = next((i + 1 for i, c in enumerate(nb.cells) if heading_level(c) == 1), 0)
    text = REHEARSAL_BANNER.format(profile=profile)
    cell = nbformat.v4.new_markdown_cell(
        f":::{{warning}}\n{text[0].upper() + text[1:]}. This page was computed on "
        "a rehearsal mirror (`pluralign mirror rehearsal`): tiny random-weight "
        "models and small simulated or subsampled data sets under the paper's Hub "
        "ids, and a local server answering to the LLM endpoints' names. It checks "
        "that the pipeline runs end to end.\n:::"
    )
    cell.metadata["tags"] = ["pluralign-rehearsal"]
    nb.cells.insert(at, cell)
    return True


def insert_redirect_note(nb, url: str) -> bool:
    """Say at the top of the page (after the title and any rehearsal banner) that every OpenAI-compatible LLM
    endpoint of its parameters went to ``url`` (``PLURALIGN_LLM_BASE_URL``), once. Returns whether it was inserted."""
    import nbformat

    if any("pluralign-redirect" in c.get("metadata", {}).get("tags", []) for c in nb.cells):
        return False
    at = next((i + 1 for i, c in enumerate(nb.cells) if heading_level(c) == 1), 0)
    while at < len(nb.cells) and "pluralign-rehearsal" in nb.cells[at].get("metadata", {}).get("tags", []):
        at += 1
    cell = nbformat.v4.new_markdown_cell(
        f":::{{note}}\nLLM endpoints: every OpenAI-compatible endpoint this page's parameters name (an LM-labeller, a "
        f"judge, a rewriter) was sent to `{url}` by `PLURALIGN_LLM_BASE_URL`, not to the address its parameters "
        "give; the model names were kept.\n:::"
    )
    cell.metadata["tags"] = ["pluralign-redirect"]
    nb.cells.insert(at, cell)
    return True


def heading_level(cell) -> int | None:
    """The level of the Markdown heading a cell starts with (after an optional ``(label)=`` line), else None."""
    if cell.get("cell_type") != "markdown":
        return None
    lines = [ln for ln in str(cell.get("source", "")).splitlines() if ln.strip()]
    if lines and re.match(r"^\(.+\)=\s*$", lines[0]):
        lines = lines[1:]
    m = re.match(r"^(#{1,6})\s", lines[0]) if lines else None
    return len(m.group(1)) if m else None


#: Output metadata keys a :class:`pluralign.report.Result` with ``skipped`` set writes, each
#: holding the reason: a section that does not run on this profile, and one that ran and has no estimate.
SKIPPED_SECTION = "pluralign_skipped_section"
FAILED_SECTION = "pluralign_failed_section"
#: The tag of the note that names the sections left out of a page.
LEFT_OUT_TAG = "pluralign-left-out"


def _marked(nb, key: str) -> list[tuple[int, int, str, str]]:
    """``(first, end, heading, reason)`` of every section (heading level ≥ 2) with a cell whose output carries
    ``key``: cells ``first`` (its heading) to ``end`` (exclusive: the next heading of the same or a higher level)."""
    cells, found = nb.cells, []
    for i, c in enumerate(cells):
        marks = [o.get("metadata", {}).get(key) for o in c.get("outputs", []) if c.get("cell_type") == "code"]
        marks = [m for m in marks if m]
        if not marks:
            continue
        j = i - 1
        while j >= 0 and heading_level(cells[j]) is None:
            j -= 1
        level = heading_level(cells[j]) if j >= 0 else None
        if level is None or level < 2:
            continue
        k = j + 1
        while k < len(cells) and not ((heading_level(cells[k]) or 99) <= level):
            k += 1
        title = next(ln for ln in str(cells[j].source).splitlines() if ln.lstrip().startswith("#"))
        reason = marks[0] if isinstance(marks[0], str) else ""  # True: a page executed before reasons were kept
        found.append((j, k, title.strip("# ").strip(), reason))
    return found


def split_at_headings(nb) -> int:
    """Split every Markdown cell with a heading after its first line into cells that each start at a heading (with
    its ``(label)=`` line), so that a section starts and ends at a cell boundary; a cell holding a fenced block
    (code, a directive) is left whole. Returns the number of cells added."""
    import nbformat

    added, out = 0, []
    for c in nb.cells:
        lines = str(c.get("source", "")).splitlines()
        if c.get("cell_type") != "markdown" or any(re.match(r"^\s*(```|~~~|:::)", ln) for ln in lines):
            out.append(c)
            continue
        starts = [n for n, ln in enumerate(lines) if n and re.match(r"^#{1,6}\s", ln)]
        starts = [n - 1 if re.match(r"^\(.+\)=\s*$", lines[n - 1]) else n for n in starts]
        starts = [n for n in starts if any(ln.strip() for ln in lines[:n])]
        bounds = [0, *starts, len(lines)]
        for a, b in zip(bounds, bounds[1:]):
            part = "\n".join(lines[a:b]).strip("\n")
            cell = c if a == 0 else nbformat.v4.new_markdown_cell(part, metadata=dict(c.get("metadata", {})))
            cell["source"] = part
            out.append(cell)
        added += len(starts)
    nb.cells = out
    return added


def hide_skipped_sections(nb) -> list[str]:
    """Tag ``remove-cell`` every cell of a section that does not run on this profile — one whose cell displayed a
    :class:`~pluralign.report.Result` with ``skipped`` set (not "no estimate: …") — from its heading to the next
    heading of the same or a higher level, so the book shows no empty section with its code on the page; a heading
    inside a Markdown cell starts a cell first (:func:`split_at_headings`). The page title (level 1) is never
    hidden. Returns the hidden headings."""
    if _marked(nb, SKIPPED_SECTION):
        split_at_headings(nb)
    hidden = []
    for j, k, title, _ in _marked(nb, SKIPPED_SECTION):
        for cell in nb.cells[j:k]:
            tags = cell.setdefault("metadata", {}).get("tags", [])
            cell["metadata"]["tags"] = sorted(set(tags) | {"remove-cell"})
        if title not in hidden:
            hidden.append(title)
    return hidden


def insert_left_out_note(nb, profile: str | None = None) -> list[str]:
    """Name the sections that do not run on this profile (:func:`hide_skipped_sections`) near the top of the page,
    after the title and any rehearsal banner or redirect note: one line per section, its heading and its reason.
    Once; nothing when every section runs. Returns the lines."""
    import nbformat

    if any(LEFT_OUT_TAG in c.get("metadata", {}).get("tags", []) for c in nb.cells):
        return []
    lines = list(dict.fromkeys(f"- *{t}* — {r}".rstrip(" —") for _, _, t, r in _marked(nb, SKIPPED_SECTION)))
    if not lines:
        return []
    at = next((i + 1 for i, c in enumerate(nb.cells) if heading_level(c) == 1), 0)
    while at < len(nb.cells) and {"pluralign-rehearsal", "pluralign-redirect"} & set(
        nb.cells[at].get("metadata", {}).get("tags", [])
    ):
        at += 1
    on = f"the {profile} profile" if profile else "this profile"
    cell = nbformat.v4.new_markdown_cell(
        f":::{{admonition}} Not run on {on}\n:class: note\n" + "\n".join(lines) + "\n:::"
    )
    cell.metadata["tags"] = [LEFT_OUT_TAG]
    nb.cells.insert(at, cell)
    return lines


def failed_sections(nb) -> list[str]:
    """The headings of the sections that ran and have no estimate ("no estimate: …"): they stay on the page, each
    with its reason in a warning box where its result would be."""
    return list(dict.fromkeys(t for _, _, t, _ in _marked(nb, FAILED_SECTION)))


def unformat_missing_glue(nb, missing: str = "—") -> list[str]:
    """Drop the format spec of every ``{glue:text}`name:spec``` in the page's prose whose glued value is ``missing``
    (a section with no estimate glues "—" for the names it declares, :func:`pluralign.report.section`): a number's
    format applied to "—" fails and the prose would show nothing there. Returns the names."""
    import ast

    names = set()
    for c in nb.cells:
        for o in c.get("outputs", []) if c.get("cell_type") == "code" else []:
            sb = o.get("metadata", {}).get("scrapbook") or {}
            text = o.get("data", {}).get(sb.get("mime_prefix", "") + "text/plain")
            if sb.get("name") and isinstance(text, str):
                try:
                    if ast.literal_eval(text) == missing:
                        names.add(sb["name"])
                except (ValueError, SyntaxError):
                    continue
    ref = re.compile(r"\{glue:text\}`([^`:]+):[^`]*`")
    for c in nb.cells if names else []:
        if c.get("cell_type") == "markdown":
            c["source"] = ref.sub(lambda m: f"{{glue:text}}`{m[1]}`" if m[1] in names else m[0], str(c["source"]))
    return sorted(names)
