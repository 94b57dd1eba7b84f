"""What the reward models of Part II score: each entry of D as a (history, reply) text pair (SEAL § 2, Fig. 1 [3]).

SEAL's code (``compare/__init__.py``, ``context.py``) splits every hh-rlhf conversation at its last
``"Assistant:"``::

    pivot = text.rfind("Assistant:")
    history, reply = text[:pivot], text[pivot:]          # the reply keeps its "Assistant:" prefix

and calls the reward model's tokenizer on ``(history, reply)`` as a sentence pair, with no truncation
(the OpenAssistant DeBERTa-v3 RMs use relative positions only and accept any length). That is
:func:`scoring_inputs`' default, ``input="seal"``, and Part II's default scoring input. Each entry is split
on its own conversation: the chosen and the rejected entry of a pair keep their own histories (they
differ in 5 pairs of the hh-rlhf harmless-base test file by the loader's split, 6 by SEAL's, whose
``rfind("Assistant:")`` also finds an ``"Assistant:"`` that follows a single newline inside a reply).

``input="prompt_reply"`` is this project's former input: the history and reply as the hh-rlhf loader
splits them (at the last ``"\\n\\nAssistant:"``, both trimmed, the reply without its prefix; each side its
own history), for reward models trained by this project on the loader's (prompt, response) pairs (the
demo's). Truncation is the reward model's (``max_length`` / ``truncation_side`` of
:func:`pluralign.rewards.load`; ``max_length: null`` = none where the model accepts the length, else the
model's maximum); :func:`count_truncated` counts the entries it cuts, for the page.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "SCORING_INPUTS",
    "SEAL_PIVOT",
    "seal_split",
    "entry_dialogues",
    "scoring_inputs",
    "count_truncated",
    "score_inputs",
    "SCORING_INPUT_NAMES",
    "truncation_rows",
    "precision_rows",
    "precision_check",
    "PRECISION_CHECK_PAIRS",
]

SCORING_INPUTS = ("seal", "prompt_reply")
"""The two scoring inputs of :func:`scoring_inputs`."""

SCORING_INPUT_NAMES = {
    "seal": 'SEAL\'s code: (history, reply) split at the last "Assistant:", the reply with its prefix',
    "prompt_reply": "this project's former input: the loader's (prompt, reply), prefix stripped",
}
"""How a page names each scoring input."""

SEAL_PIVOT = "Assistant:"
"""SEAL's ``compare/__init__.py`` splits at ``text.rfind("Assistant:")``."""


def seal_split(text: str) -> tuple[str, str]:
    """``(text[:pivot], text[pivot:])`` with ``pivot = text.rfind("Assistant:")``, exactly as SEAL's
    ``compare/__init__.py``: the history keeps its trailing whitespace, the reply its ``"Assistant:"`` prefix,
    and ``history + reply == text``. A text without ``"Assistant:"`` is refused (SEAL's ``rfind`` would give
    −1 and cut off the last character)."""
    if not isinstance(text, str):
        raise TypeError(f"seal_split: text must be a string, got {type(text).__name__}")
    pivot = text.rfind(SEAL_PIVOT)
    if pivot < 0:
        raise ValueError(f"seal_split: no 'Assistant:' in the text {text[:80]!r}")
    return text[:pivot], text[pivot:]


def _view(pairs) -> pd.DataFrame:
    """The chosen / rejected view (:func:`~pluralign.seal.pairs.chosen_rejected`) of ``pairs``:
    :class:`~pluralign.data.PreferenceData`, :class:`~pluralign.seal.pairs.AlignmentPairs` or its table."""
    from pluralign.seal.pairs import chosen_rejected

    if hasattr(pairs, "pairs") and hasattr(pairs, "annotations"):
        return chosen_rejected(pairs).table
    if hasattr(pairs, "table") and isinstance(pairs.table, pd.DataFrame):
        return pairs.table
    if isinstance(pairs, pd.DataFrame):
        miss = [c for c in ("pair_id", "prompt", "chosen", "rejected") if c not in pairs.columns]
        if miss:
            raise ValueError(
                f"scoring_inputs: the pairs table lacks column(s) {miss} (expected seal.chosen_rejected's "
                f"table; columns: {list(pairs.columns)})"
            )
        return pairs
    raise TypeError(f"scoring_inputs: expected PreferenceData, AlignmentPairs or its table, got {type(pairs).__name__}")


def entry_dialogues(view: pd.DataFrame, entry: str) -> list[str]:
    """The whole conversation ending in the chosen (``entry="chosen"``) or rejected reply
    (:func:`~pluralign.seal.pairs.entry_texts`): the original dialogue where the data keep it (hh-rlhf:
    ``dialogue_chosen`` / ``dialogue_rejected``, each side its own history), else the prompt and reply
    written out as one."""
    from pluralign.seal.pairs import entry_texts

    return entry_texts(view, entry)


def scoring_inputs(pairs, input: str = "seal") -> pd.DataFrame:
    """The (history, reply) text pair a reward model scores for every entry of D (SEAL § 2; its code's
    ``compare/__init__.py``), two rows per pair (chosen, then rejected), in the pairs' order.

    ``pairs``: :class:`~pluralign.data.PreferenceData` (its chosen / rejected view, majority ties dropped),
    :class:`~pluralign.seal.pairs.AlignmentPairs` or its table. ``input="seal"`` (default): each entry's
    conversation (:func:`entry_dialogues`: hh-rlhf's original dialogue) split by :func:`seal_split`, so
    ``history + reply`` is the conversation and ``reply`` starts with ``"Assistant:"``;
    ``input="prompt_reply"``: the loader's split of the same conversation (history before the last
    ``"\\n\\nAssistant:"`` and the reply, trimmed, prefix stripped; an empty reply as the loader's
    placeholder), or the prompt and response where the data keep no dialogue.

    Returns a DataFrame with ``pair_id``, ``side`` ("chosen" / "rejected"), ``history``, ``reply``.
    """
    if input not in SCORING_INPUTS:
        raise ValueError(f"scoring_inputs: input must be one of {SCORING_INPUTS}, got {input!r}")
    view = _view(pairs)
    n = len(view)
    hist, reply = {}, {}
    for e in ("chosen", "rejected"):
        if input == "seal":
            parts = [seal_split(t) for t in entry_dialogues(view, e)]
            hist[e], reply[e] = [h for h, _ in parts], [r for _, r in parts]
        elif f"dialogue_{e}" in view.columns:
            from pluralign.data.hub import split_dialogue

            h, _, _ = split_dialogue(view[f"dialogue_{e}"].astype(str).reset_index(drop=True))
            hist[e], reply[e] = h.tolist(), view[e].astype(str).tolist()
        else:
            hist[e], reply[e] = view["prompt"].fillna("").astype(str).tolist(), view[e].astype(str).tolist()
    ids = view["pair_id"].to_numpy()
    return pd.DataFrame(
        {
            "pair_id": np.repeat(ids, 2),
            "side": np.tile(["chosen", "rejected"], n),
            "history": [x for i in range(n) for x in (hist["chosen"][i], hist["rejected"][i])],
            "reply": [x for i in range(n) for x in (reply["chosen"][i], reply["rejected"][i])],
        }
    )


def _tokenizer_limit(rm):
    """(tokenizer, max_length, how) of a reward model's truncation, or None where it cannot be read."""
    encoder = getattr(rm, "encoder", None)
    if encoder is not None and hasattr(encoder, "tokenizer"):  # frozen encoder: prompt and reply embedded apart
        return encoder.tokenizer, encoder.max_length, "separately"
    if hasattr(rm, "tokenizer") and hasattr(rm, "max_length"):
        return rm.tokenizer, rm.max_length, "pair"
    return None


def count_truncated(rm, inputs: pd.DataFrame | Sequence[tuple[str, str]]) -> dict:
    """How many entries ``rm`` truncates when it scores ``inputs`` (:func:`scoring_inputs`, or (history,
    reply) tuples): a sequence-classification RM tokenizes the pair together and cuts it at its
    ``max_length`` (None: it accepts any length, nothing is cut); the frozen-encoder RM embeds history and
    reply apart, each cut at the encoder's maximum. Returns ``{"n_entries", "n_truncated", "max_length",
    "longest", "readable"}`` (``readable`` False, ``n_truncated`` and ``longest`` None where the model's
    tokenizer cannot be read)."""
    if isinstance(inputs, pd.DataFrame):
        pairs = list(zip(inputs["history"].astype(str), inputs["reply"].astype(str)))
    else:
        pairs = [(str(h), str(r)) for h, r in inputs]
    out = {
        "n_entries": len(pairs),
        "n_truncated": None,
        "max_length": getattr(rm, "max_length", None),
        "longest": None,
        "readable": False,
    }
    lim = _tokenizer_limit(rm)
    if lim is None:
        return out
    out["readable"] = True
    if not pairs:
        out["n_truncated"] = 0
        return out
    tok, max_length, how = lim
    out["max_length"] = max_length
    if how == "pair":
        lengths = np.asarray(
            [len(x) for x in tok([h for h, _ in pairs], [r for _, r in pairs], truncation=False)["input_ids"]]
        )
    else:
        h = [len(x) for x in tok([h for h, _ in pairs], truncation=False)["input_ids"]]
        r = [len(x) for x in tok([r for _, r in pairs], truncation=False)["input_ids"]]
        lengths = np.maximum(np.asarray(h), np.asarray(r))
    out["longest"] = int(lengths.max())
    out["n_truncated"] = 0 if max_length is None else int((lengths > max_length).sum())
    return out


def score_inputs(rm, inputs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Rewards of the chosen and rejected entries, one per pair in ``inputs``' order (:func:`scoring_inputs`),
    ``rm.score([(history, reply), ...])`` (a sentence pair for a sequence-classification RM)."""
    r = np.asarray(
        rm.score(list(zip(inputs["history"].astype(str), inputs["reply"].astype(str))), progress=False), dtype=float
    )
    side = inputs["side"].to_numpy()
    if not ((side[0::2] == "chosen").all() and (side[1::2] == "rejected").all()):
        raise ValueError("score_inputs: inputs must alternate chosen / rejected rows (seal.scoring_inputs)")
    return r[0::2], r[1::2]


def truncation_rows(label: str, rm, inputs: pd.DataFrame) -> tuple[dict, object]:
    """The rows of the rewards page's scoring table for one RM (``label``, e.g. "pre-D RM"): its maximum input,
    the entries it truncated and its longest input (:func:`count_truncated`), each beside SEAL's; and the count of
    truncated entries for the prose ("—" where the model's tokenizer cannot be read)."""
    c = count_truncated(rm, inputs)
    unreadable = "— (the model's tokenizer cannot be read)"
    mx = (
        unreadable
        if not c["readable"]
        else "none (the model accepts any length)"
        if c["max_length"] is None
        else c["max_length"]
    )
    rows = {
        f"{label}: maximum input (tokens)": (mx, "none (DeBERTa-v3, relative positions)"),
        f"{label}: entries truncated": (c["n_truncated"] if c["n_truncated"] is not None else unreadable, 0),
        f"{label}: longest input (tokens)": (c["longest"] if c["longest"] is not None else "—", "not reported"),
    }
    return rows, c["n_truncated"] if c["n_truncated"] is not None else "—"


#: pairs on which a fast precision's rewards are compared with fp32's
PRECISION_CHECK_PAIRS = 128


def precision_check(rm, inputs: pd.DataFrame):
    """The precision ``rm`` computes in, and where it is not fp32 its measured deviation from the same weights in
    fp32 on the first :data:`PRECISION_CHECK_PAIRS` pairs of the scoring input
    (:func:`pluralign.rewards.speed.precision_deviation`; None where it is fp32 or no fp32 copy exists)."""
    from pluralign.rewards.speed import fp32_twin, precision_deviation

    prec = getattr(rm, "precision", None)
    if not isinstance(prec, str):
        return "— (not a pluralign reward model)", None
    if prec == "fp32":
        return prec, None
    exact = fp32_twin(rm)
    if exact is None:
        return f"{prec} (quantized weights: no fp32 copy to compare)", None
    entries = list(zip(inputs["history"].astype(str), inputs["reply"].astype(str)))
    return prec, precision_deviation(rm, exact, entries, n_pairs=PRECISION_CHECK_PAIRS)


def precision_rows(label: str, rm, inputs: pd.DataFrame) -> tuple[dict, str, str]:
    """The precision rows of the scoring table for one RM (:func:`precision_check`): its precision and, where not
    fp32, the largest reward difference and the pairs whose sign of r_chosen − r_rejected changes against fp32;
    returns ``(rows, precision, note)`` (``note`` "" where it is fp32)."""
    prec, dev = precision_check(rm, inputs)
    rows = {f"{label}: precision": (prec, "not reported")}
    if dev is None:
        return rows, prec, ""
    rows[f"{label}: max |Δr| vs fp32"] = (dev.values["max_abs_diff"], "—")
    rows[f"{label}: pairs whose sign of r_chosen − r_rejected changes vs fp32"] = (
        f"{100 * dev.values['sign_flip_share']:.1f} % of {dev.values['n_pairs']}",
        "—",
    )
    return rows, prec, f"The {label.removesuffix(' RM')} RM scored in {prec}: " + dev.note.split("; ", 1)[-1]
