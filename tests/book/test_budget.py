"""The paper profile's GPU budget: the arithmetic on a hand case, and every part present."""

import pytest

from pluralign.book import budget


def test_hours_are_items_times_flops_over_the_assumed_throughput():
    s = budget.Step("p", "s", "m", params_b=1.0, items=1000, tokens=100, flops_per_token=2, mfu=0.5)
    assert s.flops() == pytest.approx(2 * 1e9 * 100 * 1000)
    assert s.hours("H100") == pytest.approx(2e14 / (989e12 * 0.5) / 3600)
    assert s.hours("A100") / s.hours("H100") == pytest.approx(989 / 312)


def test_every_part_of_the_paper_profile_has_a_budget_and_a_basis():
    b = budget.gpu_budget()
    assert {p.split()[0] for p in b["part"]} == {"I", "II", "III"}
    assert b["basis"].str.len().min() > 20 and (b["H100 GPU-hours (estimate)"] > 0).all()
    per_part = budget.budget_by_part()
    assert per_part["H100 GPU-hours (estimate)"].sum() == pytest.approx(b["H100 GPU-hours (estimate)"].sum())
