"""``pluralign score`` (rewards/cli.py): writes a parquet of rewards, is cached and resumable."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import pluralign.rewards as R
import pluralign.rewards.base as base
from pluralign.rewards.cli import main


@pytest.fixture(scope="module")
def tiny_rm(tmp_path_factory):
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification
    tok = AutoTokenizer.from_pretrained(R.default_encoder_path())
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, num_labels=1, architectures=["BertForSequenceClassification"])
    folder = tmp_path_factory.mktemp("cli-rm")
    BertForSequenceClassification(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_score_cli_with_the_embedded_default_writes_parquet(tmp_path, capsys):
    out = tmp_path / "scores.parquet"
    rc = main(["--data", "simulate", "--option", "n_pairs=12", "--option", "seed=0", "--out", str(out),
               "--no-progress"])
    assert rc == 0
    df = pd.read_parquet(out)
    assert list(df.columns) == ["pair_id", "reward_a", "reward_b", "p_a"] and len(df) == 12
    np.testing.assert_allclose(df.p_a, 1 / (1 + np.exp(-(df.reward_a - df.reward_b))))
    assert "12 pairs" in capsys.readouterr().out


def test_score_cli_resumes_after_a_kill_without_recomputing_finished_chunks(tmp_path, tiny_rm, monkeypatch):
    monkeypatch.setattr(base, "CHUNK", 4)  # 2 x 10 texts -> 5 chunks
    args = ["--model", str(tiny_rm), "--data", "simulate", "--option", "n_pairs=10", "--out",
            str(tmp_path / "a.parquet"), "--batch-size", "3", "--no-progress"]
    cls = R.SequenceClassificationRM
    real = cls._raw_outputs_uncached
    calls = []

    def dying(self, texts, bs, progress=None):
        if len(calls) == 2:
            raise KeyboardInterrupt("killed")
        calls.append(len(texts))
        return real(self, texts, bs, progress)
    monkeypatch.setattr(cls, "_raw_outputs_uncached", dying)
    with pytest.raises(KeyboardInterrupt):
        main(args)
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
    np.testing.assert_allclose(resumed[["reward_a", "reward_b"]].to_numpy(),
                               fresh[["reward_a", "reward_b"]].to_numpy(), atol=1e-5)


def test_score_cli_refuses_bad_arguments(tmp_path, capsys):
    assert main(["--data", "simulate", "--out", str(tmp_path / "x.csv")]) == 2
    assert ".parquet" in capsys.readouterr().err
    assert main(["--data", "no-such-data", "--out", str(tmp_path / "x.parquet")]) == 2
    assert "no-such-data" in capsys.readouterr().err
    assert main(["--model", str(tmp_path / "missing"), "--data", "simulate", "--option", "n_pairs=3",
                 "--out", str(tmp_path / "x.parquet")]) == 2
    assert "cannot load model" in capsys.readouterr().err
