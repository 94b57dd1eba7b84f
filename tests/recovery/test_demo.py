"""The demo table, the page's result and the command line of pluralign.recovery."""

import pandas as pd
import pytest

from pluralign import recovery as R


def test_result_table_and_profiles():
    """The page's table: display names (no keys), the truth beside the estimate, verdicts in words (a claim holds
    or does not hold on this population; never "recovered: no"), how often a null method passed as a count."""
    t = pd.DataFrame(
        [
            R.row("diverging", "diverging_share", "d", 0.4, 0.41, (0.38, 0.44), "inside", True, null_pass=0.0),
            R.row("btb", "claim_x", "c", None, -0.1, (-0.2, 0.0), "claim", False, kind="claim"),
            R.row("btb", "cats", "c", None, 1.0, (1.0, 1.0), "≥ 0.9", True, kind="plumbing"),
        ],
        columns=R.COLUMNS,
    )
    res = R.result(t)
    share = ("method", "Agreement classes (§2, §3): every class against the planted votes")
    assert res.table.loc[share, "truth"] == "0.400" and res.table.loc[share, "verdict"] == "passes"
    assert res.table.loc[("claim", "claim x"), "truth"] == "—" and res.values["n_recovered"] == 1
    assert res.table.loc[("claim", "claim x"), "estimate [95% CI]"] == "\u22120.100 [\u22120.200, 0.000]"
    assert res.table.loc[("claim", "claim x"), "verdict"] == "does not hold"
    assert res.table.loc[("plumbing", "cats"), "verdict"] == "wired through"  # plumbing: shown, not counted
    assert "recovered" not in res.table.columns and "diverging_share" not in " ".join(
        res.table.index.get_level_values(1)
    )
    assert res.values["n_claims"] == 1 and res.values["n_methods"] == 1 and "1 of 1 method checks pass" in res.note
    # the null method's passes as a count, no bare "<" for the HTML; the details folded in a dropdown
    assert "passed it 0 of 200 times" in res.note and "<" not in res.note and ":::{dropdown}" in res.note
    assert res.values["reading_btb"].endswith("on this simulated population, the claim that claim x does not hold.")
    assert res.values["reading_diverging"].startswith("its one method check passes")
    assert res.forest is None  # no summary figure that puts unlike quantities on one axis
    other = R.result(profile="sample")
    assert other.table is None
    assert set(other.values) == set(res.values)  # every name the page's prose quotes is glued on every profile
    with pytest.raises(ValueError, match="planted truth"):
        R.recovery_table("sample")


def test_part_reading_names_what_fails():
    """What a part can be trusted for says which method fails and which stand-ins fall short, in the grammar of
    one or several."""
    from pluralign.recovery.reading import part_reading

    t = pd.DataFrame(
        [
            R.row("seal", "imprint_weights", "d", None, 0.99, (0.9, 1.0), "c", True),
            R.row("seal", "robustness_scores", "d", 0.95, 0.5, (0.4, 0.6), "c", False),
            R.row("seal", "imprint_rm_weight_correlation", "d", None, 0.5, (0.4, 0.6), "c", False, kind="stand-in"),
            R.row("seal", "robustness_rm_sign", "d", None, 0.5, (0.4, 0.6), "c", False, kind="stand-in"),
        ],
        columns=R.COLUMNS,
    )
    text = part_reading(t, "seal")
    assert text.startswith("1 of its 2 method checks pass (SEAL Eq. 4 robustness scores fails)")
    assert "SEAL Eq. 1 imprints of the trained RM and SEAL Eq. 4 signs of the trained post-D RM fall short" in text
    assert "claim" not in text


def test_cli_is_wired(capsys, monkeypatch):
    from pluralign.book import cli
    from pluralign.recovery import demo

    assert cli.DELEGATED["recovery"][0] == "pluralign.recovery:main"
    with pytest.raises(SystemExit):
        R.main(["--profile", "paper"])
    assert R.page_params("recovery")["profile"] == "demo"
    seen = {}
    ok = R.row("seal", "robustness_sign", "d", None, 1.0, (0.8, 1.0), "every sign right", True)
    miss = R.row("btb", "margin_pstar_correlation", "d", 0.8, 0.5, (0.4, 0.6), "inside", False)
    claim = R.row("btb", "claim_x", "c", None, -0.1, (-0.2, 0.0), "claim", False, kind="claim")

    def table(profile, seed, rows=None):
        seen["seed"] = seed
        return pd.DataFrame(rows or [ok, claim], columns=R.COLUMNS)

    monkeypatch.setattr(demo, "recovery_table", table)
    assert R.main(["--seed", "3", "--no-mutations"]) == 0 and seen["seed"] == 3  # a claim does not gate
    monkeypatch.setattr(demo, "recovery_table", lambda profile, seed: table(profile, seed, [ok, miss]))
    assert R.main(["--no-mutations"]) == 1 and "not recovered: margin_pstar_correlation" in capsys.readouterr().err


def test_cli_fails_when_a_broken_variant_passes(capsys, monkeypatch):
    """A broken variant of a method that passes its row (a check that cannot fail) fails the command; the
    commit's seed is printed."""
    from pluralign.recovery import demo, mutations

    ok = R.row("seal", "robustness_scores", "d", 0.95, 0.95, (0.9, 1.0), "calibrated", True)
    monkeypatch.setattr(demo, "recovery_table", lambda profile, seed: pd.DataFrame([ok], columns=R.COLUMNS))
    monkeypatch.setattr(demo, "recovery_context", lambda profile, seed: None)
    monkeypatch.setattr(demo, "commit_seed", lambda rev="HEAD": 1234)
    caught = pd.DataFrame({"row": ["robustness_scores"] * 2, "variant": ["sign", "se×3"], "estimate": 0.0})
    monkeypatch.setattr(mutations, "mutation_table", lambda ctx: caught.assign(caught=[True, True]))
    assert R.main(["--seed", "commit"]) == 0 and "recovery at seed 1234" in capsys.readouterr().out
    monkeypatch.setattr(mutations, "mutation_table", lambda ctx: caught.assign(caught=[True, False]))
    assert R.main([]) == 1 and "not caught: robustness_scores/se×3" in capsys.readouterr().err


def test_commit_seed_is_the_commits():
    import subprocess

    from pluralign.book.manifest_plan import ROOT

    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert R.commit_seed() == int(sha[:8], 16) % 1_000_000


def test_training_curves_off_the_demo_say_so():
    assert R.training_curves("sample").table is None


def test_recovery_reads_no_private_member_of_another_module():
    """recovery reaches the parts only through public names: no attribute ``x._name`` on anything but ``self`` /
    ``cls``, and no ``from … import _name`` from outside the recovery package (its own modules' private helpers
    are called by their bare names)."""
    import ast
    from pathlib import Path

    folder = Path(R.__file__).parent
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                    found.append(f"{path.name}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith("pluralign.recovery"):
                found += [f"{path.name}:{node.lineno}: import {a.name}" for a in node.names if a.name.startswith("_")]
    assert not found, found


def test_the_parts_studies_are_built_from_their_pages_parameters(monkeypatch):
    """Each part's study is ``part.setup(**page_params(page))``: every parameter of the page, as it is."""
    import importlib

    seen = {}
    for part in R.PAGES:
        module = importlib.import_module(f"pluralign.{part}")
        monkeypatch.setattr(module, "setup", lambda _p=part, **kw: seen.update({_p: kw}) or kw)
    for part, page in R.PAGES.items():
        assert R.part_study(part) == R.page_params(page) == seen[part]
        assert seen[part]["profile"] == "demo"
        assert R.part_study(part, seed=4) == {**R.page_params(page), "seed": 4}


def test_the_cli_fails_on_a_missed_variant_unless_its_reason_is_stated(monkeypatch, capsys):
    """A broken variant its row passes fails ``pluralign recovery``; one whose miss has a stated reason
    (``MISSED_WHY``: it is shown on the page beside the miss) is printed and does not."""
    import pandas as pd

    from pluralign.recovery import demo
    from pluralign.recovery import mutations as M

    table = pd.DataFrame(
        {"quantity": ["imprint_weights"], "kind": ["method"], "recovered": [True], "description": [""]}
    )
    monkeypatch.setattr(demo, "recovery_table", lambda profile, seed: table)
    monkeypatch.setattr(demo, "recovery_context", lambda profile, seed: None)
    monkeypatch.setattr(demo, "is_method", lambda kind: kind == "method")
    monkeypatch.setattr(M, "MISSED_WHY", {"planted miss": "a reason stated on the page"})
    for variant, status in (("planted miss", 0), ("sign", 1)):
        missed = pd.DataFrame({"row": ["imprint_weights"], "variant": [variant], "caught": [False]})
        monkeypatch.setattr(M, "mutation_table", lambda ctx, m=missed: m)
        assert demo.main(["--seed", "3"]) == status, variant
        assert "imprint_weights/" + variant in capsys.readouterr().err


def test_the_mutation_table_says_which_check_caught_a_variant():
    """A variant caught only by the check of the method's output against its definition (the agreement classes on
    each pair's own votes, Eq. 1 on its first draw) reads "def." in the page's table, not "yes": the statistical
    tests did not see it. A row without a definition check that fails was caught by its tests."""
    from pluralign.recovery import mutations as M

    by = M._caught_by
    assert by({"recovered": True, "tests_ok": True}) == ""
    assert by({"recovered": False, "tests_ok": True}) == "definition"  # only the definition check failed
    assert by({"recovered": False, "tests_ok": False}) == "tests"
    assert by({"recovered": False}) == "tests"  # a row without a definition check
    m = pd.DataFrame(
        {
            "row": ["imprint_weights"] * 3,
            "variant": ["sign", "OLS SEs", "columns swapped"],
            "caught": [True, True, False],
            "by": ["tests", "definition", ""],
        }
    )
    s = M.shown(m)
    assert s.loc["imprint_weights", "sign"] == "yes"
    assert s.loc["imprint_weights", "own mistakes"] == "OLS SEs: def.; columns swapped: MISSED"
