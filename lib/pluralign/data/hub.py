"""Loaders for the papers' data sets that live on the Hugging Face Hub.

Each reads ``datasets.load_dataset(hub_id, ...)`` by default, or a local file / folder given as
``source=`` in the same schema as the Hub's (JSON Lines, JSON, Parquet, ``.jsonl.gz``). Which paper
uses which: SEAL §2 (Anthropic/hh-rlhf; web-gpt, summarize-from-feedback and
synthetic-instruct-gptj-pairwise train the pre-D reward model), Diverging Preferences §2 (MultiPref,
HelpSteer2 with its disagreements), Beyond the Binary §3.2 (WebGPT, HH-RLHF, OpenAI Summarize,
InstructGPT-J in domain; PRISM and UltraFeedback out of domain).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.data.core import DataError
from pluralign.data.io import Filters, empty_text, not_text, read_source, require, stable_hash, swap_mask, where
from pluralign.data.registry import Loaded, annotations, canonical, register

ASSISTANT = "\n\nAssistant:"


# ---------------------------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------------------------
def _ids(raw: pd.DataFrame, prefix: str) -> pd.Series:
    """Stable pair ids from the source position: ``prefix:<file or split>:<row>`` (row = 1-based line
    of a JSON Lines file, or record number)."""
    if "_part" in raw:
        part = raw["_part"].astype(str)
    elif "_split" in raw:
        part = raw["_split"].astype(str)
    else:
        name = str(raw["_file"].iat[0]) if len(raw) else ""
        part = name.rsplit("/", 1)[-1].split(".", 1)[0]
    return prefix + ":" + part + ":" + raw["_row"].astype(str)


def _split_col(raw: pd.DataFrame, split: str | None) -> pd.Series | str:
    if "_split" in raw:
        return raw["_split"].astype(str)
    if split:
        return split

    def guess(path: str) -> str:  # from the file name, not its folders
        name = path.rsplit("/", 1)[-1].lower()
        return next(
            (v for k, v in (("test", "test"), ("valid", "validation"), ("train", "train")) if k in name), "train"
        )

    files = raw["_file"].astype(str)
    return files.map({f: guess(f) for f in files.unique()})


def check_unique(raw: pd.DataFrame, ids: pd.Series, field: str) -> None:
    dup = ids.duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        file, row = where(raw, i)
        first = int(np.flatnonzero((ids == ids.iat[i]).to_numpy())[0])
        raise DataError(
            f"duplicate pair id {ids.iat[i]!r} (first seen in row {where(raw, first)[1]})",
            file=file,
            row=row,
            field=field,
        )


def check_text(raw: pd.DataFrame, f: Filters, fields) -> pd.DataFrame:
    for fld in fields:
        raw = f.empty_text(raw, fld)
    return raw


def _series(v) -> pd.Series:
    return v.reset_index(drop=True) if isinstance(v, pd.Series) else pd.Series(v)


def chosen_rejected(
    raw: pd.DataFrame,
    *,
    dataset: str,
    pair_id: pd.Series,
    split,
    prompt: pd.Series,
    chosen: pd.Series,
    rejected: pd.Series,
    annotator,
    metadata: dict | None = None,
):
    """Chosen/rejected → A/B (deterministic, balanced by :func:`swap_mask` of the pair id) and one ±2
    judgment per pair (a chosen/rejected label carries no strength, so it counts as a significant one)."""
    swap = swap_mask(pair_id)
    chosen, rejected = _series(chosen), _series(rejected)
    keep = pd.Series(~swap)
    a = chosen.where(keep, rejected)
    b = rejected.where(keep, chosen)
    pairs = canonical(
        raw,
        pair_id=pair_id,
        dataset=dataset,
        split=split,
        prompt=prompt,
        response_a=a,
        response_b=b,
        metadata={**(metadata or {}), "chosen": np.where(swap, "B", "A")},
    )
    ann = annotations(pair_id, annotator, np.where(swap, 2, -2))
    return pairs, ann


def _label_key(v):
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v)).lower()
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def map_labels(raw: pd.DataFrame, values: pd.Series, mapping: dict, field: str, f: Filters):
    """Source label → preference; an unknown value is bad input (row and field named)."""
    keyed = values.map(_label_key)
    table = {_label_key(k): int(v) for k, v in mapping.items()}
    pref = keyed.map(table)
    bad = pref.isna().to_numpy()
    if bad.any() and f.on_invalid == "error":
        i = int(np.flatnonzero(bad)[0])
        file, row = where(raw, i)
        raise DataError(
            f"unknown label value {values.iat[i]!r} (known: {sorted(table)})", file=file, row=row, field=field
        )
    return pref, bad


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
    aliases=("Anthropic/hh-rlhf", "hh", "anthropic-hh"),
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
    ids = _ids(raw, "hh-rlhf" + (f":{data_dir}" if data_dir else ""))
    swap = pd.Series(swap_mask(ids))  # the same A/B assignment chosen_rejected makes
    dc, dr = raw["chosen"].reset_index(drop=True), raw["rejected"].reset_index(drop=True)
    differs = (raw["hc"] != raw["hr"]).to_numpy()
    pairs, ann = chosen_rejected(
        raw,
        dataset="hh-rlhf",
        pair_id=ids,
        split=_split_col(raw, split),
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
    aliases=("allenai/multipref",),
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
    frames = []
    for g in groups:
        col = f"{g}_worker_annotations"
        lst = raw[col].map(lambda v: list(v) if v is not None and not isinstance(v, (str, float)) else None)
        bad = lst.isna().to_numpy()
        if bad.any():
            file, row = where(raw, int(np.flatnonzero(bad)[0]))
            raise DataError("annotations must be a list of objects", file=file, row=row, field=col)
        e = pd.DataFrame({"i": np.arange(len(raw)), "a": lst}).explode("a", ignore_index=True).dropna(subset=["a"])
        e["k"] = e.groupby("i").cumcount()
        e["label"] = [d.get(key) if isinstance(d, dict) else None for d in e["a"]]
        e["evaluator"] = [d.get("evaluator") if isinstance(d, dict) else None for d in e["a"]]
        e["group"] = g
        frames.append(e)
    e = pd.concat(frames, ignore_index=True)
    sub = raw.iloc[e["i"].to_numpy()].reset_index(drop=True)
    pref, bad = map_labels(
        sub, e["label"].reset_index(drop=True), MULTIPREF_LABELS, f"{{normal,expert}}_worker_annotations[].{key}", f
    )
    if bad.any():  # on_invalid="drop": drop the judgment, count it
        f.records.append(
            {
                "filter": f"unknown {key} label",
                "field": key,
                "removed": int(bad.sum()),
                "kept": int((~bad).sum()),
                "rows": sub["_row"][bad].head(20).tolist(),
            }
        )
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
        split=_split_col(raw, split),
        prompt=raw[text_col],
        response_a=raw["completion_a"],
        response_b=raw["completion_b"],
        metadata={("prompt_source" if k == "source" else k): v for k, v in meta.items()},
    )
    return Loaded(pairs, ann, desc, f.records)


# ---------------------------------------------------------------------------------------------
# nvidia/HelpSteer2 (+ disagreements)
# ---------------------------------------------------------------------------------------------
def likert_preference(likert_a, likert_b) -> np.ndarray:
    """Diverging Preferences §2: from two per-response Likert scores, a difference of 0 is a tie, 1 a
    slight preference (±1) and ≥ 2 a significant one (±2); negative prefers A."""
    return np.clip(np.asarray(likert_b, dtype=np.int64) - np.asarray(likert_a, dtype=np.int64), -2, 2)


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
    aliases=("nvidia/HelpSteer2", "helpsteer2-disagreements"),
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
    # consecutive responses to the same prompt form a pair: paired BEFORE any bad response is dropped, so a
    # dropped response takes its partner with it under its own reason (not "unpaired"), and never shifts the
    # pairing of the responses after it
    new_prompt = raw["prompt"].ne(raw["prompt"].shift()).to_numpy()
    block = np.cumsum(new_prompt)
    pos = pd.Series(np.arange(len(raw))).groupby(block).cumcount().to_numpy()
    size = pd.Series(block).map(pd.Series(block).value_counts()).to_numpy()
    odd = (pos == size - 1) & (size % 2 == 1)
    if odd.any():
        f.records.append(
            {
                "filter": "unpaired response (odd number of responses for its prompt)",
                "field": "prompt",
                "removed": int(odd.sum()),
                "kept": int((~odd).sum()),
                "rows": raw["_row"][odd].head(20).tolist(),
            }
        )
        raw, pos = raw.loc[~odd].reset_index(drop=True), pos[~odd]
    first = pos % 2 == 0
    if f.empty == "placeholder":
        raw = f.text_type(raw, "response")
        raw = check_text(raw, f, ["response"])
    else:
        pair = np.cumsum(first) - 1  # the pair each row belongs to
        for what, test in (("not text", not_text), ("empty", empty_text)):
            bad = test(raw["response"])
            if not bad.any():
                continue
            if f.empty != "drop" and not (what == "not text" and f.on_invalid == "drop"):
                check_text(raw, f, ["response"])  # raises, naming the row and the option that drops or keeps it
            gone = np.isin(pair, pair[bad])
            f.records.append(
                {
                    "filter": f"{'empty text' if what == 'empty' else 'not text'} in a response: its pair "
                    "is dropped (both responses)",
                    "field": "response",
                    "removed": int(gone.sum()),
                    "kept": int((~gone).sum()),
                    "rows": raw["_row"][bad].head(20).tolist(),
                }
            )
            raw, first, pair = raw.loc[~gone].reset_index(drop=True), first[~gone], pair[~gone]
    ra, rb = raw.loc[first].reset_index(drop=True), raw.loc[~first].reset_index(drop=True)
    ids = "helpsteer2:" + (ra["_part"].astype(str) + ":" if "_part" in ra else "") + ra["_row"].astype(str)
    sa, sb = ra[attribute].tolist(), rb[attribute].tolist()
    as_list = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] for v in sa]
    bs_list = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] for v in sb]
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

    def scores(lists):  # a truth value is not a Likert score
        return pd.to_numeric(
            pd.Series([None if isinstance(v, (bool, np.bool_)) else v for x in lists for v in x], dtype=object),
            errors="coerce",
        ).to_numpy(dtype=float)

    la, lb = scores(as_list), scores(bs_list)
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
        split=_split_col(ra, None if subset == "disagreements" else split),
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
    aliases=("HannahKirk/prism-alignment", "prism-alignment"),
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
    aliases=("openbmb/UltraFeedback",),
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
    aliases=("openai/webgpt_comparisons", "webgpt_comparisons", "web-gpt"),
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
    if bad.any():
        file, row = where(raw, int(np.flatnonzero(bad)[0]))
        raise DataError("score out of range [-1, 1]", file=file, row=row, field="score_1")
    s = ((s1 - s0) / 2).to_numpy()
    ids = _ids(raw, "webgpt")
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
    aliases=("openai/summarize_from_feedback", "summarize", "summarize_from_feedback", "oai-summarize"),
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
    if bad.any():
        file, row = where(raw, int(np.flatnonzero(bad)[0]))
        raise DataError(
            f"choice {raw['choice'].iat[int(np.flatnonzero(bad)[0])]!r} is not 0 or 1",
            file=file,
            row=row,
            field="choice",
        )
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
    aliases=("Dahoas/synthetic-instruct-gptj-pairwise", "instructgpt-j", "gptj-pairwise"),
)
def load_gptj_pairwise(source=None, *, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """Rows: ``prompt``, ``chosen``, ``rejected``; one ±2 judgment, A/B by pair-id hash."""
    raw, desc = read_source(source, "Dahoas/synthetic-instruct-gptj-pairwise", split="train")
    require(raw, ["prompt", "chosen", "rejected"], desc)
    f = Filters(on_invalid, empty)
    raw = check_text(raw, f, ["chosen", "rejected"])
    ids = _ids(raw, "gptj-pairwise")
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
