"""Loaders for the Hub's comparison data sets with one judgment per pair (Beyond the Binary §3.2; SEAL §2).

UltraFeedback (GPT-4's ratings of four completions, every pair compared; out of domain in Beyond the Binary),
WebGPT comparisons, OpenAI's Summarize from Feedback and Dahoas' synthetic-instruct-gptj-pairwise (in domain in
Beyond the Binary; with hh-rlhf they train SEAL's pre-D reward model). Each reads
``datasets.load_dataset(hub_id, ...)`` by default, or a local file / folder in the Hub's schema given as
``source=``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.data.checks import Filters, refuse_first, require, where
from pluralign.data.core import DataError
from pluralign.data.fields import check_text, chosen_rejected, pair_ids
from pluralign.data.io import read_source, stable_hash
from pluralign.data.registry import Loaded, annotations, canonical, register


# ---------------------------------------------------------------------------------------------
# openbmb/UltraFeedback
# ---------------------------------------------------------------------------------------------
def _score_preference(diff: np.ndarray, significant: float) -> np.ndarray:
    """Score gap → preference: 0 tie, below ``significant`` slight (±1), else ±2; negative prefers A."""
    mag = np.where(np.abs(diff) >= significant, 2, 1)
    return np.where(diff == 0, 0, np.sign(diff) * mag).astype(np.int64)


@register(
    "ultrafeedback",
    hub_id="openbmb/UltraFeedback",
    license="MIT",
    citation="Cui et al. 2023, UltraFeedback: Boosting Language Models with High-quality Feedback, arXiv:2310.01377",
    description="Four completions per instruction rated by GPT-4 on four aspects; every pair of "
    "completions becomes a comparison. Out-of-domain set of Beyond the Binary.",
    papers=("Beyond the Binary",),
)
def load_ultrafeedback(
    source=None,
    *,
    score: str = "fine-grained_score",
    significant: float = 1.0,
    on_invalid: str = "error",
    empty: str | None = None,
    **_,
) -> Loaded:
    """Rows: ``source``, ``instruction``, ``completions`` (list of ``{model, response, fine-grained_score,
    overall_score, ...}``). Every unordered pair (i < j) of completions is one comparison judged by
    ``gpt-4``; the preference is the score difference (:func:`_score_preference`, |Δ| ≥ ``significant``
    → ±2), and the scores are kept as ``likert_a`` / ``likert_b``."""
    raw, desc = read_source(source, "openbmb/UltraFeedback", split="train")
    require(raw, ["instruction", "completions"], desc)
    f = Filters(on_invalid, empty)
    rows = []
    for i, comps in enumerate(raw["completions"].tolist()):
        comps = list(comps) if comps is not None else []
        for j in range(len(comps)):
            for k in range(j + 1, len(comps)):
                rows.append((i, j, k, comps[j], comps[k]))
    if not rows:
        raise DataError("no pair of completions found", file=desc, field="completions")
    i, j, k, ca, cb = map(list, zip(*rows))
    sub = raw.iloc[i].reset_index(drop=True)

    def get(cs, fld):
        return pd.Series([c.get(fld) if isinstance(c, dict) else None for c in cs], dtype=object)

    df = sub.assign(
        _a=get(ca, "response"),
        _b=get(cb, "response"),
        _sa=pd.to_numeric(get(ca, score), errors="coerce"),
        _sb=pd.to_numeric(get(cb, score), errors="coerce"),
        _ma=get(ca, "model"),
        _mb=get(cb, "model"),
        _j=j,
        _k=k,
    )
    df = check_text(df, f, ["_a", "_b"])
    df = f.apply(
        df,
        (df["_sa"].isna() | df["_sb"].isna()).to_numpy(),
        f"completion without a numeric {score}",
        f"completions[].{score}",
    )
    ids = "ultrafeedback:" + df["_row"].astype(str) + ":" + df["_j"].astype(str) + "-" + df["_k"].astype(str)
    pairs = canonical(
        df,
        pair_id=ids,
        dataset="ultrafeedback",
        split="train",
        prompt=df["instruction"],
        response_a=df["_a"],
        response_b=df["_b"],
        metadata={
            "model_a": df["_ma"],
            "model_b": df["_mb"],
            **({"prompt_source": df["source"]} if "source" in df else {}),
        },
    )
    ann = annotations(
        ids,
        "gpt-4",
        _score_preference((df["_sb"] - df["_sa"]).to_numpy(), significant),
        likert_a=df["_sa"].to_numpy(),
        likert_b=df["_sb"].to_numpy(),
    )
    return Loaded(pairs, ann, desc, f.records)


# ---------------------------------------------------------------------------------------------
# openai/webgpt_comparisons
# ---------------------------------------------------------------------------------------------
@register(
    "webgpt",
    hub_id="openai/webgpt_comparisons",
    license="MIT",
    citation="Nakano et al. 2021, WebGPT: Browser-assisted question-answering with human feedback, arXiv:2112.09332",
    description="Questions with two browsing-assisted answers compared by a labeller on a 7-point scale.",
    papers=("SEAL", "Beyond the Binary"),
    aliases=("webgpt_comparisons", "web-gpt"),
)
def load_webgpt(source=None, *, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """Rows: ``question`` (``{full_text, ...}``), ``answer_0``, ``answer_1``, ``score_0``, ``score_1``
    (``score_1 = -score_0`` in [-1, 1], positive = that answer better). Preference from ``score_1``:
    0 tie, |s| < 0.5 slight (±1), else significant (±2). A = ``answer_0``."""
    raw, desc = read_source(source, "openai/webgpt_comparisons", split="train")
    require(raw, ["question", "answer_0", "answer_1", "score_0", "score_1"], desc)
    f = Filters(on_invalid, empty)
    raw = check_text(raw, f, ["answer_0", "answer_1"])
    q = raw["question"].map(lambda v: v.get("full_text") if isinstance(v, dict) else v)
    s0, s1 = pd.to_numeric(raw["score_0"], errors="coerce"), pd.to_numeric(raw["score_1"], errors="coerce")
    bad = (s0.isna() | s1.isna() | (s0.abs() > 1) | (s1.abs() > 1)).to_numpy()
    refuse_first(raw, bad, "score out of range [-1, 1]", "score_1")
    s = ((s1 - s0) / 2).to_numpy()
    ids = pair_ids(raw, "webgpt")
    pairs = canonical(
        raw,
        pair_id=ids,
        dataset="webgpt",
        split="train",
        prompt=q,
        response_a=raw["answer_0"],
        response_b=raw["answer_1"],
    )
    ann = annotations(ids, "webgpt-labeller", _score_preference(s, 0.5), score_a=s0.to_numpy(), score_b=s1.to_numpy())
    return Loaded(pairs, ann, desc, f.records)


# ---------------------------------------------------------------------------------------------
# openai/summarize_from_feedback
# ---------------------------------------------------------------------------------------------
@register(
    "summarize-from-feedback",
    hub_id="openai/summarize_from_feedback",
    license="MIT",
    citation="Stiennon et al. 2020, Learning to summarize with human feedback, NeurIPS 33:3008-3021",
    description="Reddit TL;DR (and CNN/DM) posts with two summaries and a labeller's choice; the same pair "
    "can carry several labellers' choices.",
    papers=("SEAL", "Beyond the Binary"),
    aliases=("summarize", "summarize_from_feedback", "oai-summarize"),
)
def load_summarize(
    source=None, *, split: str = "train", on_invalid: str = "error", empty: str | None = None, **_
) -> Loaded:
    """``comparisons`` rows: ``info`` (``{id, post, title, subreddit, article}``), ``summaries`` (two
    ``{text, policy}``), ``choice`` (0 or 1), ``worker``, ``split``, ``batch``, ``extra``
    (``{confidence}``). The prompt is ``SUBREDDIT: r/… TITLE: … POST: …`` (the article for CNN/DM).
    Rows comparing the same two summaries of the same post are one pair with one judgment per worker."""
    raw, desc = read_source(
        source, "openai/summarize_from_feedback", name="comparisons", split=split if source is None else None
    )
    require(raw, ["info", "summaries", "choice"], desc)
    f = Filters(on_invalid, empty)
    info = raw["info"].tolist()
    summ = raw["summaries"].tolist()
    for i, (inf, s) in enumerate(zip(info, summ)):
        if not isinstance(inf, dict):
            raise DataError("expected an object", file=where(raw, i)[0], row=where(raw, i)[1], field="info")
        if s is None or len(s) != 2:
            raise DataError(
                "expected exactly two summaries", file=where(raw, i)[0], row=where(raw, i)[1], field="summaries"
            )

    def prompt(inf):
        if inf.get("post"):
            return f"SUBREDDIT: r/{inf.get('subreddit') or ''}\nTITLE: {inf.get('title') or ''}\nPOST: {inf['post']}"
        return inf.get("article") or ""

    raw = raw.assign(
        _p=[prompt(x) for x in info],
        _a=[s[0].get("text") for s in summ],
        _b=[s[1].get("text") for s in summ],
        _id=[str(x.get("id")) for x in info],
    )
    raw = check_text(raw, f, ["_a", "_b"])
    choice = pd.to_numeric(raw["choice"], errors="coerce")
    bad = ~choice.isin([0, 1]).to_numpy()
    refuse_first(raw, bad, "choice {value!r} is not 0 or 1", "choice")
    key = [stable_hash(a + "\x00" + b) for a, b in zip(raw["_a"], raw["_b"])]
    ids = "summarize:" + raw["_id"] + ":" + pd.Series(key, index=raw.index)
    first = ~ids.duplicated()
    p = raw[first.to_numpy()]
    pairs = canonical(
        p,
        pair_id=ids[first],
        dataset="summarize-from-feedback",
        split=p["split"].astype(str) if "split" in p else split,
        prompt=p["_p"],
        response_a=p["_a"],
        response_b=p["_b"],
    )
    worker = raw["worker"].astype(str) if "worker" in raw else pd.Series("labeller", index=raw.index)
    conf = raw["extra"].map(lambda e: e.get("confidence") if isinstance(e, dict) else None) if "extra" in raw else None
    ann = annotations(
        ids,
        worker,
        np.where(choice.to_numpy() == 0, -2, 2),
        **({"confidence": conf.to_numpy()} if conf is not None else {}),
    )
    return Loaded(pairs, ann, desc, f.records)


# ---------------------------------------------------------------------------------------------
# Dahoas/synthetic-instruct-gptj-pairwise
# ---------------------------------------------------------------------------------------------
@register(
    "synthetic-instruct-gptj-pairwise",
    hub_id="Dahoas/synthetic-instruct-gptj-pairwise",
    license="unknown (no license stated on the Hub card)",
    citation="Alex Havrilla 2023, synthetic-instruct-gptj-pairwise (Revision cc92d8d), Hugging Face",
    description="Synthetic instructions with a chosen (GPT-J) and a rejected response.",
    papers=("SEAL", "Beyond the Binary"),
    aliases=("instructgpt-j", "gptj-pairwise"),
)
def load_gptj_pairwise(source=None, *, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """Rows: ``prompt``, ``chosen``, ``rejected``; one ±2 judgment, A/B by pair-id hash."""
    raw, desc = read_source(source, "Dahoas/synthetic-instruct-gptj-pairwise", split="train")
    require(raw, ["prompt", "chosen", "rejected"], desc)
    f = Filters(on_invalid, empty)
    raw = check_text(raw, f, ["chosen", "rejected"])
    ids = pair_ids(raw, "gptj-pairwise")
    pairs, ann = chosen_rejected(
        raw,
        dataset="synthetic-instruct-gptj-pairwise",
        pair_id=ids,
        split="train",
        prompt=raw["prompt"],
        chosen=raw["chosen"],
        rejected=raw["rejected"],
        annotator="synthetic-label",
    )
    return Loaded(pairs, ann, desc, f.records)
