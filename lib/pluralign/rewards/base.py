"""The :class:`RewardModel` interface shared by every backend: scoring, P(A ≻ B), training.

A reward model maps a (prompt, response) pair to a reward r(p, a) (SEAL §2: ``r(t_i) = r(p_i, a_i)``).
Scoring is fast and exact: texts are sorted by length, cut into token-budget batches (batch size × longest
length within ``token_budget``) padded to the longest text of their batch, run under ``torch.inference_mode``
(fp32 unless ``rewards.load(precision="auto" | "bf16")``), and cached on disk in
chunks, so a killed job loses only its current chunk and a re-run recomputes nothing. A reward
never depends on the batch size or on the other texts in its batch.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn

from pluralign.cache import Entry
from pluralign.progress import bar as progress_bar
from pluralign.rewards import distributed, training
from pluralign.rewards import objectives as obj
from pluralign.rewards.folders import BACKENDS
from pluralign.train_options import TrainOptions

CHUNK = 512  # texts per cached scoring chunk (a kill loses at most one chunk)


def resolve_device(device=None) -> torch.device:
    if device is not None:
        return torch.device(device)
    if distributed.active():  # one of several processes under accelerate launch: its own GPU (cuda:<local rank>)
        return torch.device(distributed.device())
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def resolve_dtype(dtype, device: torch.device) -> torch.dtype:
    """``None`` → bf16 on a CUDA device that supports it, else fp32."""
    if dtype is None:
        if device.type == "cuda" and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    if isinstance(dtype, str):
        return {
            "bf16": torch.bfloat16,
            "bfloat16": torch.bfloat16,
            "fp16": torch.float16,
            "float16": torch.float16,
            "fp32": torch.float32,
            "float32": torch.float32,
        }[dtype]
    return dtype


def _texts_of(data_or_texts) -> tuple[list[tuple[str, str]], pd.DataFrame | None]:
    """(prompt, response) list, plus the pairs table when given :class:`PreferenceData`."""
    if hasattr(data_or_texts, "pairs") and hasattr(data_or_texts, "annotations"):
        p = data_or_texts.pairs
        prompts = p["prompt"].fillna("").astype(str).tolist()
        texts = list(zip(prompts, p["response_a"].astype(str))) + list(zip(prompts, p["response_b"].astype(str)))
        return texts, p
    texts = []
    for i, t in enumerate(data_or_texts):
        if isinstance(t, str):
            raise TypeError(f"texts[{i}] is a plain string: pass (prompt, response) tuples or PreferenceData")
        prompt, response = t
        texts.append(("" if prompt is None else str(prompt), str(response)))
    return texts, None


#: backend name -> RewardModel subclass; each backend registers itself when its module is imported


class RewardModel:
    """Common interface. Backends implement ``_featurize``, ``_collate``, ``module`` (an ``nn.Module``
    whose ``forward(**batch)`` returns raw outputs of shape (n, k)), ``_trainable`` and ``_save``.

    ``n_outputs`` is 1 (a scalar reward) or 2 (mean-variance RM: μ and a raw σ)."""

    backend = "base"

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "backend" in cls.__dict__:
            BACKENDS[cls.backend] = cls

    def __init__(
        self,
        *,
        identity: str,
        n_outputs: int = 1,
        objective: str | None = None,
        batch_size: int = 32,
        device=None,
        dtype=None,
        info: dict | None = None,
    ):
        self.identity = identity
        self.n_outputs = n_outputs
        self.objective = objective
        self.batch_size = batch_size
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.info = dict(info or {})
        self.trained = bool(self.info.get("trained", objective is not None))

    # ---- backend hooks --------------------------------------------------------------------------
    module: nn.Module

    def _featurize(self, texts: list[tuple[str, str]]) -> list[Any]:
        raise NotImplementedError

    def _collate(self, features: list[Any]) -> dict:
        raise NotImplementedError

    def _length(self, feature: Any) -> int:
        return 1

    def _score_settings(self) -> dict:
        return {}

    def _trainable(self, objective: str, dropout: float | None, seed: int) -> RewardModel:
        raise NotImplementedError

    def _save(self, folder: Path) -> None:
        raise NotImplementedError

    # ---- scoring ----------------------------------------------------------------------------------
    #: tokens per batch (batch size × longest length); None → :func:`pluralign.rewards.speed.default_token_budget`
    token_budget: int | None = None

    def _forward_batches(
        self, features: list[Any], batch_size: int, progress=None, token_budget: int | None = None
    ) -> np.ndarray:
        """Run features sorted by length in token-budget batches (:func:`~pluralign.rewards.speed.token_batches`:
        at most ``batch_size`` texts, batch size × longest length within the budget), each padded to its own
        longest; results in input order."""
        from pluralign.rewards.speed import default_token_budget, set_threads_once, token_batches

        n = len(features)
        out = np.zeros((n, self.n_outputs), dtype=np.float64)
        budget = token_budget or self.token_budget or default_token_budget(self.device)
        batches = token_batches([self._length(f) for f in features], budget, batch_size)
        set_threads_once()
        self.module.eval()
        with torch.inference_mode():
            for idx in batches:
                batch = {
                    k: v.to(self.device) if isinstance(v, torch.Tensor) else v  # a packed row's max_length: an int
                    for k, v in self._collate([features[i] for i in idx]).items()
                }
                res = self.module(**batch).float().cpu().numpy()
                out[idx] = res[:, : self.n_outputs]
                if progress is not None:
                    progress.update(len(idx))
        return out

    def _raw_outputs_uncached(self, texts: list[tuple[str, str]], batch_size: int, progress=None) -> np.ndarray:
        return self._forward_batches(self._featurize(texts), batch_size, progress)

    @property
    def pipelined(self) -> bool:
        """Whether scoring takes the GPU path (:func:`pluralign.rewards.speed.score_pipelined`): a CUDA device and a
        backend that scores by ``_featurize`` / ``_collate`` / ``module``. On the CPU scoring runs chunk by chunk
        as it always has (the same batches, so the same numbers)."""
        return self.device.type == "cuda" and type(self)._raw_outputs_uncached is RewardModel._raw_outputs_uncached

    def raw_outputs(
        self, data_or_texts, *, batch_size: int | None = None, progress: bool = True, cache: bool = True
    ) -> np.ndarray:
        """The head's raw outputs (n, k) for (prompt, response) texts, computed chunk by chunk and
        cached (keyed by model identity, scoring settings and the chunk's texts)."""
        texts, _ = _texts_of(data_or_texts)
        bs = batch_size or self.batch_size
        if not self.trained and self.info.get("warn_untrained", True):
            _warn_untrained(self)
        settings = {"backend": self.backend, "n_outputs": self.n_outputs, **self._score_settings()}
        if distributed.active():  # under accelerate launch: shards scored per process, gathered, cached once
            return distributed.raw_outputs(
                self, texts, bs, settings=settings, chunk=CHUNK, cache=cache, progress=progress
            )
        bar = progress_bar(len(texts), f"scoring ({self.backend})", "text", enabled=progress)
        with bar:
            if self.pipelined:  # a GPU: chunks scored in groups, tokenization overlapped (speed.score_pipelined)
                from pluralign.rewards.speed import score_pipelined

                return score_pipelined(self, texts, bs, settings=settings, cache=cache, chunk=CHUNK, bar=bar)
            parts = _score_in_chunks(self, texts, bs, settings=settings, cache=cache, bar=bar)
        if not parts:
            return np.zeros((0, self.n_outputs))
        return np.concatenate(parts, axis=0)

    def prepare(self, data, *, progress: bool = False) -> None:
        """Precompute what training and scoring on ``data`` will need (nothing here; the frozen-encoder
        backend embeds every text once)."""

    def score(self, data_or_texts, *, batch_size: int | None = None, progress: bool = True, cache: bool = True):
        """Rewards. ``PreferenceData`` → DataFrame ``pair_id, reward_a, reward_b``; a list of
        (prompt, response) tuples → ndarray. For a mean-variance RM the reward is μ."""
        texts, pairs = _texts_of(data_or_texts)
        raw = self.raw_outputs(texts, batch_size=batch_size, progress=progress, cache=cache)
        r = raw[:, 0]
        if pairs is None:
            return r
        n = len(pairs)
        return pd.DataFrame({"pair_id": pairs["pair_id"].values, "reward_a": r[:n], "reward_b": r[n:]})

    def predict(self, data, *, batch_size: int | None = None, progress: bool = True) -> pd.DataFrame:
        """``pair_id, mu_a, mu_b, sigma_a, sigma_b, p_a``: the Gaussian rewards of a mean-variance RM
        and ``P(A ≻ B) = Φ((μ_A − μ_B)/√(σ_A² + σ_B²))``."""
        if self.n_outputs != 2:
            raise ValueError(
                "predict() needs a mean-variance reward model (train with objective='mean-variance'); "
                "use score() or prob_a() for a scalar reward model"
            )
        texts, pairs = _texts_of(data)
        raw = self.raw_outputs(texts, batch_size=batch_size, progress=progress)
        n = len(pairs)
        mu = raw[:, 0]
        sigma = obj.sigma_from_raw(torch.as_tensor(raw[:, 1])).numpy()
        p_a = obj.mean_variance_prob_a(mu[:n], mu[n:], sigma[:n], sigma[n:])
        return pd.DataFrame(
            {
                "pair_id": pairs["pair_id"].values,
                "mu_a": mu[:n],
                "mu_b": mu[n:],
                "sigma_a": sigma[:n],
                "sigma_b": sigma[n:],
                "p_a": p_a,
            }
        )

    def prob_a(self, data, *, batch_size: int | None = None, progress: bool = True) -> pd.Series:
        """P(A ≻ B) per pair: σ(r_A − r_B) (Bradley-Terry), or Φ(...) for a mean-variance RM."""
        if self.n_outputs == 2:
            p = self.predict(data, batch_size=batch_size, progress=progress)
            return pd.Series(p["p_a"].values, index=p["pair_id"].values, name="p_a")
        s = self.score(data, batch_size=batch_size, progress=progress)
        d = (s["reward_a"] - s["reward_b"]).to_numpy()
        return pd.Series(obj.logistic(d), index=s["pair_id"].values, name="p_a")

    # ---- training ---------------------------------------------------------------------------------
    def train(
        self,
        data,
        *,
        eval_data=None,
        margins=None,
        options: TrainOptions | None = None,
        output_dir: str | Path | None = None,
        **given,
    ) -> RewardModel:
        """Fit a copy of this model on ``data`` and return it (this model is left unchanged).

        ``options`` (:class:`~pluralign.train_options.TrainOptions`, default its defaults) say how: the
        objective (``"bt"``, ``"bt-margin"``: Beyond the Binary Eq. 4, ``"mse"``: Likert, ``"mean-variance"``), the
        labels (``"aggregate"``: the majority per pair, ``"all"``: every judgment), the learning rate, epochs and
        batch (the backend's own where None), the evaluation every ``eval_every`` epoch (Diverging Preferences
        App. A: 0.25) with the best weights kept, the seed, the engine; a field of it may be ``given`` as a keyword,
        laid over ``options`` (``rm.train(data, objective="mse", labels="all")``).

        The data: ``data`` (preference data), ``eval_data`` (evaluated with the objective's loss; its bt-margin
        margins from its own annotators, Eq. 3), ``margins`` (per pair_id, for ``"bt-margin"``; None: the pairs'
        annotators'), ``output_dir`` (a folder that also gets the trained model). The result is cached under the
        base model, the data and every hyper-parameter: a re-run trains nothing
        (:func:`pluralign.rewards.training.train`)."""
        options = TrainOptions.create(options, what="RewardModel.train", **given)
        return training.train(self, data, options, eval_data=eval_data, margins=margins, output_dir=output_dir)

    # defaults per backend (overridden)
    default_lr = 1e-3
    default_epochs = 10
    default_train_batch_size = 16
    _dtype_arg = None

    def _train_settings(self) -> dict:
        return {}

    @property
    def precision(self) -> str:
        """The precision the model computes in: "fp32", "bf16" (a frozen-encoder RM: its encoder's)."""
        from pluralign.rewards.speed import precision_name

        enc = getattr(self, "encoder", None)
        return precision_name(next(enc.model.parameters()).dtype if enc is not None else self.dtype)

    @property
    def history(self) -> list:
        return self.info.get("history", [])

    @property
    def dropped(self) -> dict:
        return self.info.get("dropped", {})

    def __repr__(self) -> str:
        state = (
            f"trained ({self.objective})"
            if self.trained
            else "untrained head"
            if self.backend in ("frozen-encoder", "finetune")
            else "pretrained"
        )
        return f"{type(self).__name__}({self.identity!r}, {state}, device={self.device}, dtype={self.dtype})"


def _warn_untrained(model: RewardModel) -> None:
    warnings.warn(
        f"{model.backend} reward model {model.identity!r} has an untrained head: its rewards "
        "are a fixed random projection until you .train() it",
        stacklevel=4,
    )


def _score_in_chunks(model: RewardModel, texts, bs: int, *, settings: dict, cache: bool, bar) -> list[np.ndarray]:
    """The raw outputs of ``texts`` chunk by chunk (:data:`CHUNK` texts each), each chunk cached (keyed by the
    model's identity, the scoring ``settings`` and the chunk's texts) unless ``cache`` is off; a chunk read from
    the cache advances the progress ``bar`` at once."""
    parts = []
    for s in range(0, len(texts), CHUNK):
        chunk = texts[s : s + CHUNK]
        if not cache:
            parts.append(model._raw_outputs_uncached(chunk, bs, bar))
            continue
        entry = Entry("rewards/score", inputs=(model.identity, chunk), settings=settings, fmt="npy")
        done = []  # filled when the chunk is computed, not read from the cache (in this iteration)
        parts.append(
            entry.get_or_compute(lambda c=chunk, done=done: done.append(1) or model._raw_outputs_uncached(c, bs, bar))
        )
        if not done:
            bar.update(len(chunk))  # a cache hit
    return parts


__all__ = ["RewardModel", "resolve_device", "resolve_dtype", "CHUNK"]
