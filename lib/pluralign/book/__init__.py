"""The book: manifest → papermill-executed notebooks → Jupyter Book, and the tools around it.

- :mod:`pluralign.book.runner` — the manifest, the runs of a profile, execution, ``_toc.yml``, the HTML build;
  with :mod:`pluralign.book.kernels` (the pages' kernels), :mod:`pluralign.book.page_notes` (what the runner
  writes into a page: rehearsal banner, redirect note, skipped sections), :mod:`pluralign.book.sources` (the data
  a page's parameters read), :mod:`pluralign.book.html` (MathJax, a stand-alone page of one notebook);
- :mod:`pluralign.book.sitecheck` — the headless-browser check of the built site;
- :mod:`pluralign.book.benchmark` — machine facts and the benchmarks' results;
- :mod:`pluralign.book.cli` — the ``pluralign`` command line.
"""

from pluralign.book.runner import (  # noqa: F401
    PROFILES,
    BookError,
    Run,
    build,
    build_html,
    execute,
    manifest,
    read_params,
    run_fingerprint,
    runs,
    toc,
    toc_text,
)

__all__ = [
    "BookError",
    "PROFILES",
    "Run",
    "build",
    "build_html",
    "execute",
    "manifest",
    "read_params",
    "run_fingerprint",
    "runs",
    "toc",
    "toc_text",
]
