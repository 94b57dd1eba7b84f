"""``pluralign params NOTEBOOK -f FILE [-o OUT]``: the parameters a page runs with, as one papermill parameter file
(common.yml and includes merged, validated as the runner validates them)."""

from pathlib import Path

import pytest
import yaml

from pluralign import params as P
from pluralign.book.cli import main

ROOT = Path(__file__).resolve().parents[1]

NOTEBOOK = """# %% tags=["parameters"]
profile = "demo"
seed = 0
datasets = []
ties = "majority"

# %%
print(datasets)
"""


def test_the_sample_agreement_page_prints_profile_seed_and_the_merged_data_sets(capsys):
    assert main(["params", "diverging_agreement", "-f", str(ROOT / "params/sample/diverging-agreement.yml")]) == 0
    text = capsys.readouterr().out
    got = yaml.safe_load(text)
    assert got["profile"] == "sample" and got["seed"] == 0
    included = yaml.safe_load((ROOT / "params/sample/diverging-data.yml").read_text())
    assert got["settings"]["datasets"] == included["datasets"]  # from the file the page includes, in `settings`
    assert "include" not in got and text.startswith("# parameters of diverging_agreement")
    assert "papermill diverging_agreement.ipynb out.ipynb -f" in text


def test_out_writes_a_file_papermill_reads_and_relative_sources_become_absolute(tmp_path, capsys):
    nb = tmp_path / "page.py"
    nb.write_text(NOTEBOOK)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "ratings.csv").write_text("a,b\n")
    (mine / "common.yml").write_text("profile: sample\nseed: 3\n")
    (mine / "page.yml").write_text(
        "datasets:\n  - {name: local, source: ./ratings.csv}\n  - {name: hub, source: owner/not-a-file}\n"
    )
    out = tmp_path / "resolved.yml"
    assert main(["params", str(nb), "-f", str(mine / "page.yml"), "-o", str(out)]) == 0
    assert "resolved.yml: 3 parameters of page (profile, seed, datasets)" in capsys.readouterr().out
    got = yaml.safe_load(out.read_text())
    assert got == {
        "profile": "sample",
        "seed": 3,
        "datasets": [
            {"name": "local", "source": str((mine / "ratings.csv").resolve())},
            {"name": "hub", "source": "owner/not-a-file"},  # a Hub id stays as it is
        ],
    }
    assert P.resolved_params(nb, mine / "page.yml") == got


def test_an_unknown_key_or_a_wrong_type_is_refused_naming_file_and_key(tmp_path, capsys):
    nb = tmp_path / "page.py"
    nb.write_text(NOTEBOOK)
    (tmp_path / "typo.yml").write_text("tise: plurality\n")
    assert main(["params", str(nb), "-f", str(tmp_path / "typo.yml")]) == 1
    err = capsys.readouterr().err
    assert "typo.yml" in err and "'tise'" in err and "did you mean 'ties'" in err
    (tmp_path / "typed.yml").write_text("seed: many\n")
    assert main(["params", str(nb), "-f", str(tmp_path / "typed.yml")]) == 1
    assert "'seed'" in capsys.readouterr().err
    with pytest.raises(P.ParamsError, match="unknown parameter"):
        P.resolved_params(nb, tmp_path / "typo.yml")


def test_no_profile_in_the_files_gives_the_runner_s_default(tmp_path):
    nb = tmp_path / "page.py"
    nb.write_text(NOTEBOOK)
    (tmp_path / "page.yml").write_text("ties: plurality\n")
    assert P.resolved_params(nb, tmp_path / "page.yml") == {"ties": "plurality", "profile": "demo"}


def test_python_prints_the_parameters_cell_with_every_setting_in_one_settings_line(capsys):
    """``--python``: assignments for a notebook's parameters cell (JupyterLab), the same values as the papermill
    file: ``profile``, ``seed``, ``models`` as they are and every setting, at the value the page runs with, in the
    one ``settings = {...}`` line."""
    page = ["params", "btb_rewards", "-f", str(ROOT / "params/demo/btb-rewards.yml")]
    assert main(page) == 0
    text = capsys.readouterr().out
    from pluralign.btb.settings import BtbSettings

    papermill_file = yaml.safe_load(text)
    assert set(papermill_file["settings"]) == set(BtbSettings.defaults())  # every setting, defaults included
    assert papermill_file["settings"]["evaluation"]["n_boot"] == BtbSettings().evaluation.n_boot
    assert main([*page, "--python"]) == 0
    printed = capsys.readouterr().out
    assert sum(line.startswith("settings = {") for line in printed.splitlines()) == 1
    cell: dict = {}
    exec(printed, {}, cell)  # noqa: S102 - the printed cell, run as JupyterLab would
    assert cell == {**papermill_file, "models": None}  # the whole cell: models at the cell's own default
