"""A page takes its settings as one papermill parameter, ``settings``: what ``pluralign params --python`` prints is
a parameters cell one can paste (the README's JupyterLab recipe), and changing ``profile`` in the cell runs that
profile's parameter file of the page, with ``settings`` laid over it."""

from pathlib import Path

import jupytext

from pluralign import diverging
from pluralign import params as P
from pluralign.book.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGE = "diverging_agreement"
NOTEBOOK = ROOT / "notebooks" / f"{PAGE}.py"


def _settings_of(profile: str) -> diverging.DivergingSettings:
    """The settings the runner gives the page on ``profile`` (its parameter file, every field)."""
    return P.read_page(ROOT / f"params/{profile}/diverging-agreement.yml", NOTEBOOK).settings


def test_the_readme_recipe_paste_the_printed_cell_save_and_the_page_runs_what_the_runner_runs(tmp_path, capsys):
    assert main(["params", PAGE, "-f", str(ROOT / "params/sample/diverging-agreement.yml"), "--python"]) == 0
    printed = capsys.readouterr().out
    nb = jupytext.read(NOTEBOOK)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    cell.source = printed  # pasted over the cell, then saved as JupyterLab's jupytext contents manager saves it
    saved = tmp_path / f"{PAGE}.py"
    jupytext.write(nb, saved, fmt="py:percent")
    assert {p.name for p in P.cell_parameters(saved)} == {"profile", "seed", "models", "settings"}
    assert P.page_cell(saved).settings is diverging.DivergingSettings  # the pasted line keeps the class's name
    assert P.page_cell(saved).declared == P.page_cell(NOTEBOOK).declared  # the book reads the page files as before
    namespace: dict = {}
    exec(printed, {}, namespace)  # noqa: S102 - the pasted cell, as the kernel runs it
    runs_with = diverging.DivergingSettings.create(
        P.page_settings(PAGE, namespace["profile"], namespace["settings"], namespace["models"])[0]
    )
    assert runs_with == _settings_of("sample")


def test_changing_profile_in_the_cell_runs_that_profiles_file_with_settings_laid_over_it():
    sample, _ = P.page_settings(PAGE, "sample", {}, None)
    assert diverging.DivergingSettings.create(sample) == _settings_of("sample") != _settings_of("demo")
    demo, _ = P.page_settings(PAGE, "demo", {}, None)
    assert diverging.DivergingSettings.create(demo) == _settings_of("demo")
    over, _ = P.page_settings(PAGE, "sample", {"n_boot": 300}, None)
    got = diverging.DivergingSettings.create(over)
    assert got.n_boot == 300 and got.datasets == _settings_of("sample").datasets  # the rest is the sample file's


def test_the_runner_injects_every_setting_so_the_profiles_own_file_changes_none_of_them(tmp_path):
    """A user's file with only a data set: the page runs that data set at the library's defaults, not at the demo
    profile's page settings (the injected ``settings`` hold every field, so laying them over the profile's file
    leaves nothing of it)."""
    (tmp_path / "mine.yml").write_text("datasets: [{name: local, source: ./ratings.csv}]\nn_boot: 300\n")
    injected = P.resolved_params(NOTEBOOK, tmp_path / "mine.yml")["settings"]
    assert set(injected) == set(diverging.DivergingSettings.defaults())
    laid, _ = P.page_settings(PAGE, "demo", injected, None)
    assert diverging.DivergingSettings.create(laid) == diverging.DivergingSettings.create(injected)
    assert laid["n_boot"] == 300 and laid["paper_reference"] == diverging.DivergingSettings().paper_reference


def test_a_page_in_its_own_kernel_builds_its_settings_once(validations):
    """``setup(..., page=...)`` reads the profile's file of the page and lays ``settings`` over it: the file's values
    come back as a plain mapping, unvalidated, so the settings are validated once, when ``setup`` builds them."""
    built = validations(diverging.DivergingSettings)
    laid, _ = P.page_settings(PAGE, "sample", {"n_boot": 300}, None)
    assert built == [] and type(laid) is dict and laid["n_boot"] == 300
    got = diverging.DivergingSettings.create(laid)
    assert len(built) == 1
    assert got.datasets == _settings_of("sample").datasets and got.n_boot == 300
