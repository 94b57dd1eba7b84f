"""``pluralign`` command line: book, run, params, toc, score, train, serve."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

# subcommands owned by other modules: name -> "module:function(argv) -> int"
DELEGATED = {
    "score": ("pluralign.rewards.cli:main", "score a data set with a reward model"),
    "train": ("pluralign.rewards.cli:train_main", "train a reward model on preference data"),
    "serve": ("pluralign.llm.server:main", "start an OpenAI-compatible server over a local LLM"),
    "mirror": (
        "pluralign.book.cli:_mirror",
        "list the Hub ids a profile uses, for a local mirror (air-gapped clusters); write a rehearsal mirror of them",
    ),
    "recovery": ("pluralign.recovery:main", "check every method against the simulator's planted truth (demo)"),
}


def _mirror(argv: list[str]) -> int:
    """``pluralign mirror list`` (:mod:`pluralign.book.hub_ids`) or ``pluralign mirror rehearsal``
    (:mod:`pluralign.book.rehearsal`, which reads the list): dispatched here so neither imports the other."""
    if argv and argv[0] == "rehearsal":
        from pluralign.book.rehearsal import main as rehearsal

        return rehearsal(argv[1:])
    from pluralign.book.hub_ids import main as mirror

    return mirror(argv)


def _pages_at_once(text: str) -> int:
    """``--jobs``: a whole number of pages, at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of pages, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"at least 1, got {n}")
    return n


def _book(a) -> int:
    from pluralign.book.errors import BookError
    from pluralign.book.execution import build

    try:
        index = build(a.profile, only=a.only, refresh=a.refresh, html=not a.no_html, out_dir=a.out_dir, jobs=a.jobs)
    except BookError as e:  # a refused parameter file among them (read once, before any page runs)
        print(f"error: {e}", file=sys.stderr)
        return 1
    if index:
        print(index)
    return 0


def _run(a) -> int:
    from pluralign.book.errors import BookError
    from pluralign.book.execution import run_page

    try:
        run_page(a.notebook, a.file, out_dir=a.out, refresh=a.refresh)
    except BookError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: every finished step is cached; run the same command again to resume "
            f"(pluralign run {a.notebook} -f {a.file})",
            file=sys.stderr,
        )
        return 130
    return 0


def _params(a) -> int:
    """``pluralign params NOTEBOOK -f FILE [-o OUT]``: the resolved parameters of a page as a papermill parameter
    file (printed, or written to OUT)."""
    import yaml

    from pluralign import params as P
    from pluralign.book.errors import BookError
    from pluralign.book.execution import resolve_notebook

    try:
        src = resolve_notebook(a.notebook)
        if src.suffix != ".py":
            src = src.with_suffix(".py") if src.with_suffix(".py").exists() else resolve_notebook(src.stem)
        resolved = P.resolved_params(src, a.file)
    except (BookError, P.ParamsError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    name = Path(a.file).name
    if a.python:  # the whole parameters cell: every name it declares, at the file's value or the cell's own
        cell = {p.name: p for p in P.cell_parameters(src)}
        print(f"# parameters of {src.stem} with {name}, for its parameters cell (every setting at its value):")
        for k, p in cell.items():  # a parameter keeps its comment: the settings' names their class
            value = repr(resolved[k]) if k in resolved else p.default
            print(f"{k} = {value}" + (f"  # {p.help}" if k == P.SETTINGS and p.help else ""))
        print("".join(f"{k} = {v!r}\n" for k, v in resolved.items() if k not in cell), end="")
        return 0
    text = (
        f"# parameters of {src.stem} with {name} (common.yml and includes merged, every setting at its value),\n"
        f"# for papermill: papermill {src.stem}.ipynb out.ipynb -f {Path(a.out).name if a.out else 'THIS_FILE.yml'}\n"
        + yaml.safe_dump(resolved, sort_keys=False, allow_unicode=True, width=120)
    )
    if a.out:
        Path(a.out).write_text(text)
        print(f"{a.out}: {len(resolved)} parameters of {src.stem} ({', '.join(resolved)})")
    else:
        print(text, end="")
    return 0


def _toc(a) -> int:
    from pluralign.book import manifest_plan
    from pluralign.book.contents import toc_text

    text = toc_text(a.profile)
    if a.write:
        (manifest_plan.ROOT / "_toc.yml").write_text(text)
    else:
        print(text, end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DELEGATED:
        mod, fn = DELEGATED[argv[0]][0].split(":")
        return int(getattr(importlib.import_module(mod), fn)(argv[1:]) or 0)
    p = argparse.ArgumentParser(prog="pluralign", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("book", help="execute the notebooks of a profile and build the book")
    b.add_argument("--profile", default="demo", choices=["demo", "sample", "paper"])
    b.add_argument(
        "--only",
        help="a part (its manifest name: frame, data, diverging, seal, btb, appendix), "
        "a notebook name or a parameter-file stem; the book then holds the pages executed so far",
    )
    b.add_argument("--refresh", action="store_true", help="recompute cached steps and re-execute notebooks")
    b.add_argument("--no-html", action="store_true", help="execute only; skip jupyter-book build")
    b.add_argument(
        "--jobs",
        type=_pages_at_once,
        help="pages executed at once (default: $PLURALIGN_BOOK_JOBS, else 1 on the paper profile and one per core, "
        "at most 4, on the others)",
    )
    b.add_argument(
        "--out-dir",
        help="folder inside the project for the executed pages (default "
        "book/_executed/<profile>); the HTML goes to _build/<its name>/_build/html",
    )
    b.set_defaults(fn=_book)
    r = sub.add_parser("run", help="execute one notebook on your own parameter file, from any folder")
    r.add_argument("notebook", help="a notebook of the book by name (e.g. diverging_agreement) or a path")
    r.add_argument(
        "-f", "--file", required=True, help="parameter file (YAML); relative paths in it resolve against its folder"
    )
    r.add_argument("--out", help="output folder for the executed notebook and its HTML page (default ./pluralign-runs)")
    r.add_argument("--refresh", action="store_true", help="recompute cached steps")
    r.set_defaults(fn=_run)
    q = sub.add_parser(
        "params",
        help="print the parameters a page runs with (common.yml and includes merged), for papermill -f",
        description="The resolved parameters of NOTEBOOK with FILE, validated as `pluralign run` reads them: "
        "`pluralign params diverging_agreement -f params/sample/diverging-agreement.yml -o resolved.yml`, then "
        "`jupytext --to ipynb notebooks/diverging_agreement.py` and "
        "`papermill diverging_agreement.ipynb out.ipynb -f resolved.yml`.",
    )
    q.add_argument("notebook", help="a notebook of the book by name (e.g. diverging_agreement) or a path")
    q.add_argument("-f", "--file", required=True, help="the page's parameter file (YAML)")
    q.add_argument("-o", "--out", help="write the resolved parameters to this file instead of printing them")
    q.add_argument(
        "--python",
        action="store_true",
        help="print them as Python assignments, to paste into the notebook's parameters cell (JupyterLab)",
    )
    q.set_defaults(fn=_params)
    t = sub.add_parser("toc", help="print (or --write) _toc.yml generated from manifest.yml")
    t.add_argument("--profile", default="demo")
    t.add_argument("--write", action="store_true")
    t.set_defaults(fn=_toc)
    for name, (_, help_) in DELEGATED.items():
        sub.add_parser(name, help=help_, add_help=False)
    a = p.parse_args(argv)
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
