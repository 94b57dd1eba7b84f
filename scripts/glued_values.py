"""The values a built book glues for its prose, as one JSON file, and the comparison of two such files.

    python scripts/glued_values.py dump book/_executed/demo [--shown] > glued.json
    python scripts/glued_values.py compare before.json after.json [--tol 1e-9]

A refactoring of the library must leave every glued value of the demo book unchanged: numbers to ``--tol``
(relative), everything else (text, tables as text) exactly.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def glued(folder: str, shown: bool = False) -> dict:
    """``{page: {name: value}}`` of every ``glue`` output of the executed notebooks in ``folder``; with ``shown``,
    every Markdown and HTML output too (the tables and notes a page shows), named by position."""
    out = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        nb = json.loads(path.read_text())
        values = {}
        for cell in nb["cells"]:
            for o in cell.get("outputs", []):
                name = o.get("metadata", {}).get("scrapbook", {}).get("name")
                if name is not None:
                    data = o.get("data", {})
                    values[name] = data.get("application/papermill.record/text/plain", data.get("text/plain"))
                elif shown:
                    data = o.get("data", {})
                    for mime in ("text/markdown", "text/html"):
                        if mime in data:
                            values[f"shown {len(values):03d} {mime}"] = "".join(data[mime])
        out[path.stem] = values
    return out


def _number(text):
    try:
        return float(str(text).replace("−", "-"))
    except (TypeError, ValueError):
        return None


def compare(before: dict, after: dict, tol: float = 1e-9) -> list[str]:
    """Every difference between two dumps, one line each ([] when every value is the same)."""
    out = []
    for page in sorted(set(before) | set(after)):
        b, a = before.get(page, {}), after.get(page, {})
        for name in sorted(set(b) | set(a)):
            if name not in a:
                out.append(f"{page}: {name} gone (was {b[name]!r})")
            elif name not in b:
                out.append(f"{page}: {name} new ({a[name]!r})")
            elif b[name] != a[name]:
                x, y = _number(b[name]), _number(a[name])
                if x is not None and y is not None and math.isclose(x, y, rel_tol=tol, abs_tol=tol):
                    continue
                out.append(f"{page}: {name} {b[name]!r} -> {a[name]!r}")
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["dump"]:
        json.dump(glued(argv[1], shown="--shown" in argv), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        return 0
    if argv[:1] == ["compare"]:
        tol = float(argv[argv.index("--tol") + 1]) if "--tol" in argv else 1e-9
        diffs = compare(json.loads(Path(argv[1]).read_text()), json.loads(Path(argv[2]).read_text()), tol)
        print("\n".join(diffs) or "every glued value is the same")
        n = sum(len(v) for v in json.loads(Path(argv[1]).read_text()).values())
        print(f"{len(diffs)} differences among {n} glued values")
        return 1 if diffs else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
