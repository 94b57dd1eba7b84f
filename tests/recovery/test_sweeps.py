"""The recovery sweeps: each method row rerun along its knob on small simulated data, the demo's step marked,
and where a sweep stops recovering."""

from types import SimpleNamespace

import pandas as pd

from pluralign.data.simulate import simulate
from pluralign.data.spec import DataSpec
from pluralign.recovery import sweeps as sw
from pluralign.recovery.rows import ALPHA, level_text
from pluralign.seal.pairs import chosen_rejected


def _context(n_pairs=300):
    spec = DataSpec.create({"simulate": {"n_pairs": n_pairs, "seed": 5}})  # as the settings hold it
    data = simulate(n_pairs=n_pairs, seed=5)
    ids = data.pairs["pair_id"]
    return SimpleNamespace(
        diverging=SimpleNamespace(seed=0, settings=SimpleNamespace(datasets=[spec], ties="majority")),
        btb=SimpleNamespace(data=data, ids=ids, settings=SimpleNamespace(judge=SimpleNamespace(noise=1.0, n=10))),
        seal=SimpleNamespace(D=data, view=chosen_rejected(data).table),
        demo_rm=(None, None, data),
        noise_sd=0.5,
    )


def test_every_sweep_runs_its_steps_and_marks_the_demos():
    t = sw.sweep_table(_context())
    assert list(dict.fromkeys(t["sweep"])) == list(sw.SWEEPS)
    for name, (knob, steps) in sw.SWEEPS.items():
        s = t[t["sweep"] == name]
        assert s["value"].tolist() == [float(v) for v in steps] and (s["knob"] == knob).all()
        assert s["demo"].sum() == 1, name  # the demo's own value is one of the steps
    # the planted quantities move with the knob: more annotators, more chance one of them disagrees
    share = t[t["sweep"] == "diverging_share"]
    assert share["planted"].is_monotonic_increasing
    # a noisier judge's margins track p* less well, and a correct Eq. 3 is judged against that, not against 1
    noise = t[t["sweep"] == "margin_pstar_correlation (noise)"]
    assert noise["planted"].is_monotonic_decreasing and noise["recovered"].all()
    res = sw.result(_context())
    assert res.figure is not None and set(res.values) == {"n_sweeps", "n_sweeps_recover"}
    assert res.values["n_sweeps"] == len(sw.SWEEPS) and res.caption
    # the interval beside a verdict is the one it reads: the margins' slope at the criterion's level holds the
    # truth exactly where the step passes (the 95 % interval beside it may miss the truth on a pass)
    for (sweep, _), step in res.table.iterrows():
        if sweep.startswith("Beyond the Binary"):
            reads = step["what the verdict reads"]
            assert reads.startswith(f"{level_text(ALPHA, 2)} intervals: slope "), reads
            lo, hi = (float(v.replace("\u2212", "-")) for v in reads.split("[")[1].split("]")[0].split(","))
            assert lo <= 1 <= hi or step["verdict"] == "fails", reads
    assert not any("_" in name for name in res.table.index.get_level_values(0))  # display names, not keys


def test_where_a_sweep_stops():
    steps = pd.DataFrame({"value": [1.0, 2.0, 4.0], "recovered": [True, False, False]})
    assert sw._first_miss(steps) == "stops at 2"
    assert sw._first_miss(steps.assign(recovered=True)) == "recovers at every step"


def test_a_decision_sweep_stops_where_the_decision_is_lost():
    """A decision followed along its knob stops at the first step that loses it and the planning table says where;
    one that is never lost says so, to the last step."""
    from pluralign.recovery import planning as pl

    ctx = _context()
    lost = pl.Decision(
        "margin_pstar_correlation",
        "judge noise",
        1.0,
        (1.0, 100.0, 200.0),
        "scale known",
        lambda r: pl._half_width(r) <= 0.1,
    )
    never = pl.Decision("margin_pstar_correlation", "judge log-odds noise", 1.0, (1.0, 2.0), "always", lambda r: True)
    steps = pl.decision_steps(ctx, (lost,))
    assert steps["value"].tolist() == [1.0, 100.0] and steps["made"].tolist() == [True, False]  # stops at the loss
    table = pl.planning_table(steps, (lost,))
    got = table.loc["Beyond the Binary Eq. 3 margins"]
    assert got["decision"] == "scale known" and got["still made at"] == "1" and got["lost at"] == "100"
    table = pl.planning_table(pl.decision_steps(ctx, (never,)), (never,))
    assert table.loc["Beyond the Binary Eq. 3 margins", "lost at"] == "never, to 2"


def test_a_step_the_sweeps_and_the_plans_share_is_computed_once(monkeypatch):
    """A step at the same design (the demo's value of a knob, or a step a sweep and a planning decision share) is
    computed once per process, and gives the row it gave when computed afresh."""
    from pluralign.recovery import diverging_checks as D
    from pluralign.recovery import planning as pl

    ctx = _context()
    calls = []
    real = D.diverging_share

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(D, "diverging_share", counted)
    sw._STEPS.clear()
    spec = ctx.diverging.settings.datasets[0]
    first = sw.agreement_step("diverging_share", spec, 0, "majority")
    again = sw.agreement_step("diverging_share", spec, 0, "majority")
    assert len(calls) == 1 and first == again and first is not again
    decision = pl.Decision("diverging_share", "annotators per pair", 4, (4, 3), "any", lambda r: True)
    sw._diverging(spec, 0, "majority")  # 2, 3, 4, 6, 8 annotators
    pl.decision_steps(ctx, (decision,))  # 4 and 3 annotators: already computed
    assert len(calls) == 1 + len(sw.SWEEPS["diverging_share"][1])
    sw._STEPS.clear()
    fresh = sw.agreement_step("diverging_share", spec, 0, "majority")
    assert {k: v for k, v in fresh.items() if k != "null_pass"} == {k: v for k, v in first.items() if k != "null_pass"}


def test_a_decision_is_made_only_where_its_row_recovers_and_every_method_row_has_one(monkeypatch):
    """A step whose row misses its truth does not make the decision, whatever the decision reads, and the planning
    table says so; every method row of the table has a decision."""
    from pluralign.recovery import planning as pl
    from pluralign.recovery.rows import REQUIRED

    assert {d.row for d in pl.DECISIONS} == set(REQUIRED)
    rows = iter({"recovered": ok, "estimate": 1.0, "ci_low": 0.9, "ci_high": 1.1} for ok in (True, False, True))
    monkeypatch.setattr(pl, "_run", lambda d, v, context: next(rows))
    always = pl.Decision("margin_pstar_correlation", "judge log-odds noise", 1.0, (1.0, 2.0, 4.0), "any", lambda r: 1)
    steps = pl.decision_steps(None, (always,))
    assert steps["decided"].tolist() == [True, True] and steps["made"].tolist() == [True, False]
    got = pl.planning_table(steps, (always,)).iloc[0]
    assert got["still made at"] == "1" and got["lost at"] == "2 (the row misses its truth)"
