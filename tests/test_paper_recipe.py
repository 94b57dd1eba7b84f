"""The paper profile's recipe is the papers' own, written in its files: every setting a paper states
(:data:`pluralign.paper.recipe.RECIPE`) stands in ``params/paper/`` — in the file it names, beside a comment naming
the paper's section — and every page of the profile runs with it, read through the project's parameter reader
(``pluralign params NOTEBOOK -f FILE``), whatever the library's defaults are. So does every choice the profile
makes where the papers are silent (:data:`pluralign.paper.recipe.CHOSEN`), beside a comment saying so."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from pluralign import params as P
from pluralign.paper.recipe import CHOSEN, RECIPE, recipe

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "params" / "paper"
USES = [(s, file, key) for s in RECIPE for file, key in s.uses]
CHOICES = [(c, file, key) for c in CHOSEN for file, key in c.uses]
#: how a comment says that a value is this project's, not a paper's
A_CHOICE = re.compile(r"choice|not (reported|stated)|states? neither|names no|does not say")


def _id(use) -> str:
    s, file, key = use
    return f"{s.paper}:{file}:{key}"


def _get(tree, key: str):
    for k in key.split("."):
        if not isinstance(tree, dict) or k not in tree:
            raise KeyError(key)
        tree = tree[k]
    return tree


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-12)
    return a == b


def _notebook(page: Path) -> Path | None:
    nb = ROOT / "notebooks" / f"{page.stem.replace('-', '_')}.py"
    return nb if nb.exists() else None


def _includes(path: Path) -> set[str]:
    """The files ``path`` includes, transitively, and itself (by name)."""
    inc = (yaml.safe_load(path.read_text()) or {}).get("include") or []
    out = {path.name}
    for name in [inc] if isinstance(inc, str) else inc:
        out |= _includes(path.parent / name)
    return out


def _pages_reading(file: str) -> list[tuple[Path, Path]]:
    """(parameter file, notebook) of every page of the paper profile that reads ``file`` (itself, an include, or
    common.yml, which every page reads)."""
    out = []
    for page in sorted(PAPER.glob("*.yml")):
        nb = _notebook(page)
        if nb is not None and (file == P.COMMON or file in _includes(page)):
            out.append((page, nb))
    return out


def _context(lines: list[str], key: str) -> str:
    """The comments that stand by ``key`` (dotted) in a YAML file's ``lines``: on the line of each of its parts
    and in the comment lines just above them."""
    found, start = [], 0
    for part in key.split("."):
        pattern = re.compile(rf"(^|[\s{{,]){re.escape(part)}\s*:")
        i = next((j for j in range(start, len(lines)) if pattern.search(lines[j].split("#")[0])), None)
        if i is None:
            return ""
        found.append(i)
        start = i
    text = []
    for i in found:
        text.append(lines[i].partition("#")[2])
        j = i - 1
        while j >= 0 and lines[j].lstrip().startswith("#"):
            text.append(lines[j])
            j -= 1
    return " ".join(text)


def _cites(context: str, where: str) -> bool:
    """Whether ``context`` names every place of ``where`` ("§3.3"; "footnote 13, App. D.7"), § spacing aside."""
    norm = re.sub(r"§\s+", "§", context)
    return all(re.search(re.escape(re.sub(r"§\s+", "§", w.strip())) + r"(?![\d.]\d)", norm) for w in where.split(","))


@pytest.mark.parametrize("use", USES, ids=_id)
def test_the_paper_profile_writes_the_value_beside_its_source(use):
    """The value stands in the named file itself (not only as a library default), as the paper states it, with
    a comment naming where the paper states it."""
    s, file, key = use
    path = PAPER / file
    own = yaml.safe_load(path.read_text()) or {}
    assert _same(_get(own, key), s.value), f"params/paper/{file}: {key} is not the paper's {s.value!r} ({s.where})"
    context = _context(path.read_text().splitlines(), key)
    assert _cites(context, s.where), f"params/paper/{file}: {key} has no comment naming {s.where}: {context!r}"


@pytest.mark.parametrize("use", CHOICES, ids=_id)
def test_the_paper_profile_writes_its_own_choices_as_choices(use):
    """Where the papers are silent, the profile's value is written too (no default moves it), and its comment says
    that it is this project's choice."""
    c, file, key = use
    path = PAPER / file
    assert _same(_get(yaml.safe_load(path.read_text()) or {}, key), c.value), f"params/paper/{file}: {key}"
    context = _context(path.read_text().splitlines(), key)
    assert A_CHOICE.search(context), f"params/paper/{file}: {key} is not said to be a choice: {context!r}"


@pytest.mark.parametrize("use", USES + CHOICES, ids=_id)
def test_every_page_of_the_paper_profile_runs_with_it(use):
    """Every page that reads the file runs with the paper's value: its parameters as ``pluralign params`` reads
    them (before it groups the settings), and the part's settings built from them."""
    s, file, key = use
    pages = _pages_reading(file)
    assert pages, f"no page of the paper profile reads params/paper/{file}"
    for page, nb in pages:
        resolved, built = P.read_page(page, nb)  # the file's keys, as `pluralign params` reads them
        if key.split(".")[0] not in resolved:
            assert file == P.COMMON, f"{page.name}: {key} does not reach {nb.stem}"
            continue
        assert _same(_get(resolved, key), s.value), f"{page.name} runs {nb.stem} with another {key}"
        settings = built.model_dump() if built is not None else None
        if settings is not None and key.split(".")[0] in settings:
            assert _same(_get(settings, key), s.value), f"{nb.stem}'s settings hold another {key}"


def test_the_recipe_is_transcribed_with_its_source():
    from pluralign.paper import PAPERS

    assert {s.paper for s in RECIPE} == set(PAPERS)
    for s in RECIPE:
        assert s.where and s.what and s.quote and s.uses, s
        assert all((PAPER / file).exists() for file, _ in s.uses), s
    assert [s.value for s in recipe("btb") if s.what.startswith("synthetic judgments per pair")] == [10]
    with pytest.raises(KeyError, match="unknown paper"):
        recipe("rlhf")


def test_the_library_writes_the_papers_values_where_it_states_them():
    """The few paper values the library itself names agree with the transcription."""
    from pluralign.btb.training import LR_SWEEP
    from pluralign.seal.imprint import VIF_THRESHOLD

    by_what = {(s.paper, s.what): s.value for s in RECIPE}
    assert by_what[("seal", "the VIF threshold of the regressions (Eq. 1-3)")] == VIF_THRESHOLD
    assert _same(list(LR_SWEEP), by_what[("btb", "the learning rates of the sweep")])


def test_the_check_finds_a_value_left_to_a_default(tmp_path):
    """A value said only in a comment ("n = 10 ... the default") is not written: the check fails on it."""
    lines = ["# n = 10 sampled judgments per pair (§3.3) are the defaults", "judge: {source: llm}"]
    assert _context(lines, "judge.n") == ""
    lines = ["judge:", "  source: llm", "  n: 10   # §3.3: 10 synthetic annotations"]
    assert _cites(_context(lines, "judge.n"), "§3.3") and not _cites(_context(lines, "judge.n"), "§3")
    assert _cites("# SEAL § 2.3 footnote 13, App. D.7", "footnote 13, App. D.7")
