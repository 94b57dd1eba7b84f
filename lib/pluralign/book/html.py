"""HTML without the Jupyter Book build: the book's offline MathJax, and a stand-alone page of one executed notebook.

:func:`install_mathjax` copies MathJax into the book's static files; :func:`export_html` turns an executed
notebook (``pluralign run``) into one HTML page, its MyST rendered as plain Markdown by :func:`myst_to_markdown`.
"""

from __future__ import annotations

import os
from pathlib import Path

from pluralign.book.errors import BookError

MATHJAX_PARTS = ("tex-svg.js", "input", "output", "ui", "a11y", "adaptors", "sre")


def install_mathjax(dest: Path) -> Path:
    """Copy MathJax 3 (the ``django-static-mathjax`` package's files: the TeX input, SVG output and the parts it
    loads on demand) into ``dest`` (the book's ``book/_static/mathjax``, which it serves: ``mathjax_path`` in
    _config.yml), so formulas are typeset offline and the site loads no external script."""
    import importlib.util
    import shutil

    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise BookError(
            "MathJax files not found: install the book extra (pip install 'pluralign[book]', which "
            "brings django-static-mathjax)"
        )
    src = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    stamp = dest / ".source"
    if stamp.exists() and stamp.read_text() == str(src):
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for part in MATHJAX_PARTS:
        (shutil.copytree if (src / part).is_dir() else shutil.copy2)(src / part, dest / part)
    stamp.write_text(str(src))
    return dest


def export_html(executed: Path) -> Path:
    """An HTML page of an executed notebook beside it (cells tagged remove-cell / remove-input hidden as in
    the book)."""
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    nb = nbformat.read(executed, as_version=4)
    glued = {}
    for cell in nb.cells:  # glued values are quoted by the prose in the book; alone they have no HTML form
        if cell.cell_type == "code":
            for o in cell.get("outputs", []):
                sb = o.get("metadata", {}).get("scrapbook")
                if sb:
                    glued[sb["name"]] = o.get("data", {}).get(sb.get("mime_prefix", "") + "text/plain", "")
            cell.outputs = [o for o in cell.get("outputs", []) if "scrapbook" not in o.get("metadata", {})]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = myst_to_markdown(cell.source, glued)
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if "text/markdown" in o.get("data", {}):
                o["data"]["text/markdown"] = myst_to_markdown(o["data"]["text/markdown"], glued)
    exporter = HTMLExporter()
    tags = TagRemovePreprocessor(
        remove_cell_tags={"remove-cell"}, remove_input_tags={"remove-input", "hide-input"}, enabled=True
    )
    exporter.register_preprocessor(tags, enabled=True)
    body, _ = exporter.from_notebook_node(nb)
    page = executed.with_suffix(".html")
    tmp = page.with_suffix(".html.tmp")
    tmp.write_text(body)
    os.replace(tmp, page)
    return page


def myst_to_markdown(text: str, glued: dict) -> str:
    """The MyST of a page as plain Markdown for a stand-alone HTML page: ``{glue:text}`name:fmt``` replaced by
    the glued value, ``{cite}`` / ``{ref}`` roles by their target's name, admonition fences by a quote, label
    lines dropped."""
    import ast
    import re

    def value(m):
        name, _, fmt = m.group(1).partition(":")
        raw = glued.get(name)
        if raw is None:
            return f"`{name}`"
        try:
            v = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            v = raw
        try:
            return format(v, fmt) if fmt else str(v)
        except (TypeError, ValueError):
            return str(v)

    text = re.sub(r"\{glue:text\}`([^`]+)`", value, text)
    text = re.sub(r"\{glue\}`([^`]+)`", value, text)
    text = re.sub(
        r"\{(?:cite|cite:p|cite:t|ref|numref|doc)\}`([^`<]*?)(?:\s*<([^`>]+)>)?`",
        lambda m: m.group(1).strip() or (m.group(2) or ""),
        text,
    )
    text = re.sub(r"^\(([\w-]+)\)=\s*$", "", text, flags=re.M)

    def quote(m):  # an admonition's title: its argument (``{admonition} Title``), else its kind; options dropped
        body = re.sub(r"^(:[\w-]+:[^\n]*\n)+", "", m.group(3) + "\n").rstrip("\n")
        head = f"**{(m.group(2).strip() or m.group(1).title()).rstrip('.')}.** "
        listed = body.startswith(("- ", "* "))  # a list starts its own block
        out = (head.rstrip() + "\n\n" if listed else head) + body
        return "\n".join(f"> {ln}" if ln else ">" for ln in out.split("\n"))

    return re.sub(r"^:::\{(\w+)\}([^\n]*)\n(.*?)\n?:::\s*$", quote, text, flags=re.M | re.S)
