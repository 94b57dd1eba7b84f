import pytest

from pluralign.data.spec import from_spec, split


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
