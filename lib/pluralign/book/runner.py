"""The book pipeline under one name: manifest → papermill-executed notebooks → Jupyter Book.

The pipeline lives in one module per job — :mod:`pluralign.book.manifest_plan` (the manifest, the runs of a
profile and their order, the project root), :mod:`pluralign.book.contents` (``_toc.yml`` and the HTML build),
:mod:`pluralign.book.page_params` (a page's parameters), :mod:`pluralign.book.fingerprints` (when a page is
fresh) and :mod:`pluralign.book.execution` (executing pages) — and this module names them all in one place for
the code that reads the book through it. :data:`ROOT` is always :data:`pluralign.book.manifest_plan.ROOT`.
"""

from __future__ import annotations

from pluralign.book.contents import build_html, toc, toc_text  # noqa: F401
from pluralign.book.errors import BookError  # noqa: F401
from pluralign.book.execution import build, execute, resolve_notebook, run_page  # noqa: F401
from pluralign.book.fingerprints import run_fingerprint  # noqa: F401
from pluralign.book.manifest_plan import PROFILES, Run, execution_order, execution_plan, manifest, out_folder, runs  # noqa: F401
from pluralign.book.page_params import read_params  # noqa: F401


def __getattr__(name: str):
    # the project root is read where it is kept, so pointing manifest_plan.ROOT elsewhere points this name too
    if name == "ROOT":
        from pluralign.book import manifest_plan

        return manifest_plan.ROOT
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
