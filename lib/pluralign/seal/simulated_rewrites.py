"""The demo profile's offline stand-in for SEAL's LM rewriting (§ 2.3, App. C.5): rewrites of simulated
responses made from the simulator's own text banks, with *planted* feature flips.

SEAL asks an LM to change "only vocabulary and grammatical structure", then finds that some labels flip
anyway (Fig. 12) and measures how those flips move the reward model (Eq. 4). Offline, with no
instruction-tuned LM, :func:`simulated_rewrite` plays the rewriter on texts made by
:func:`pluralign.data.simulate`: every text is paraphrased (the simulator's synonym swaps), and with
probability ``p_flip`` per feature a style feature the simulator renders in text is toggled —
enthusiastic ``sentiment`` (its opening and closing lines), list ``format`` (heading + numbered list vs
prose), ``verbosity`` (its elaboration sentences). Because the flips are planted, the robustness
scores π of Eq. 4 can be checked against what was done. This is a stand-in, not an LM rewrite: its
flips are the ones we chose, at the rate we chose.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "PLANTED_FLIP_NAMES",
    "SIMULATED_FLIP_FEATURES",
    "simulated_rewrite",
    "simulated_rewrite_pairs",
    "toggle_draws",
]

SIMULATED_FLIP_FEATURES = ("sentiment", "format", "verbosity")
"""Planted features :func:`simulated_rewrite` can toggle (the simulator's names)."""


def toggle_draws(n: int, seed: int) -> np.ndarray:
    """The uniforms that decide which features :func:`simulated_rewrite` (``seed``) toggles in each of ``n`` texts:
    an ``n × 3`` array (columns :data:`SIMULATED_FLIP_FEATURES`; text i's feature toggles where its uniform is
    below ``p_flip``), drawn apart from the wording's draws (elaborations, openers, closers), so that which flips a
    rewrite plants can be computed for many texts at once without writing them."""
    seed = int(seed)
    return np.random.default_rng([0x5EA1, int(seed < 0), abs(seed)]).random((int(n), len(SIMULATED_FLIP_FEATURES)))


_NUMBERED = re.compile(r"^\s*\d+\.\s+(.*)$")
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+")


@functools.cache
def _banks():
    """The simulator's text banks (:mod:`pluralign.data.simulated_texts`), imported on first use."""
    import importlib

    return importlib.import_module("pluralign.data.simulated_texts")


def _parse(text: str):
    """(opener, sentences, heading, closer) of a text built by the simulator's ``_assemble``, or None for
    texts built otherwise (refusals, harmful compliance, poems), which are only paraphrased. A fresh list of
    sentences each call; the parse itself is computed once per text (rewrites parse the same texts round after
    round)."""
    parsed = _parse_once(text)
    return None if parsed is None else (parsed[0], list(parsed[1]), parsed[2], parsed[3])


@functools.lru_cache(maxsize=65536)
def _parse_once(text: str):
    s = _banks()
    starts_refusal = any(text.startswith(r) for r in (*s.REFUSE_WARM, *s.REFUSE_FLAT, s.CAPABILITY_REFUSE))
    if starts_refusal or text.startswith("Sure. "):
        return None
    body, opener, closer = text, None, None
    for o in s.ENTHUSIASTIC_OPEN:
        if body.startswith(o + " "):
            opener, body = o, body[len(o) + 1 :]
            break
    for c in s.ENTHUSIASTIC_CLOSE:
        if body.endswith("\n\n" + c):
            closer, body = c, body[: -len(c) - 2]
            break
    heading = None
    if body.startswith("### "):
        first, _, rest = body.partition("\n\n")
        heading = first
        sents = [m.group(1) for line in rest.split("\n") if (m := _NUMBERED.match(line))]
    else:
        if "\n" in body:  # a poem
            return None
        sents = [x for x in _SENT_SPLIT.split(body.strip()) if x]
    if not sents:
        return None
    return opener, tuple(sents), heading, closer


def _paraphrase_all(sents: list[str]) -> list[str]:
    """Every sentence with the simulator's first applicable synonym swap (a fresh list; computed once per
    sequence of sentences)."""
    return list(_paraphrase_once(tuple(sents)))


@functools.lru_cache(maxsize=65536)
def _paraphrase_once(sents: tuple) -> tuple:
    s = _banks()
    out = []
    for x in sents:
        y = x
        for a, b in s.SYNONYMS:
            if a in y and a != "is":  # "is" → "is indeed" everywhere reads badly; keep the others
                y = y.replace(a, b, 1)
                break
        out.append(y)
    if out == list(sents):
        out[0] = "To put it briefly: " + out[0]
    return tuple(out)


def simulated_rewrite(
    texts: Sequence[str], *, seed: int = 0, p_flip: float = 0.25, features: Sequence[str] = SIMULATED_FLIP_FEATURES
) -> pd.DataFrame:
    """Rewrite simulated responses: paraphrase every text, and toggle each of ``features`` (a subset of
    :data:`SIMULATED_FLIP_FEATURES`) independently with probability ``p_flip`` where the text renders it
    (texts the simulator assembled from content sentences; refusals, harmful compliance and poems are
    paraphrased only). Seeded: the same texts and seed give the same rewrites, and which features text i's rewrite
    toggles depends on ``seed``, ``p_flip`` and i alone (:func:`toggle_draws`).

    Returns one row per text: ``original``, ``rewritten``, ``status`` ("ok"), and per feature the planted
    label flip original − rewritten in SEAL's convention (App. D.6): +1 the rewrite lost the feature, −1 it
    gained it, 0 unchanged. The first three columns are those of
    :func:`~pluralign.seal.lm_rewrites.rewrite`, which this stands in for.
    """
    if not 0 <= p_flip <= 1:
        raise ValueError(f"simulated_rewrite: p_flip must be in [0, 1], got {p_flip}")
    features = list(features)
    bad = [f for f in features if f not in SIMULATED_FLIP_FEATURES]
    if bad:
        raise ValueError(f"simulated_rewrite: cannot flip {bad}; choose from {SIMULATED_FLIP_FEATURES}")
    s = _banks()
    rng = random.Random(f"pluralign-simulated-rewrite-{seed}")  # the wording: elaborations, openers, closers
    toggles = toggle_draws(len(texts), seed) < p_flip
    rows = []
    for t, toggled in zip(texts, toggles.tolist()):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"simulated_rewrite: texts must be non-empty strings, got {t!r}")
        flips = {f: 0 for f in features}
        draws = dict(zip(SIMULATED_FLIP_FEATURES, toggled))
        parsed = _parse(t)
        if parsed is None:
            parts = [x for x in _SENT_SPLIT.split(t) if x]
            new = " ".join(_paraphrase_all(parts)) if "\n" not in t else "\n".join(_paraphrase_all(t.split("\n")))
            rows.append({"original": t, "rewritten": new, "status": "ok", **flips})
            continue
        opener, sents, heading, closer = parsed
        if "verbosity" in features and draws["verbosity"]:
            elab = [x for x in sents if x in s.ELABORATE]
            if elab and len(elab) < len(sents):
                sents = [x for x in sents if x not in s.ELABORATE]
                flips["verbosity"] = 1
            elif not elab:
                sents = sents + rng.sample(s.ELABORATE, 3)
                flips["verbosity"] = -1
        if "format" in features and draws["format"]:
            if heading is not None:
                heading, flips["format"] = None, 1
            else:
                heading, flips["format"] = "### Overview", -1
        if "sentiment" in features and draws["sentiment"]:
            if opener is not None or closer is not None:
                opener, closer, flips["sentiment"] = None, None, 1
            else:
                opener, closer = rng.choice(s.ENTHUSIASTIC_OPEN), rng.choice(s.ENTHUSIASTIC_CLOSE)
                flips["sentiment"] = -1
        sents = _paraphrase_all(sents)
        body = (
            (heading + "\n\n" + "\n".join(f"{i}. {x}" for i, x in enumerate(sents, 1))) if heading else " ".join(sents)
        )
        if opener is not None or closer is not None:
            body = f"{opener or rng.choice(s.ENTHUSIASTIC_OPEN)} {body}\n\n{closer or rng.choice(s.ENTHUSIASTIC_CLOSE)}"
        rows.append({"original": t, "rewritten": body, "status": "ok", **flips})
    return pd.DataFrame(rows, columns=["original", "rewritten", "status", *features])


#: how :func:`simulated_rewrite_pairs` names the planted flip features (SEAL's taxonomy where it has one)
PLANTED_FLIP_NAMES = {"sentiment": "last_response_sentiment", "format": "response_has_list", "verbosity": "verbosity"}


def simulated_rewrite_pairs(view: pd.DataFrame, *, seed: int = 0, p_flip: float = 0.25):
    """The demo's stand-in for :func:`~pluralign.seal.lm_rewrites.rewrite_pairs`, with the same result
    (:class:`~pluralign.seal.lm_rewrites.Rewrites`), so a page has one
    code path: the chosen and rejected replies of every pair of ``view`` (``chosen_rejected`` rows) are
    rewritten by :func:`simulated_rewrite` (seeds ``seed`` and ``seed + 1``), and the planted flips,
    renamed by :data:`PLANTED_FLIP_NAMES`, stand in for re-featurization. Every simulated rewrite passes
    (status "ok"), so every pair is kept. Only replies are rewritten, so ``prompts`` holds the pairs'
    prompts (score rewrites after them); :func:`~pluralign.seal.lm_rewrites.rewrite_pairs` gives ``prompts=None``
    (whole dialogues)."""
    from pluralign.seal.lm_rewrites import Rewrites

    entries = ("chosen", "rejected")
    rw = {e: simulated_rewrite(view[e].tolist(), seed=seed + k, p_flip=p_flip) for k, e in enumerate(entries)}
    n = len(view)
    status = pd.DataFrame({e: rw[e]["status"].to_numpy() for e in entries})
    return Rewrites(
        view=view.reset_index(drop=True),
        kept=np.arange(n),
        originals={e: view[e].astype(str).tolist() for e in entries},
        rewritten={e: rw[e]["rewritten"].tolist() for e in entries},
        flips={
            e: rw[e][list(SIMULATED_FLIP_FEATURES)].rename(columns=PLANTED_FLIP_NAMES).astype(float) for e in entries
        },
        status=status,
        n_pairs=int(n),
        n_kept=int(n),
        n_dropped=0,
        dropped=pd.Series(dtype=int),
        prompts=view["prompt"].astype(str).tolist(),
    )
