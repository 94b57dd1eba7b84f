"""The table of the demo's difficulty (pluralign.data.difficulty) is the demo as it runs, read through the parameter
reader from params/demo/, and no default of the library comes from it (the paper profile must not move when the
demo is made harder)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import yaml

from pluralign import params as P
from pluralign.data import difficulty as D

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "params" / "demo"


def _demo(page: str) -> dict:
    """The settings a page of the demo profile runs with (``pluralign params PAGE -f params/demo/...``)."""
    nb = ROOT / "notebooks" / f"{page}.py"
    return P.resolved_params(nb, DEMO / f"{page.replace('_', '-')}.yml")["settings"]  # every setting at its value


def _default(fn, name: str):
    return inspect.signature(fn).parameters[name].default


def test_the_demos_judge_and_rewriter_run_with_the_table():
    pages = [p.stem for p in (ROOT / "notebooks").glob("*.py") if p.stem.startswith(("btb_", "cross_"))]
    assert len(pages) == 7
    for page in pages:
        judge = _demo(page)["judge"]
        assert judge["source"] == "simulated" and (judge["n"], judge["noise"]) == (D.JUDGE_N, D.JUDGE_NOISE), page
    seal = _demo("seal_robustness")
    assert seal["rewriter"] == "simulator" and seal["p_flip"] == D.REWRITE_FLIP
    from pluralign.diverging.knowing import simulated_judge

    stand_in = _demo("diverging_know")["judge_llm"]["simulated"]
    assert stand_in.get("noise", _default(simulated_judge, "noise")) == D.JUDGE_NOISE


def test_the_demos_stand_ins_default_to_the_table():
    """The simulators' own defaults, which the demo's files leave in place, are the table's values."""
    from pluralign.btb.margins import SimulatedJudge, judgments_from
    from pluralign.data.simulate import simulate
    from pluralign.seal.simulated_rewrites import simulated_rewrite, simulated_rewrite_pairs

    assert (_default(simulate, "n_annotators"), _default(simulate, "n_pool"), _default(simulate, "noise")) == (
        D.ANNOTATORS_PER_PAIR,
        D.ANNOTATOR_POOL,
        D.ANNOTATOR_NOISE,
    )
    assert _default(SimulatedJudge.__init__, "noise") == _default(judgments_from, "noise") == D.JUDGE_NOISE
    assert _default(judgments_from, "n") == D.JUDGE_N
    assert _default(simulated_rewrite, "p_flip") == _default(simulated_rewrite_pairs, "p_flip") == D.REWRITE_FLIP
    # no simulated data set of the demo sets the annotators or their noise otherwise
    for path in sorted(DEMO.glob("*.yml")):
        text = yaml.safe_dump(yaml.safe_load(path.read_text()) or {})
        assert not re.search(r"\b(n_annotators|n_pool)\s*:", text), path.name


def test_no_library_default_comes_from_the_table():
    """Only the recovery checks (which read the table to sweep around the demo's values) import it."""
    lib = ROOT / "lib" / "pluralign"
    readers = sorted(
        str(p.relative_to(lib))
        for p in lib.rglob("*.py")
        if re.search(r"from pluralign\.data\.difficulty import|from pluralign\.data import difficulty", p.read_text())
    )
    assert [r for r in readers if not r.startswith("recovery/")] == []
