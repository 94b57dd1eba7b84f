"""``pluralign score`` (rewards/cli.py): needs a trained model, writes rewards with labels, is cached and resumable."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pluralign.rewards as R
import pluralign.rewards.base as base
from pluralign.rewards.cli import main


@pytest.fixture(scope="module")
def tiny_rm(tmp_path_factory):
    from rm_helpers import tiny_seqcls_folder

    return tiny_seqcls_folder(tmp_path_factory.mktemp("cli-rm"))


def test_score_cli_without_a_model_says_how_to_name_one(tmp_path, capsys):
    rc = main(["--data", "simulate", "--option", "n_pairs=12", "--out", str(tmp_path / "s.parquet"), "--no-progress"])
    assert rc == 2 and not (tmp_path / "s.parquet").exists()
    err = capsys.readouterr().err
    assert "needs a trained reward model" in err and "--model" in err and "RewardModel.train" in err


def test_score_cli_refuses_an_untrained_head(tmp_path, capsys):
    rc = main(
        [
            "--model",
            str(R.default_encoder_path()),
            "--data",
            "simulate",
            "--option",
            "n_pairs=4",
            "--out",
            str(tmp_path / "s.parquet"),
            "--no-progress",
        ]
    )
    assert rc == 2 and "untrained reward head" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_score_cli_writes_rewards_with_labels_and_prints_accuracy(tmp_path, tiny_rm, capsys, suffix):
    out = tmp_path / f"scores{suffix}"
    rc = main(
        [
            "--model",
            str(tiny_rm),
            "--data",
            "simulate",
            "--option",
            "n_pairs=12",
            "--option",
            "seed=0",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert rc == 0
    df = {".parquet": pd.read_parquet, ".csv": pd.read_csv, ".jsonl": lambda p: pd.read_json(p, lines=True)}[suffix](
        out
    )
    assert list(df.columns) == ["pair_id", "reward_a", "reward_b", "p_a", "n_judgments", "majority", "share_a"]
    assert len(df) == 12
    np.testing.assert_allclose(df.p_a, 1 / (1 + np.exp(-(df.reward_a - df.reward_b))), rtol=1e-6)
    from pluralign.data import simulate

    d = simulate(n_pairs=12, seed=0)
    assert df.set_index("pair_id")["majority"].to_dict() == d.majority().to_dict()
    text = capsys.readouterr().out
    m = d.majority()[d.majority().isin(["A", "B"])]
    p = df.set_index("pair_id")["p_a"].reindex(m.index)
    acc = float(((p > 0.5) == (m == "A")).mean())
    assert "12 pairs" in text and f"accuracy against the majority label: {acc:.3f}" in text


def test_score_cli_resumes_after_a_kill_without_recomputing_finished_chunks(tmp_path, tiny_rm, monkeypatch):
    monkeypatch.setattr(base, "CHUNK", 4)  # 2 x 10 texts -> 5 chunks
    args = [
        "--model",
        str(tiny_rm),
        "--data",
        "simulate",
        "--option",
        "n_pairs=10",
        "--out",
        str(tmp_path / "a.parquet"),
        "--batch-size",
        "3",
        "--no-progress",
    ]
    cls = R.SequenceClassificationRM
    real = cls._raw_outputs_uncached
    calls = []

    def dying(self, texts, bs, progress=None):
        if len(calls) == 2:
            raise KeyboardInterrupt("killed")
        calls.append(len(texts))
        return real(self, texts, bs, progress)

    monkeypatch.setattr(cls, "_raw_outputs_uncached", dying)
    assert main(args) == 130  # Ctrl-C: a clean stop, a line that says how to resume, nothing written
    assert calls == [4, 4] and not (tmp_path / "a.parquet").exists()

    def counting(self, texts, bs, progress=None):
        calls.append(len(texts))
        return real(self, texts, bs, progress)

    monkeypatch.setattr(cls, "_raw_outputs_uncached", counting)
    assert main(args) == 0
    assert calls == [4, 4, 4, 4, 4]  # only the 3 unfinished chunks ran after the restart
    resumed = pd.read_parquet(tmp_path / "a.parquet")
    # a third run computes nothing
    assert main(args) == 0 and len(calls) == 5
    # same numbers as scoring in one go, uncached
    rm = R.load(tiny_rm)
    from pluralign.data import simulate

    fresh = rm.score(simulate(n_pairs=10), progress=False, cache=False)
    np.testing.assert_allclose(
        resumed[["reward_a", "reward_b"]].to_numpy(), fresh[["reward_a", "reward_b"]].to_numpy(), atol=1e-5
    )


def test_score_cli_refuses_bad_arguments(tmp_path, capsys):
    assert main(["--model", "m", "--data", "simulate", "--out", str(tmp_path / "x.txt")]) == 2
    assert ".parquet, .csv, .jsonl" in capsys.readouterr().err
    assert main(["--model", "m", "--data", "no-such-data", "--out", str(tmp_path / "x.parquet")]) == 2
    assert "no-such-data" in capsys.readouterr().err
    assert (
        main(
            [
                "--model",
                str(tmp_path / "missing"),
                "--data",
                "simulate",
                "--option",
                "n_pairs=3",
                "--out",
                str(tmp_path / "x.parquet"),
            ]
        )
        == 2
    )
    assert "cannot load model" in capsys.readouterr().err


def test_train_cli_gives_train_its_options_and_refuses_a_wrong_one(tmp_path, capsys):
    """``pluralign train``: the arguments given are TrainOptions fields (the others their defaults), the trained model
    is copied to ``--out``; a value TrainOptions refuses is an error naming it."""
    from pluralign.rewards.cli import train_main
    from pluralign.rewards.folders import read_rm_config

    data = ["--data", "simulate", "--option", "n_pairs=40", "--no-progress"]
    rc = train_main([*data, "--out", str(tmp_path / "rm"), "--epochs", "2", "--labels", "all"])
    assert rc == 0 and "trained (bt, " in capsys.readouterr().out
    hp = read_rm_config(tmp_path / "rm")["train"]
    assert (hp["objective"], hp["labels"], hp["epochs"], hp["seed"], hp["eval_every"]) == ("bt", "all", 2.0, 0, 0.25)
    assert train_main([*data, "--out", str(tmp_path / "no"), "--objective", "hinge"]) == 2
    assert "pluralign train: objective" in capsys.readouterr().err and not (tmp_path / "no").exists()


def test_both_commands_load_the_model_their_arguments_name(tmp_path, monkeypatch, capsys):
    """``--model``, ``--kind``, the loading arguments and ``--lora`` (train only) reach
    :func:`pluralign.rewards.load` as those options (the others at load's defaults), and ``--batch-size`` of
    ``score`` as its scoring batch; a model load refuses is an error naming it."""
    from pluralign.model_options import LoraOptions, ModelOptions
    from pluralign.rewards.cli import train_main

    given = []

    def refused(name_or_path=None, **kw):
        given.append({"name_or_path": name_or_path, **kw})
        raise OSError("not here")

    monkeypatch.setattr(R, "load", refused)
    data = ["--data", "simulate", "--option", "n_pairs=4", "--no-progress"]
    loading = ["--kind", "causal", "--max-length", "64", "--truncation-side", "right", "--load-in-4bit"]
    loading += ["--trust-remote-code", "--device", "cpu"]
    out = str(tmp_path / "s.parquet")
    assert main(["--model", "owner/rm", *data, *loading, "--batch-size", "8", "--out", out]) == 2
    assert "pluralign score: cannot load model 'owner/rm': not here" in capsys.readouterr().err
    assert train_main(["--model", "owner/base", *data, *loading, "--lora", "--out", str(tmp_path / "rm")]) == 2
    assert "pluralign train: cannot load model 'owner/base': not here" in capsys.readouterr().err
    assert main(["--model", "owner/rm", *data, "--out", out]) == 2
    assert given[0].pop("batch_size") == 8 and all("batch_size" not in kw or kw["batch_size"] is None for kw in given)
    got = [ModelOptions.create({k: v for k, v in kw.items() if k != "batch_size"}) for kw in given]
    common = dict(kind="causal", max_length=64, truncation_side="right", load_in_4bit=True, trust_remote_code=True)
    assert got[0] == ModelOptions(name_or_path="owner/rm", device="cpu", **common)
    assert got[1] == ModelOptions(name_or_path="owner/base", device="cpu", lora=LoraOptions(), **common)
    assert got[2] == ModelOptions(name_or_path="owner/rm")


def test_the_loading_arguments_default_to_the_options_own(monkeypatch):
    """``--max-length`` and ``--truncation-side`` left out are ModelOptions' defaults (written once there)."""
    from pluralign.model_options import ModelOptions
    from pluralign.rewards.cli import _parser, _train_parser

    monkeypatch.setattr(ModelOptions.model_fields["max_length"], "default", 256)
    monkeypatch.setattr(ModelOptions.model_fields["truncation_side"], "default", "right")
    for parser in (_parser(), _train_parser()):
        args = parser.parse_args(["--data", "simulate", "--out", "s.parquet"])
        assert (args.max_length, args.truncation_side) == (256, "right")
