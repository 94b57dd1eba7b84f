"""The library's shape: no import cycle among its modules, a light ``import pluralign``, one public API."""

import ast
import subprocess
import sys
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib"


def _modules() -> dict[str, Path]:
    out = {}
    for p in (LIB / "pluralign").rglob("*.py"):
        parts = p.relative_to(LIB).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the library modules it imports (at module level or inside functions)."""
    mods = _modules()
    graph = {m: set() for m in mods}
    for m, path in mods.items():
        pkg = m if path.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                # `from pkg import sub` is an import of the submodule when there is one
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m:
                    graph[m].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def _is_package_init_edge(a: str, b: str) -> bool:
    # a package's __init__ re-exporting its own submodules, and a submodule importing a sibling through the
    # package, is the one allowed shape: edges from a package to its own children are not counted
    return b.startswith(a + ".")


def test_no_import_cycle_among_library_modules():
    g = import_graph()
    g = {a: {b for b in bs if not _is_package_init_edge(a, b)} for a, bs in g.items()}
    assert cycles(g) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_import_pluralign_is_light():
    code = (
        "import sys, pluralign, pluralign.data, pluralign.report, pluralign.paper, pluralign.params\n"
        "heavy = [m for m in ('torch', 'transformers', 'peft', 'bitsandbytes') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"import pluralign imported {out}"


def test_public_api_names():
    import pluralign

    for name in ("load", "aggregate", "agreement_classes", "feature_imprint", "simulate", "diverging", "seal", "btb"):
        assert name in pluralign.__all__
    assert callable(pluralign.load) and callable(pluralign.aggregate) and callable(pluralign.simulate)
    d = pluralign.simulate(n_pairs=30, seed=1)
    assert pluralign.aggregate(d, "majority").isin(["A", "B", "tie", "split"]).all()


#: the size a maintainer can hold in mind: no module, class or function of the library larger
SIZE_LIMITS = {"module": 600, "class": 300, "function": 80}


def sizes(root: Path = LIB / "pluralign") -> list[tuple[str, str, int]]:
    """(kind, name, lines) of every module, class and function under ``root`` (docstrings included)."""
    out = []
    for p in sorted(root.rglob("*.py")):
        src = p.read_text()
        rel = p.relative_to(root.parent)
        out.append(("module", str(rel), src.count("\n")))
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ClassDef):
                out.append(("class", f"{rel}:{node.name}", node.end_lineno - node.lineno + 1))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(("function", f"{rel}:{node.name}", node.end_lineno - node.lineno + 1))
    return out


def test_no_module_class_or_function_is_too_large():
    over = [
        f"{kind} {name}: {n} lines (limit {SIZE_LIMITS[kind]})" for kind, name, n in sizes() if n > SIZE_LIMITS[kind]
    ]
    assert not over, "\n".join(over)


def test_the_size_check_finds_a_large_function(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "big.py").write_text("def f():\n" + "    x = 1\n" * 90)
    assert ("function", "pkg/big.py:f", 91) in sizes(pkg)


def test_no_tracker_reference_in_code_or_pages():
    """Code and pages speak of the project, not of its tracker: no "issue 13" / "issue #19" anywhere a reader sees."""
    import re

    root = LIB.parent
    pattern = re.compile(r"[Ii]ssue ?#?[0-9]+")
    found = []
    for folder in ("lib", "notebooks", "book", "params"):
        for p in (root / folder).rglob("*"):
            if p.is_file() and p.suffix in {".py", ".md", ".yml", ".yaml", ".txt"} and "_executed" not in p.parts:
                found += [
                    f"{p.relative_to(root)}:{i}"
                    for i, line in enumerate(p.read_text().splitlines(), 1)
                    if pattern.search(line)
                ]
    found += [
        f"README.md:{i}"
        for i, line in enumerate((root / "README.md").read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found


def test_every_part_has_the_one_setup_signature():
    """Every part's study is built the same way: ``setup(profile, seed, *, models, settings, page, **overrides)``, its
    settings a :class:`pluralign.settings.Settings` that refuses an unknown name."""
    import importlib
    import inspect

    import pytest

    from pluralign.settings import Settings

    signatures = {}
    for part in ("diverging", "seal", "btb", "cross"):
        study = importlib.import_module(f"pluralign.{part}.study")
        sig = inspect.signature(study.setup)
        signatures[part] = [(p.name, p.kind, p.default) for p in sig.parameters.values()]
        settings_cls = next(
            v
            for v in vars(importlib.import_module(f"pluralign.{part}.settings")).values()
            if isinstance(v, type) and issubclass(v, Settings) and v is not Settings
        )
        with pytest.raises(TypeError, match="unknown setting"):
            settings_cls.create(no_such_setting=1)
    first = signatures["diverging"]
    assert [n for n, _, _ in first] == ["profile", "seed", "models", "settings", "page", "overrides"]
    assert all(s == first for s in signatures.values()), signatures


def test_the_bootstrap_default_is_written_once():
    """Every method's and part setting's default of 2,000 resamples is :data:`pluralign.stats.N_BOOT` (it stood as
    a literal in 21 places, so a change would have reached some intervals and not others)."""
    import re

    literal = re.compile(r"n_boot\s*(?::\s*int\s*)?=\s*(?:setting\(\s*)?2_?000\b")
    lib = Path(__file__).resolve().parents[1] / "lib" / "pluralign"
    found = [
        f"{p.relative_to(lib)}:{i}"
        for p in lib.rglob("*.py")
        if p.name != "stats.py"
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if literal.search(line)
    ]
    assert found == [], f"n_boot defaults written as literals: {found}"
