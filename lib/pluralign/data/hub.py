"""Loaders for the papers' data sets that live on the Hugging Face Hub: the multi-annotator ones and hh-rlhf.

Each reads ``datasets.load_dataset(hub_id, ...)`` by default, or a local file / folder given as
``source=`` in the same schema as the Hub's (JSON Lines, JSON, Parquet, ``.jsonl.gz``). Which paper
uses which: SEAL §2 (Anthropic/hh-rlhf; web-gpt, summarize-from-feedback and
synthetic-instruct-gptj-pairwise train the pre-D reward model), Diverging Preferences §2 (MultiPref,
HelpSteer2 with its disagreements), Beyond the Binary §3.2 (WebGPT, HH-RLHF, OpenAI Summarize,
InstructGPT-J in domain; PRISM and UltraFeedback out of domain). The single-judgment comparison sets (UltraFeedback,
WebGPT, Summarize from Feedback, synthetic-instruct-gptj-pairwise) are in :mod:`pluralign.data.hub_comparisons`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.data.checks import Filters, empty_text, not_text, refuse_first, require, where
from pluralign.data.core import DataError
from pluralign.data.fields import check_text, check_unique, chosen_rejected, map_labels, pair_ids, split_column
from pluralign.data.io import read_source, swap_mask
from pluralign.data.registry import Loaded, annotations, canonical, register

ASSISTANT = "\n\nAssistant:"


# ---------------------------------------------------------------------------------------------
# Anthropic/hh-rlhf
# ---------------------------------------------------------------------------------------------
def split_dialogue(texts: pd.Series) -> tuple[pd.Series, pd.Series, np.ndarray]:
    """Split each dialogue at its LAST ``"\\n\\nAssistant:"`` into (history, final reply), as SEAL §2
    does with Anthropic/hh-rlhf (vectorised: Arrow's reverse ``split_pattern``). Returns (history,
    reply, found), whitespace-trimmed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array(texts) if not isinstance(texts, (pa.Array, pa.ChunkedArray)) else texts
    found = pc.match_substring(arr, ASSISTANT)
    parts = pc.split_pattern(
        pc.if_else(found, arr, pa.scalar(ASSISTANT, arr.type)), pattern=ASSISTANT, max_splits=1, reverse=True
    )  # exactly two parts per row now
    flat = pc.list_flatten(parts)
    n = len(arr)
    hist = pc.utf8_trim_whitespace(flat.take(pa.array(np.arange(0, 2 * n, 2))))
    reply = pc.utf8_trim_whitespace(flat.take(pa.array(np.arange(1, 2 * n, 2))))
    found = found.to_numpy(zero_copy_only=False) if n else np.zeros(0, bool)
    idx = texts.index if isinstance(texts, pd.Series) else None
    return (pd.Series(hist.to_pandas(), index=idx), pd.Series(reply.to_pandas(), index=idx), found)


@register(
    "hh-rlhf",
    hub_id="Anthropic/hh-rlhf",
    license="MIT",
    citation="Bai et al. 2022, Training a Helpful and Harmless Assistant with Reinforcement Learning from "
    "Human Feedback, arXiv:2204.05862",
    description="Dialogues with a chosen and a rejected final assistant reply; one crowdworker label each. "
    "SEAL's alignment data set D (N = 160,800 training pairs).",
    papers=("SEAL", "Beyond the Binary"),
    aliases=("hh", "anthropic-hh"),
)
def load_hh_rlhf(
    source=None,
    *,
    data_dir: str | None = None,
    split: str | None = None,
    on_invalid: str = "error",
    empty: str | None = "placeholder",
    **_,
) -> Loaded:
    """``{"chosen": dialogue, "rejected": dialogue}`` rows (``data_dir``: ``harmless-base``,
    ``helpful-base``, ``helpful-online``, ``helpful-rejection-sampled``; ``split``: ``train``/``test``).

    Every row is kept, as SEAL kept it (SEAL's code scores each entry of D with its own split,
    ``compare/__init__.py``: ``pivot = text.rfind("Assistant:")``). Each dialogue is split at its last
    ``"\\n\\nAssistant:"`` (SEAL §2): ``prompt`` is the chosen dialogue's history, the responses the two final
    replies. Each side keeps its own conversation: ``dialogue_a`` / ``dialogue_b`` are the original dialogues
    ending in response A / B, unchanged (:func:`pluralign.seal.scoring_inputs` splits them as SEAL's code
    does). A pair whose chosen and rejected histories differ is kept and flagged (``history_differs``; the
    real harmless-base test file has 5 among its 2,312 rows, source rows 1255, 1689, 1951, 1953, 2037, i.e.
    0-based 1254, 1688, 1950, 1952, 2036); analyses that need one shared prompt use the chosen side's
    (``prompt``) and say so. An empty final reply (4 chosen replies in that file) was judged by the
    crowdworker as such: by default (``empty="placeholder"``) it is kept as ``"[empty response]"`` and
    counted in ``meta['filters']``; ``empty="error"`` / ``"drop"`` refuse or drop it (counted). A dialogue
    without an ``"\\n\\nAssistant:"`` turn is bad input (``on_invalid="drop"`` drops it, counted)."""
    raw, desc = read_source(source, "Anthropic/hh-rlhf", data_dir=data_dir, split=split if source is None else None)
    require(raw, ["chosen", "rejected"], desc)
    f = Filters(on_invalid, empty)
    raw = check_text(raw, f, ["chosen", "rejected"])
    hc, rc, okc = split_dialogue(raw["chosen"])
    hr, rr, okr = split_dialogue(raw["rejected"])
    raw = raw.assign(hc=hc, rc=rc, hr=hr, rr=rr, okc=okc, okr=okr)
    raw = f.apply(raw, ~raw["okc"].to_numpy(), "no '\\n\\nAssistant:' turn in the dialogue", "chosen")
    raw = f.apply(raw, ~raw["okr"].to_numpy(), "no '\\n\\nAssistant:' turn in the dialogue", "rejected")
    raw = f.empty_text(raw, "rc", "empty final assistant reply", "chosen")
    raw = f.empty_text(raw, "rr", "empty final assistant reply", "rejected")
    ids = pair_ids(raw, "hh-rlhf" + (f":{data_dir}" if data_dir else ""))
    swap = pd.Series(swap_mask(ids))  # the same A/B assignment chosen_rejected makes
    dc, dr = raw["chosen"].reset_index(drop=True), raw["rejected"].reset_index(drop=True)
    differs = (raw["hc"] != raw["hr"]).to_numpy()
    pairs, ann = chosen_rejected(
        raw,
        dataset="hh-rlhf",
        pair_id=ids,
        split=split_column(raw, split),
        prompt=raw["hc"],
        chosen=raw["rc"],
        rejected=raw["rr"],
        annotator="hh-rlhf-crowdworker",
        metadata={"dialogue_a": dc.where(~swap, dr), "dialogue_b": dr.where(~swap, dc), "history_differs": differs},
    )
    f.note(
        raw,
        differs,
        "chosen and rejected do not share the history before the last '\\n\\nAssistant:': "
        "kept, flagged in history_differs (prompt = the chosen side's history)",
        "rejected",
    )
    return Loaded(pairs, ann, desc, f.records)


# ---------------------------------------------------------------------------------------------
# allenai/multipref
# ---------------------------------------------------------------------------------------------
MULTIPREF_LABELS = {
    "A-is-clearly-better": -2,
    "A-is-slightly-better": -1,
    "Tie": 0,
    "B-is-slightly-better": 1,
    "B-is-clearly-better": 2,
}


@register(
    "multipref",
    hub_id="allenai/multipref",
    license="ODC-BY",
    citation="Miranda et al. 2024, Hybrid Preferences: Learning to Route Instances for Human vs. AI "
    "Feedback, arXiv:2410.19133 (MultiPref)",
    description="10k prompts with two completions, each judged by two normal crowdworkers and two domain "
    "experts: A/B/tie with slight or clear strength (Diverging Preferences §2).",
    papers=("Diverging Preferences",),
)
def load_multipref(
    source=None,
    *,
    split: str = "train",
    annotators: str = "all",
    aspect: str = "overall",
    on_invalid: str = "error",
    empty: str | None = None,
    **_,
) -> Loaded:
    """MultiPref rows: ``comparison_id``, ``text`` (prompt), ``completion_a``, ``completion_b``,
    ``model_a``, ``model_b``, ``source``, ``category``, ``normal_worker_annotations`` and
    ``expert_worker_annotations`` (lists of dicts with ``evaluator`` and ``<aspect>_pref`` in
    ``A-is-clearly-better`` … ``B-is-clearly-better``). ``aspect``: ``overall`` (default), ``helpful``,
    ``truthful``, ``harmless``. ``annotators``: ``all`` | ``normal`` | ``expert``.
    Clearly better → ±2 (significant), slightly better → ±1, Tie → 0 (Diverging Preferences §2)."""
    raw, desc = read_source(source, "allenai/multipref", split=split if source is None else None)
    groups = {"all": ["normal", "expert"], "normal": ["normal"], "expert": ["expert"]}[annotators]
    text_col = "text" if "text" in raw.columns or "prompt" not in raw.columns else "prompt"
    require(
        raw,
        ["comparison_id", text_col, "completion_a", "completion_b"] + [f"{g}_worker_annotations" for g in groups],
        desc,
    )
    f = Filters(on_invalid, empty)
    raw = check_text(raw, f, ["completion_a", "completion_b"])
    ids = "multipref:" + raw["comparison_id"].astype(str)
    check_unique(raw, ids, "comparison_id")
    key = f"{aspect}_pref"
    e = _multipref_judgments(raw, groups, key)
    sub = raw.iloc[e["i"].to_numpy()].reset_index(drop=True)
    pref, bad = map_labels(
        sub, e["label"].reset_index(drop=True), MULTIPREF_LABELS, f"{{normal,expert}}_worker_annotations[].{key}", f
    )
    f.count(sub, bad, f"unknown {key} label", key)  # on_invalid="drop": drop the judgment, count it
    ev = e["evaluator"].astype(object).where(e["evaluator"].notna(), e["group"] + "-" + (e["k"] + 1).astype(str))
    ann = annotations(
        ids.iloc[e["i"].to_numpy()][~bad].to_numpy(),
        ev[~bad].astype(str).to_numpy(),
        pref[~bad].to_numpy(),
        annotator_group=e["group"][~bad].to_numpy(),
    )
    meta = {c: raw[c] for c in ("model_a", "model_b", "source", "category") if c in raw}
    pairs = canonical(
        raw,
        pair_id=ids,
        dataset="multipref",
        split=split_column(raw, split),
        prompt=raw[text_col],
        response_a=raw["completion_a"],
        response_b=raw["completion_b"],
        metadata={("prompt_source" if k == "source" else k): v for k, v in meta.items()},
    )
    return Loaded(pairs, ann, desc, f.records)


def _multipref_judgments(raw: pd.DataFrame, groups: list[str], key: str) -> pd.DataFrame:
    """One row per judgment of the annotator ``groups`` (``normal``, ``expert``): the pair's row ``i``, the
    judgment's place ``k`` within its pair and group, its ``label`` (the ``key`` field, e.g. ``overall_pref``),
    its ``evaluator`` and its ``group``; a ``<group>_worker_annotations`` cell that is not a list is refused."""
    frames = []
    for g in groups:
        col = f"{g}_worker_annotations"
        lst = raw[col].map(lambda v: list(v) if v is not None and not isinstance(v, (str, float)) else None)
        bad = lst.isna().to_numpy()
        refuse_first(raw, bad, "annotations must be a list of objects", col)
        e = pd.DataFrame({"i": np.arange(len(raw)), "a": lst}).explode("a", ignore_index=True).dropna(subset=["a"])
        e["k"] = e.groupby("i").cumcount()
        e["label"] = [d.get(key) if isinstance(d, dict) else None for d in e["a"]]
        e["evaluator"] = [d.get("evaluator") if isinstance(d, dict) else None for d in e["a"]]
        e["group"] = g
        frames.append(e)
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# nvidia/HelpSteer2 (+ disagreements)
# ---------------------------------------------------------------------------------------------
def likert_preference(likert_a, likert_b) -> np.ndarray:
    """Diverging Preferences §2: from two per-response Likert scores, a difference of 0 is a tie, 1 a
    slight preference (±1) and ≥ 2 a significant one (±2); negative prefers A."""
    return np.clip(np.asarray(likert_b, dtype=np.int64) - np.asarray(likert_a, dtype=np.int64), -2, 2)


def _consecutive_pairs(raw: pd.DataFrame, f: Filters) -> tuple[pd.DataFrame, np.ndarray]:
    """HelpSteer2's consecutive responses to the same prompt form a pair: (rows kept, whether each is its pair's
    first response). Paired BEFORE any bad response is dropped, so a dropped response takes its partner with it
    under its own reason (not "unpaired"), and never shifts the pairing of the responses after it; a prompt's
    odd last response is dropped and counted."""
    new_prompt = raw["prompt"].ne(raw["prompt"].shift()).to_numpy()
    block = np.cumsum(new_prompt)
    pos = pd.Series(np.arange(len(raw))).groupby(block).cumcount().to_numpy()
    size = pd.Series(block).map(pd.Series(block).value_counts()).to_numpy()
    odd = (pos == size - 1) & (size % 2 == 1)
    if odd.any():
        f.count(raw, odd, "unpaired response (odd number of responses for its prompt)", "prompt")
        raw, pos = raw.loc[~odd].reset_index(drop=True), pos[~odd]
    first = pos % 2 == 0
    if f.empty == "placeholder":
        raw = f.text_type(raw, "response")
        return check_text(raw, f, ["response"]), first
    pair = np.cumsum(first) - 1  # the pair each row belongs to
    for what, test in (("not text", not_text), ("empty", empty_text)):
        bad = test(raw["response"])
        if not bad.any():
            continue
        if f.empty != "drop" and not (what == "not text" and f.on_invalid == "drop"):
            check_text(raw, f, ["response"])  # raises, naming the row and the option that drops or keeps it
        gone = np.isin(pair, pair[bad])
        reason = (
            f"{'empty text' if what == 'empty' else 'not text'} in a response: its pair is dropped (both responses)"
        )
        f.count(raw, gone, reason, "response", rows=bad)
        raw, first, pair = raw.loc[~gone].reset_index(drop=True), first[~gone], pair[~gone]
    return raw, first


def _likert_scores(lists) -> np.ndarray:
    """Every annotator's score of ``lists`` (one list per response) as floats; a truth value is not a Likert
    score (NaN)."""
    return pd.to_numeric(
        pd.Series([None if isinstance(v, (bool, np.bool_)) else v for x in lists for v in x], dtype=object),
        errors="coerce",
    ).to_numpy(dtype=float)


def _annotator_scores(ra: pd.DataFrame, rb: pd.DataFrame, attribute: str):
    """Each annotator's scores of the first and second responses (``la``, ``lb``, flat), the number of annotators
    per pair ``n`` and the pair each score belongs to ``owner``; unequal counts or a score outside 0-5 is bad input
    (row and field named)."""
    as_list = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] for v in ra[attribute].tolist()]
    bs_list = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] for v in rb[attribute].tolist()]
    for k, (x, y) in enumerate(zip(as_list, bs_list)):
        if len(x) != len(y):
            file, row = where(rb, k)
            raise DataError(
                f"{len(x)} annotator scores for the first response but {len(y)} for the second",
                file=file,
                row=row,
                field=attribute,
            )
    n = np.fromiter((len(x) for x in as_list), dtype=np.int64, count=len(as_list))
    la, lb = _likert_scores(as_list), _likert_scores(bs_list)
    owner = np.repeat(np.arange(len(ra)), n)
    for arr, frame, lists in ((la, ra, as_list), (lb, rb, bs_list)):
        badv = np.isnan(arr) | (arr < 0) | (arr > 5) | (arr != np.round(arr))
        if badv.any():
            j = int(np.flatnonzero(badv)[0])
            file, row = where(frame, int(owner[j]))
            v = [v for x in lists for v in x][j]
            shown = (
                str(v).lower()
                if isinstance(v, (bool, np.bool_))
                else f"{float(arr[j]):g}"
                if arr[j] == arr[j]
                else repr(v)
            )
            raise DataError(
                f"Likert score {shown} out of range (an integer 0-5 expected)", file=file, row=row, field=attribute
            )
    return la, lb, n, owner


@register(
    "helpsteer2",
    hub_id="nvidia/HelpSteer2",
    license="CC-BY-4.0",
    citation="Wang et al. 2024, HelpSteer2: Open-source dataset for training top-performing reward models, "
    "arXiv:2406.08673; individual annotations released with Zhang et al. 2024, Diverging "
    "Preferences, arXiv:2410.14632",
    description="Two responses per prompt, each rated for overall helpfulness on a Likert scale by 3-5 "
    "annotators; the `disagreements` folder keeps every annotator's score.",
    papers=("Diverging Preferences",),
    aliases=("helpsteer2-disagreements",),
)
def load_helpsteer2(
    source=None,
    *,
    subset: str = "disagreements",
    split: str = "train",
    attribute: str = "helpfulness",
    on_invalid: str = "error",
    empty: str | None = None,
    **_,
) -> Loaded:
    """HelpSteer2 rows are single responses: ``prompt``, ``response``, ``helpfulness`` (and
    ``correctness``, ``coherence``, ``complexity``, ``verbosity``); the two responses to a prompt are
    consecutive rows. In ``disagreements/`` each score is a list, one entry per annotator (the same
    annotators rate both responses); in the main set it is one (aggregated) integer.

    Per annotator k: ``likert_a``, ``likert_b`` = her scores of the two responses, and the preference
    is their difference as in :func:`likert_preference`. ``subset``: ``disagreements`` (default) or
    ``main``. A prompt with an odd number of responses leaves one unpaired: dropped and counted."""
    hub_kw = {"data_dir": "disagreements"} if subset == "disagreements" else {"split": split}
    raw, desc = read_source(source, "nvidia/HelpSteer2", **(hub_kw if source is None else {}))
    require(raw, ["prompt", "response", attribute], desc)
    f = Filters(on_invalid, empty)
    raw = f.text_type(raw, "prompt")
    raw, first = _consecutive_pairs(raw, f)
    ra, rb = raw.loc[first].reset_index(drop=True), raw.loc[~first].reset_index(drop=True)
    ids = "helpsteer2:" + (ra["_part"].astype(str) + ":" if "_part" in ra else "") + ra["_row"].astype(str)
    la, lb, n, owner = _annotator_scores(ra, rb, attribute)
    k = np.concatenate([np.arange(m) for m in n]) if len(n) else np.array([], dtype=np.int64)
    single = bool(len(n)) and n.max() == 1
    ann_ids = np.where(single, "helpsteer2-mean", np.char.add("annotator", (k + 1).astype(str)))
    ann = annotations(
        ids.to_numpy()[owner],
        ann_ids,
        likert_preference(la, lb),
        likert_a=la.astype(np.int64),
        likert_b=lb.astype(np.int64),
    )
    pairs = canonical(
        ra,
        pair_id=ids,
        dataset="helpsteer2",
        split=split_column(ra, None if subset == "disagreements" else split),
        prompt=ra["prompt"],
        response_a=ra["response"],
        response_b=rb["response"],
        metadata={"subset": subset},
    )
    return Loaded(pairs, ann, desc, f.records)


# ---------------------------------------------------------------------------------------------
# HannahKirk/prism-alignment
# ---------------------------------------------------------------------------------------------
@register(
    "prism",
    hub_id="HannahKirk/prism-alignment",
    license="CC-BY-NC-4.0",
    citation="Kirk et al. 2024, The PRISM Alignment Project, arXiv:2404.16019",
    description="Conversations where each participant rates several model replies per turn (1-100) and "
    "chooses one; one participant per comparison. Out-of-domain set of Beyond the Binary.",
    papers=("Beyond the Binary",),
    aliases=("prism-alignment",),
)
def load_prism(source=None, *, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """PRISM ``utterances`` rows: ``utterance_id``, ``conversation_id``, ``turn``, ``user_id``,
    ``user_prompt``, ``model_response``, ``model_name``, ``score`` (1-100), ``if_chosen``. Within each
    (conversation, turn) the chosen reply is paired with every other reply; the participant's choice is
    a ±2 judgment (A/B order by pair-id hash), and both ratings are kept as ``score_a`` / ``score_b``."""
    raw, desc = read_source(source, "HannahKirk/prism-alignment", name="utterances", split="train")
    require(raw, ["conversation_id", "turn", "user_id", "user_prompt", "model_response", "if_chosen"], desc)
    f = Filters(on_invalid, empty)
    raw = check_text(raw, f, ["model_response"])
    raw = raw.assign(
        _uid=raw["utterance_id"].astype(str) if "utterance_id" in raw else raw["_row"].astype(str),
        _chosen=raw["if_chosen"].astype(str).str.lower().isin(["true", "1"]),
        _score=pd.to_numeric(raw.get("score", pd.Series(np.nan, index=raw.index)), errors="coerce"),
    )
    key = ["conversation_id", "turn"]
    n_chosen = raw.groupby(key)["_chosen"].transform("sum").to_numpy()
    raw = f.apply(raw, n_chosen == 0, "turn without a chosen reply", "if_chosen", always_drop=True)
    ch = raw[raw["_chosen"]].drop_duplicates(key)
    other = raw[~raw["_chosen"]]
    m = other.merge(ch, on=key, suffixes=("_r", "_c"))
    raw_m = pd.DataFrame({"_file": m["_file_r"], "_row": m["_row_r"]})
    ids = (
        "prism:"
        + m["conversation_id"].astype(str)
        + ":"
        + m["turn"].astype(str)
        + ":"
        + m["_uid_c"]
        + "-"
        + m["_uid_r"]
    )
    pairs, ann = chosen_rejected(
        raw_m,
        dataset="prism",
        pair_id=ids,
        split="train",
        prompt=m["user_prompt_c"],
        chosen=m["model_response_c"],
        rejected=m["model_response_r"],
        annotator=m["user_id_c"].astype(str).to_numpy(),
        metadata={"conversation_id": m["conversation_id"], "turn": m["turn"]},
    )
    swap = pairs["chosen"].to_numpy() == "B"
    ann["score_a"] = np.where(swap, m["_score_r"], m["_score_c"])
    ann["score_b"] = np.where(swap, m["_score_c"], m["_score_r"])
    return Loaded(pairs, ann, desc, f.records)
