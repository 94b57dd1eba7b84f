"""The book: manifest → papermill-executed notebooks → Jupyter Book, and the tools around it.

- :mod:`pluralign.book.manifest_plan` — the manifest and the runs of a profile; :mod:`pluralign.book.contents` —
  ``_toc.yml`` and the HTML build (a page's parameters: :mod:`pluralign.params`);
  :mod:`pluralign.book.fingerprints` — when a page is fresh; :mod:`pluralign.book.execution` — executing pages;
  with :mod:`pluralign.book.kernels` (the pages'
  kernels), :mod:`pluralign.book.page_notes` (what the runner writes into a page: rehearsal banner, redirect note,
  skipped sections), :mod:`pluralign.book.page_data` (the data a page's parameters read), :mod:`pluralign.book.html`
  (MathJax, a stand-alone page of one notebook);
- :mod:`pluralign.book.sitecheck` — the headless-browser check of the built site;
- :mod:`pluralign.book.hub_ids` — every Hub id a profile uses, for a local mirror (:mod:`pluralign.mirror`);
- :mod:`pluralign.book.benchmark` — machine facts and the benchmarks' results;
- :mod:`pluralign.book.cli` — the ``pluralign`` command line.
"""

from pluralign.book.contents import build_html, toc, toc_text  # noqa: F401
from pluralign.book.errors import BookError  # noqa: F401
from pluralign.book.execution import build, execute  # noqa: F401
from pluralign.book.fingerprints import run_fingerprint  # noqa: F401
from pluralign.book.manifest_plan import PROFILES, Run, manifest, runs  # noqa: F401

__all__ = [
    "BookError",
    "PROFILES",
    "Run",
    "build",
    "build_html",
    "execute",
    "manifest",
    "run_fingerprint",
    "runs",
    "toc",
    "toc_text",
]
