"""A default is written once: in the part's settings class (pluralign.settings). A page's notebook takes every
setting in its one ``settings`` parameter, and no value of a parameter file equals the value it overrides (the
setting's default, or what its includes and common.yml gave; a nested setting's keys at any depth, key by key) —
but the paper profile's recipe: a setting a paper states (:data:`pluralign.paper.recipe.RECIPE`) is written in
``params/paper/`` whether or not it equals a default."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from pluralign import params as P
from pluralign.settings import Arguments, Section

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p for p in (ROOT / "notebooks").glob("*.py") if P.page_cell(p).settings is not None)
CELL_NAMES = {"profile", "seed", "models", "settings"}


def _notebook_for(params_file: Path) -> Path | None:
    """The notebook a parameter file (or a study file it is included by) configures: by the part's file prefix."""
    stem = params_file.stem
    exact = ROOT / "notebooks" / f"{stem.replace('-', '_')}.py"
    if exact.exists():
        return exact
    part = stem.split("-")[0]
    return next((p for p in PAGES if p.stem.startswith(f"{part}_")), None)


def restated(own: dict, below: dict, notebook: Path) -> list[str]:
    """The key paths of ``own`` (a parameter file's own keys) whose value equals what it overrides: ``below`` (what
    common.yml and the includes give) where that has the key, else the notebook's default (its settings class's,
    key by key inside a nested setting at any depth, or its parameters cell's)."""
    cls = P.page_cell(notebook).settings
    cell = {p.name: p.default for p in P.cell_parameters(notebook)}
    out = []
    for key, value in own.items():
        if key in below or (cls is not None and key in cls.model_fields):
            out += _restated_in(key, value, below, cls.create() if cls is not None else None)
        elif key in cell:
            try:
                if ast.literal_eval(cell[key]) == value:
                    out.append(key)
            except (ValueError, SyntaxError):
                pass
    return out


def _layered(value) -> bool:
    """Whether a mapping given for ``value`` is laid over it key by key (a section, not a function's arguments)."""
    return isinstance(value, Section) and not isinstance(value, Arguments)


def _restated_in(key: str, value, below: dict, current: Section | None, path: str = "") -> list[str]:
    """The paths under ``path + key`` whose value equals what ``below`` gives there, else ``current``'s value (the
    defaults of the section holding ``key``), nested mappings compared key by key."""
    here = f"{path}{key}"
    if key in below:
        under = below[key]
        if isinstance(value, dict) and isinstance(under, dict):
            default = getattr(current, key, None) if current is not None and key in type(current).model_fields else None
            inner = default if _layered(default) else None
            return [p for k, v in value.items() for p in _restated_in(k, v, under, inner, f"{here}.")]
        return [here] if value == under else []
    if current is None or key not in type(current).model_fields:
        return []
    default = getattr(current, key)
    if _layered(default) and isinstance(value, dict):
        return [p for k, v in value.items() for p in _restated_in(k, v, {}, default, f"{here}.")]
    return [here] if _normalized(current, key, value) == default else []


def _normalized(current: Section, key: str, value):
    """``value`` as the section holds it (e.g. a learning-rate grid named "paper" as its list); as given where it
    alone does not validate (a check across settings, e.g. features 'llm' without a labeller)."""
    try:
        return getattr(type(current).create(current, **{key: value}), key)
    except ValueError:
        return value


def _below(path: Path) -> dict:
    """What the includes and common.yml of ``path`` give (deep-merged as the runner merges them)."""
    data = yaml.safe_load(path.read_text()) or {}
    inc = data.get("include") or []
    below = {}
    if path.name != P.COMMON and (path.parent / P.COMMON).exists():
        below = yaml.safe_load((path.parent / P.COMMON).read_text()) or {}
    for g in [inc] if isinstance(inc, str) else inc:
        below = P.deep_merge(below, P.read_params(path.parent / g, common=False))
    return below


PARAM_FILES = sorted(p for p in (ROOT / "params").glob("*/*.yml") if p.name != P.COMMON)


def recipe_keys(path: Path) -> set[str]:
    """The keys of a paper-profile file that write the paper's recipe (:mod:`pluralign.paper.recipe`: what the papers
    state, and this project's choices where they are silent), which that profile writes whether or not it equals a
    default; none for demo and sample."""
    from pluralign.paper.recipe import CHOSEN, RECIPE

    if path.parent.name != "paper":
        return set()
    return {key for s in (*RECIPE, *CHOSEN) for file, key in s.uses if file == path.name}


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_parameter_file_restates_what_it_overrides(path):
    notebook = _notebook_for(path)
    if notebook is None:
        pytest.fail(f"{path}: no notebook reads this parameter file")
    own = {k: v for k, v in (yaml.safe_load(path.read_text()) or {}).items() if k != "include"}
    again = [k for k in restated(own, _below(path), notebook) if k not in recipe_keys(path)]
    assert again == [], f"{path.relative_to(ROOT)} restates its defaults"


def test_only_the_paper_profiles_recipe_may_restate_a_default():
    """The exemption covers the paper profile's recipe keys alone: the same value in a demo file is a restatement."""
    paper, demo = ROOT / "params" / "paper" / "btb-study.yml", ROOT / "params" / "demo" / "btb-study.yml"
    assert {"judge.n", "judge.top_p"} <= recipe_keys(paper) and recipe_keys(demo) == set()
    nb = ROOT / "notebooks" / "btb_margins.py"
    assert restated({"judge": {"top_p": 0.9}}, {}, nb) == ["judge.top_p"]


def test_the_restatement_check_finds_a_restated_default(tmp_path):
    from pluralign.cross import CrossSettings
    from pluralign.seal.settings import AlignmentDesign, SealSettings

    nb = ROOT / "notebooks" / "seal_imprint.py"
    share = SealSettings().stability_share
    assert restated({"stability_share": share, "features": "rules"}, {}, nb) == ["stability_share"]
    assert restated({"stability_share": share * 2}, {}, nb) == []
    scoring = AlignmentDesign().scoring_input
    assert restated({"design": {"scoring_input": scoring, "other_data": []}}, {}, nb) == ["design.scoring_input"]
    assert restated({"features": "rules"}, {"features": "rules"}, nb) == ["features"]
    base = AlignmentDesign().base_model.head  # a nested section's key, two levels down
    assert restated({"design": {"base_model": {"head": base, "max_length": 64}}}, {}, nb) == ["design.base_model.head"]
    included = {"design": {"scoring_input": "seal", "other_data": []}}  # an include's mapping, key by key
    assert restated({"design": {"scoring_input": "seal"}}, included, nb) == ["design.scoring_input"]
    assert restated({"design": {"scoring_input": "prompt_reply"}}, included, nb) == []
    assert restated({"n_boot": CrossSettings().n_boot}, {}, ROOT / "notebooks" / "cross_margins.py") == ["n_boot"]
    assert restated({"training": {"lr_sweep": "paper"}}, {}, ROOT / "notebooks" / "btb_rewards.py") == [
        "training.lr_sweep"
    ]


@pytest.mark.parametrize("notebook", PAGES, ids=lambda p: p.stem)
def test_a_page_takes_its_settings_as_one_parameter_and_passes_it_with_its_name(notebook):
    """The parameters cell holds ``profile``, ``seed``, ``models`` and ``settings`` (papermill's own reading, so
    ``papermill --help-notebook`` lists them and warns of nothing a parameter file sets); the setup call passes
    ``settings`` and the page's own name, with which it reads the profile's parameter file of the page."""
    assert {p.name for p in P.cell_parameters(notebook)} == CELL_NAMES, notebook.name
    text = notebook.read_text()
    assert f'settings=settings, page="{notebook.stem}")' in text, notebook.name


def test_every_page_of_a_part_names_its_settings_class():
    parts = ("diverging_", "seal_", "btb_", "cross_")
    pages = {p.stem for p in (ROOT / "notebooks").glob("*.py") if p.stem.startswith(parts)}
    assert pages == {p.stem for p in PAGES}
