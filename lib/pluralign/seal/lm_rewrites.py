"""The § 2.3 rewriting by an LM (SEAL App. C.5): a random subset of pairs is rewritten with the App. C.5 prompt
(surface changes only), each rewrite checked as SEAL's pipeline did (non-empty, not identical, roles kept), and the
originals and rewrites of the kept pairs re-labelled, giving their label flips (:mod:`pluralign.seal.flips`).

:class:`Rewrites` is the result both this rewriting and the demo's stand-in
(:mod:`pluralign.seal.simulated_rewrites`) return; the robustness scores of Eq. 4 are fitted on it in
:mod:`pluralign.seal.robustness`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign.seal.flips import label_flips

__all__ = ["Rewrites", "REWRITE_PROMPT", "REWRITE_FEATURES", "rewrite_prompt", "rewrite", "rewrite_pairs"]

REWRITE_PROMPT = (
    "The following text excerpt comes from an RLHF dataset. Rewrite it using these instructions:\n\n"
    "Only make alterations to vocabulary and grammatical structure.\n\n"
    "Make sure to keep the meaning, intent and intensity of every sentence identical to the original.\n\n"
    "Keep elements that are toxic or unsafe. This is for RLHF research.\n\n"
    'Make sure to never replace the terms "Human" and "Assistant".\n\n'
    "Text excerpt: {text_excerpt}\n\n"
    "Rewriting:"
)
"""App. C.5 rewriting prompt as printed in the paper (``{text_excerpt}`` is the placeholder; the paper's
text shows it as "{text excerpt}"). SEAL's ``rewrite/__init__.py`` has the same words with the four
instructions as a "- " list and the excerpt on its own line. The paper ran Mistral 7B v0.1 Instruct (FP16) at
temperature 0.1 through Ollama."""

REWRITE_FEATURES = (
    "last_response_is_helpful",
    "last_response_is_harmless",
    "last_response_is_coherent",
    "last_response_is_eloquent",
    "last_response_sentiment",
)
"""§ 2.3: the features re-labelled after rewriting (helpful and harmless are used as a filter)."""


@dataclass
class Rewrites:
    """The § 2.3 rewriting of a set of pairs (:func:`rewrite_pairs`; the demo's stand-in
    :func:`~pluralign.seal.simulated_rewrites.simulated_rewrite_pairs`).

    ``view`` the kept pairs (re-indexed) and ``kept`` their positions in the pairs given; ``originals`` /
    ``rewritten`` the texts of the kept pairs, ``{"chosen": [...], "rejected": [...]}``; ``flips`` the label
    flips per entry type (:func:`label_flips`; NaN where the labeller failed); ``status`` one row per pair
    given, the chosen and rejected rewrite status; ``n_pairs``, ``n_kept``, ``n_dropped`` and ``dropped``
    (dropped pairs by the pair of statuses, e.g. ``"ok / identical"``); ``prompts`` None when the texts are
    whole dialogues, else the prompts the rewritten replies follow (score after them)."""

    view: pd.DataFrame
    kept: np.ndarray
    originals: dict
    rewritten: dict
    flips: dict
    status: pd.DataFrame
    n_pairs: int
    n_kept: int
    n_dropped: int
    dropped: pd.Series
    prompts: list | None = None


def rewrite_prompt(text: str) -> str:
    """The App. C.5 prompt for one text (a chosen or rejected dialogue)."""
    if not isinstance(text, str):
        raise TypeError(f"rewrite_prompt: text must be a string, got {type(text).__name__}")
    return REWRITE_PROMPT.replace("{text_excerpt}", text)


def _check_rewrite(original: str, rewritten) -> str:
    """SEAL's checks on a rewrite (``rewrite_entry``): non-empty, not identical, roles kept."""
    if not isinstance(rewritten, str) or not rewritten.strip():
        return "empty"
    if rewritten.strip() == original.strip():
        return "identical"
    if original.strip().startswith("Human:") and not rewritten.strip().startswith("Human:"):
        return "roles-replaced"
    return "ok"


def rewrite(
    texts: Sequence[str],
    llm,
    *,
    temperature: float = 0.1,
    max_tokens: int = 1024,
    batch_size: int = 16,
    resume: bool = True,
) -> pd.DataFrame:
    """Rewrite texts with the App. C.5 prompt through ``llm.generate(prompts, max_tokens=, temperature=,
    n=1)`` (any object with that method, e.g. ``pluralign.llm.load(...)``).

    Each answer is checked as SEAL's pipeline did: empty, identical to the original, or no longer
    starting with "Human:" → rejected (``rewritten`` is None, ``status`` says why). With ``resume``,
    finished items are journaled in a ``pluralign.cache.ItemStore`` keyed by the model (its
    ``fingerprint()`` where it has one) and the settings, so an interrupted job continues where it
    stopped.

    Returns a DataFrame with ``original``, ``rewritten``, ``status`` (one row per text, same order).
    """
    from pluralign.cache import ItemStore, fingerprint

    texts = list(texts)
    prompts = [rewrite_prompt(t) for t in texts]
    keys = [fingerprint(p)[:32] for p in prompts]
    fp = getattr(llm, "fingerprint", None)
    ident = fp() if callable(fp) else str(getattr(llm, "model", None) or getattr(llm, "name", type(llm).__name__))
    settings = {"llm": ident, "temperature": temperature, "max_tokens": max_tokens}
    store = ItemStore("seal-rewrite", settings) if resume else None
    done: dict[str, str] = {} if store is None else {k: store.get(k) for k in keys if k in store}
    todo = [i for i, k in enumerate(keys) if k not in done]
    try:
        for s in range(0, len(todo), batch_size):
            idx = todo[s : s + batch_size]
            outs = llm.generate([prompts[i] for i in idx], max_tokens=max_tokens, temperature=temperature, n=1)
            outs = list(outs)
            if len(outs) != len(idx):
                raise RuntimeError(f"rewrite: the LLM returned {len(outs)} answers for {len(idx)} prompts")
            for i, o in zip(idx, outs):
                text = o[0] if isinstance(o, (list, tuple)) and o else (o if isinstance(o, str) else "")
                done[keys[i]] = text
                if store is not None:
                    store.put(keys[i], text)
    finally:
        if store is not None:
            store.close()
    rows = []
    for t, k in zip(texts, keys):
        out = done.get(k)
        status = _check_rewrite(t, out)
        rows.append({"original": t, "rewritten": out.strip() if status == "ok" else None, "status": status})
    return pd.DataFrame(rows, columns=["original", "rewritten", "status"])


def rewrite_pairs(
    view: pd.DataFrame,
    rewriter,
    labeller,
    *,
    features: Sequence[str] = REWRITE_FEATURES,
    job: str = "seal-rw",
    label_temperature: float | None = None,
    **rewrite_kw,
) -> Rewrites:
    """The § 2.3 rewriting step on pairs (the paper profile's path): both entries of every pair of ``view``
    (:func:`~pluralign.seal.pairs.chosen_rejected` rows) are written out as dialogues
    (:func:`~pluralign.seal.pairs.entry_texts`), rewritten with :func:`rewrite` (``rewrite_kw`` go to it),
    and the originals and rewrites of the kept pairs re-labelled with ``labeller``
    (:func:`~pluralign.seal.features.featurize`, ``keys=features``, at ``label_temperature``; None: its default).

    A pair is kept only when **both** rewrites have status "ok"; the others are dropped (never replaced by
    their originals) and counted. Returns :class:`Rewrites` (``prompts`` None: the texts are whole
    dialogues).
    """
    from pluralign.seal.features import feature_matrix, featurize
    from pluralign.seal.pairs import entry_texts

    entries = ("chosen", "rejected")
    texts = {e: entry_texts(view, e) for e in entries}
    rw = {e: rewrite(texts[e], rewriter, **rewrite_kw) for e in entries}
    status = pd.DataFrame({e: rw[e]["status"].to_numpy() for e in entries})
    ok = ((status["chosen"] == "ok") & (status["rejected"] == "ok")).to_numpy()
    kept = np.flatnonzero(ok)
    dropped = (status.loc[~ok, "chosen"] + " / " + status.loc[~ok, "rejected"]).value_counts()
    keys = list(features)
    originals = {e: [texts[e][i] for i in kept] for e in entries}
    rewritten = {e: [rw[e]["rewritten"].iat[i] for i in kept] for e in entries}
    flips = {}
    kw = {} if label_temperature is None else {"temperature": float(label_temperature)}
    for e in entries:
        lab0 = feature_matrix(featurize(originals[e], labeller, keys=keys, job=f"{job}-orig-{e}", **kw).table, keys)
        lab1 = feature_matrix(featurize(rewritten[e], labeller, keys=keys, job=f"{job}-new-{e}", **kw).table, keys)
        flips[e] = label_flips(lab0, lab1)
    return Rewrites(
        view=view.iloc[kept].reset_index(drop=True),
        kept=kept,
        originals=originals,
        rewritten=rewritten,
        flips=flips,
        status=status,
        n_pairs=int(len(view)),
        n_kept=int(len(kept)),
        n_dropped=int((~ok).sum()),
        dropped=dropped,
        prompts=None,
    )
