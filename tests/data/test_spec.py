import pytest

from pluralign.data.spec import from_spec, load_specs, split


def test_from_spec_simulates_and_splits_deterministically():
    d = from_spec({"simulate": {"n_pairs": 120, "seed": 3}})
    assert len(d) == 120
    tr, te = split(d, 30, seed=1)
    assert len(te) == 30 and len(tr) == 90
    assert set(tr.pairs.pair_id).isdisjoint(te.pairs.pair_id)
    assert list(te.pairs.pair_id) == list(split(d, 30, seed=1)[1].pairs.pair_id)
    assert list(te.pairs.pair_id) != list(split(d, 30, seed=2)[1].pairs.pair_id)
    assert te.meta["filters"][-1]["kept"] == 30 and te.truth is not None and len(te.truth) == 30
    # a pair's side does not depend on which other pairs are present
    small = d.subset(d.pairs.pair_id[:60])
    held_small = set(split(small, 0.25, seed=1)[1].pairs.pair_id)
    assert len(held_small) == 15


def test_from_spec_needs_a_name_or_simulate():
    with pytest.raises(ValueError, match="needs 'name'"):
        from_spec({"source": "x.jsonl"})


def test_shared_prefix_resolves_against_the_shared_folder(shared_data):
    d = from_spec({"name": "pandalm", "source": "shared:pandalm/testset-v1.json"})
    assert len(d) == 999


def test_load_specs_combines_and_subsamples_per_data_set():
    specs = [
        {"simulate": {"n_pairs": 40, "seed": 1, "name": "a"}},
        {"simulate": {"n_pairs": 30, "seed": 2, "name": "b"}},
    ]
    one, ps = load_specs(specs[:1])
    assert len(ps) == 1 and one is ps[0] and len(one) == 40
    both, ps = load_specs(specs)
    assert [len(p) for p in ps] == [40, 30] and len(both) == 70
    assert set(both.pairs["pair_id"]) == set(ps[0].pairs["pair_id"]) | set(ps[1].pairs["pair_id"])
    # int: n random pairs of each data set (the held-out side of split), deterministic in the seed
    both, ps = load_specs(specs, per_dataset=10, seed=4)
    assert len(both) == 20
    for p, spec in zip(ps, specs):
        # the seed draws the population too (seed 4's), then the subsample
        assert list(p.pairs["pair_id"]) == list(split(from_spec(spec, 4), 10, 4)[1].pairs["pair_id"])
    _, big = load_specs(specs, per_dataset=35)  # fewer pairs than n: kept whole
    assert [len(p) for p in big] == [35, 30]
    # dict: only the named data sets are subsampled
    both, ps = load_specs(specs, per_dataset={"b": 5})
    assert [len(p) for p in ps] == [40, 5] and len(both) == 45
    assert load_specs([]) == (None, [])


def test_a_study_seed_draws_a_fresh_population():
    """Seed 0 keeps a simulator spec's own seed (the book's population); another seed draws another population,
    the same for the same (spec, seed) — so Part IV, reusing Part I's pairs, gets Part I's population — and
    distinct for two specs of one study; a spec that does not simulate is left as it is."""
    from pluralign.data.spec import from_spec, population_seed, reseeded

    spec = {"simulate": {"n_pairs": 30, "seed": 1}}
    assert reseeded(spec, 0) == spec and population_seed(1, 0) == 1
    assert reseeded({"name": "pandalm"}, 3) == {"name": "pandalm"}
    a, b = from_spec(spec, 3), from_spec(spec, 3)
    assert a.pairs.equals(b.pairs)
    assert not a.truth["share_a"].equals(from_spec(spec, 0).truth["share_a"])
    assert population_seed(0, 3) != population_seed(1, 3) != population_seed(1, 4)
    assert reseeded({"simulate": None}, 2)["simulate"]["seed"] == population_seed(0, 2)
