"""The rehearsal mirror's data sets: each Hub data set's files in its own schema and layout, filled from the
workplace's real files where it has them and from the simulator elsewhere (:func:`build_dataset`;
:data:`DATASETS` names each writer, :data:`MIN_ROWS` the sizes the paper profile's splits need).
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from pluralign.book.rehearsal_artefacts import NOTE, RehearsalError, simulated, write_sidecar


def _jsonl_gz(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    path.write_bytes(gzip.compress(data, mtime=0))


def _jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def _parquet(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame.from_records(records).to_parquet(path, index=False)


def _readme(folder: Path, hub_id: str, configs: list[dict] | None = None) -> None:
    """A dataset card; ``configs`` (the Hub's YAML ``configs:``) where the real card declares named configs."""
    head = ""
    if configs:
        lines = ["---", "configs:"]
        for c in configs:
            lines.append(f"- config_name: {c['name']}")
            lines.append("  data_files:")
            for split, pattern in c["files"].items():
                lines += [f"  - split: {split}", f"    path: {pattern}"]
        head = "\n".join(lines + ["---", ""]) + "\n"
    (folder / "README.md").write_text(f"{head}# {hub_id} (pluralign rehearsal mirror)\n\n{NOTE}.\n", encoding="utf-8")


def _sim_pairs(n: int, seed: int, fmt="multipref", n_annotators=4):
    d = simulated(n, seed, fmt, n_annotators)
    groups = {k: g for k, g in d.annotations.groupby("pair_id", sort=False)}
    return d, [(r, groups[r.pair_id]) for r in d.pairs.itertuples()]


def _hh_rlhf(folder: Path, rows: int, seed: int) -> dict:
    """Anthropic/hh-rlhf: ``<data_dir>/{train,test}.jsonl.gz`` of ``{"chosen", "rejected"}`` dialogues.
    harmless-base from the real shared file (its test rows; ``train`` gets the next ``rows`` of them),
    helpful-base from the simulator in the same dialogue format."""
    from pluralign.data.io import shared_data_dir

    real = shared_data_dir() / "hh-rlhf" / "harmless-base-test.jsonl.gz"
    notes = {}
    if real.exists():
        lines = [ln for ln in gzip.decompress(real.read_bytes()).decode("utf-8").split("\n") if ln.strip()]
        recs = [json.loads(ln) for ln in lines[: 2 * rows]]
        _jsonl_gz(folder / "harmless-base" / "test.jsonl.gz", recs[:rows])
        _jsonl_gz(folder / "harmless-base" / "train.jsonl.gz", recs[rows:])
        notes["harmless-base"] = (
            f"real rows of {real.name} (anthropics/hh-rlhf): test = its rows 1-{rows}, "
            f"train = its rows {rows + 1}-{2 * rows} (the real train file is not in the workplace)"
        )
        sim_dirs = ["helpful-base"]
    else:
        sim_dirs = ["harmless-base", "helpful-base"]
    for k, sub in enumerate(sim_dirs):
        for j, split in enumerate(("train", "test")):
            d, items = _sim_pairs(rows, seed + 10 * k + j + 1)
            recs = []
            for r, g in items:
                first = int(g["preference"].iat[0])
                a_wins = first <= 0
                hist = f"\n\nHuman: {r.prompt}\n\nAssistant:"
                c, x = (r.response_a, r.response_b) if a_wins else (r.response_b, r.response_a)
                recs.append({"chosen": f"{hist} {c}", "rejected": f"{hist} {x}"})
            _jsonl_gz(folder / sub / f"{split}.jsonl.gz", recs)
        notes[sub] = "simulated (pluralign.data.simulate): chosen = the first simulated annotator's choice"
    return notes


MP_LABELS = {
    -2: "A-is-clearly-better",
    -1: "A-is-slightly-better",
    0: "Tie",
    1: "B-is-slightly-better",
    2: "B-is-clearly-better",
}


def _multipref(folder: Path, rows: int, seed: int) -> dict:
    """allenai/multipref: ``data/train-00000-of-00001.parquet``; two normal and two expert annotators per pair."""
    d, items = _sim_pairs(rows, seed, "multipref", 4)
    recs = []
    for r, g in items:
        ann = []
        for k, (ev, p) in enumerate(zip(g["annotator_id"], g["preference"])):
            lab = MP_LABELS[int(p)]
            ann.append(
                {
                    "evaluator": ev,
                    "overall_pref": lab,
                    "helpful_pref": lab,
                    "truthful_pref": lab,
                    "harmless_pref": lab,
                    "overall_confidence": "confident",
                    "time_spent": 60 + k,
                }
            )
        recs.append(
            {
                "comparison_id": r.pair_id,
                "prompt_id": f"p-{r.pair_id}",
                "text": r.prompt,
                "model_a": "sim-model-a",
                "completion_a": r.response_a,
                "model_b": "sim-model-b",
                "completion_b": r.response_b,
                "source": "simulated",
                "category": "Open QA",
                "subject_study": "",
                "highest_level_degree": "",
                "normal_worker_annotations": ann[:2],
                "expert_worker_annotations": ann[2:],
            }
        )
    _parquet(folder / "data" / "train-00000-of-00001.parquet", recs)
    return {"train": "simulated (pluralign.data.simulate, MultiPref format): 2 normal + 2 expert annotators"}


def _helpsteer2(folder: Path, rows: int, seed: int) -> dict:
    """nvidia/HelpSteer2: ``train.jsonl.gz``, ``validation.jsonl.gz`` (one aggregated score per attribute) and
    ``disagreements/disagreements.jsonl.gz`` (a list of scores, one per annotator); the two responses to a prompt
    are consecutive rows; scores 0-4."""
    attrs = ("helpfulness", "correctness", "coherence", "complexity", "verbosity")

    def records(n, s, per_annotator):
        d, items = _sim_pairs(n, s, "helpsteer2", 3)
        out = []
        for r, g in items:
            la, lb = (g["likert_a"].astype(int) - 1).tolist(), (g["likert_b"].astype(int) - 1).tolist()
            for text, sc in ((r.response_a, la), (r.response_b, lb)):
                v = sc if per_annotator else int(round(float(np.mean(sc))))
                out.append({"prompt": r.prompt, "response": text, **{a: v for a in attrs}})
        return out

    small = max(min(rows, 200) // 2, 1)  # the main set: no page of the paper profile reads it
    _jsonl_gz(folder / "train.jsonl.gz", records(small, seed + 1, False))
    _jsonl_gz(folder / "validation.jsonl.gz", records(max(small // 4, 1), seed + 2, False))
    _jsonl_gz(folder / "disagreements" / "disagreements.jsonl.gz", records(rows, seed, True))
    return {
        "disagreements": "simulated (HelpSteer2 format, 3 annotators, every attribute = the simulated "
        "helpfulness Likert score - 1)",
        "train/validation": "simulated, mean score",
    }


def _prism(folder: Path, rows: int, seed: int) -> dict:
    """HannahKirk/prism-alignment: ``utterances.jsonl`` behind the card's ``utterances`` config (the real repo
    also has survey / conversations / metadata, which no loader here reads: not written)."""
    d, items = _sim_pairs(rows, seed, "multipref", 1)
    recs = []
    for i, (r, g) in enumerate(items):
        p = int(g["preference"].iat[0])
        conv = f"c{i // 2}"
        turn = i % 2
        for k, (text, chosen) in enumerate(((r.response_a, p <= 0), (r.response_b, p > 0))):
            recs.append(
                {
                    "utterance_id": f"{r.pair_id}-{k}",
                    "conversation_id": conv,
                    "turn": turn,
                    "within_turn_id": k,
                    "user_id": g["annotator_id"].iat[0],
                    "user_prompt": r.prompt,
                    "model_response": text,
                    "model_name": f"sim-model-{k}",
                    "model_provider": "simulated",
                    "score": 80 if chosen else 40 - 10 * abs(p),
                    "if_chosen": bool(chosen),
                    "included_in_balanced_subset": True,
                }
            )
    _jsonl(folder / "utterances.jsonl", recs)
    _readme(folder, "HannahKirk/prism-alignment", [{"name": "utterances", "files": {"train": "utterances.jsonl"}}])
    return {"utterances": "simulated: one conversation turn per simulated pair, chosen by its annotator"}


def _ultrafeedback(folder: Path, rows: int, seed: int) -> dict:
    """openbmb/UltraFeedback: one JSON Lines file per prompt source (``evol_instruct.jsonl``, ...), each row an
    instruction with its completions and their GPT-4 scores (here two completions per instruction)."""
    d, items = _sim_pairs(rows, seed, "helpsteer2", 1)
    by_src = {"evol_instruct": [], "sharegpt": []}
    for i, (r, g) in enumerate(items):
        src = "evol_instruct" if i % 2 == 0 else "sharegpt"
        comps = []
        for text, s in ((r.response_a, g["likert_a"].iat[0]), (r.response_b, g["likert_b"].iat[0])):
            s = float(s)
            comps.append(
                {
                    "model": "sim-model",
                    "principle": "helpfulness",
                    "custom_system_prompt": "",
                    "response": text,
                    "fine-grained_score": s,
                    "overall_score": 2 * s,
                    "critique": "",
                }
            )
        by_src[src].append(
            {
                "source": src,
                "instruction": r.prompt,
                "models": ["sim-model", "sim-model"],
                "completions": comps,
                "correct_answers": ["None"],
                "incorrect_answers": ["None"],
            }
        )
    for src, recs in by_src.items():
        _jsonl(folder / f"{src}.jsonl", recs)
    return {"train": "simulated: fine-grained_score = the simulated Likert score (1-5), two completions each"}


def _webgpt(folder: Path, rows: int, seed: int) -> dict:
    """openai/webgpt_comparisons: ``data/train-00000-of-00001.parquet`` (the Hub's parquet conversion of the
    loading script's data): question, quotes_0/1, answer_0/1, tokens_0/1, score_0/1 (score_1 = -score_0)."""
    d, items = _sim_pairs(rows, seed, "multipref", 1)
    recs = []
    for r, g in items:
        s1 = float(g["preference"].iat[0]) / 2
        recs.append(
            {
                "question": {"dataset": "eli5", "id": r.pair_id, "full_text": r.prompt},
                "quotes_0": {"title": ["sim"], "extract": ["sim"]},
                "answer_0": r.response_a,
                "tokens_0": [],
                "score_0": -s1,
                "quotes_1": {"title": ["sim"], "extract": ["sim"]},
                "answer_1": r.response_b,
                "tokens_1": [],
                "score_1": s1,
            }
        )
    _parquet(folder / "data" / "train-00000-of-00001.parquet", recs)
    return {"train": "simulated: score_1 = the simulated annotator's preference / 2"}


def _summarize(folder: Path, rows: int, seed: int) -> dict:
    """openai/summarize_from_feedback: the ``comparisons`` config (``comparisons/{train,validation}-*.parquet``,
    the Hub's parquet conversion) behind the card's ``configs:``; rows info / summaries / choice / worker / split /
    batch / extra."""
    for j, split in enumerate(("train", "validation")):
        d, items = _sim_pairs(rows, seed + j, "multipref", 2)
        recs = []
        for r, g in items:
            for w, p in zip(g["annotator_id"], g["preference"]):
                recs.append(
                    {
                        "info": {
                            "id": r.pair_id,
                            "post": r.prompt,
                            "title": "a question",
                            "subreddit": "sim",
                            "site": None,
                            "article": None,
                        },
                        "summaries": [
                            {"text": r.response_a, "policy": "sim-a", "note": None},
                            {"text": r.response_b, "policy": "sim-b", "note": None},
                        ],
                        "choice": int(p > 0),
                        "worker": w,
                        "batch": "batch1",
                        "split": split,
                        "extra": {"confidence": 5},
                    }
                )
        _parquet(folder / "comparisons" / f"{split}-00000-of-00001.parquet", recs)
    _readme(
        folder,
        "openai/summarize_from_feedback",
        [{"name": "comparisons", "files": {"train": "comparisons/train-*", "validation": "comparisons/validation-*"}}],
    )
    return {"comparisons": "simulated: two workers per pair, choice = each one's side (a tie counts for A)"}


def _gptj(folder: Path, rows: int, seed: int) -> dict:
    """Dahoas/synthetic-instruct-gptj-pairwise: ``data/train-00000-of-00001.parquet`` of prompt/chosen/rejected."""
    d, items = _sim_pairs(rows, seed, "multipref", 1)
    recs = []
    for r, g in items:
        a_wins = int(g["preference"].iat[0]) <= 0
        c, x = (r.response_a, r.response_b) if a_wins else (r.response_b, r.response_a)
        recs.append({"prompt": r.prompt, "chosen": c, "rejected": x})
    _parquet(folder / "data" / "train-00000-of-00001.parquet", recs)
    return {"train": "simulated: chosen = the simulated annotator's choice"}


#: data set id → (writer, the pluralign.load calls that must read it, with their options)
DATASETS: dict[str, tuple] = {
    "Anthropic/hh-rlhf": (
        _hh_rlhf,
        ("hh-rlhf", [{"split": "train"}, {"split": "test"}, {"data_dir": "harmless-base", "split": "test"}]),
    ),
    "allenai/multipref": (_multipref, ("multipref", [{}])),
    "nvidia/HelpSteer2": (_helpsteer2, ("helpsteer2", [{"subset": "disagreements"}, {"subset": "main"}])),
    "HannahKirk/prism-alignment": (_prism, ("prism", [{}])),
    "openbmb/UltraFeedback": (_ultrafeedback, ("ultrafeedback", [{}])),
    "openai/webgpt_comparisons": (_webgpt, ("webgpt", [{}])),
    "openai/summarize_from_feedback": (
        _summarize,
        ("summarize-from-feedback", [{"split": "train"}, {"split": "validation"}]),
    ),
    "Dahoas/synthetic-instruct-gptj-pairwise": (_gptj, ("synthetic-instruct-gptj-pairwise", [{}])),
}


#: data sets that the paper profile splits by count: at least this many pairs, whatever ``rows`` says (Diverging
#: Preferences §3 holds out 500 test pairs per data set, and params/paper/diverging-study.yml and cross-study.yml
#: another 500 for validation: 1,000 held out plus a training side)
MIN_ROWS = {
    "allenai/multipref": 1200,
    "nvidia/HelpSteer2": 1200,
    # Beyond the Binary trains on four sets pooled (webgpt, hh-rlhf, summarize, gptj) and holds out 2,000 of
    # them for validation (btb-rewards.yml): three of them carry it, so that a few hundred pairs are left to
    # train on. hh-rlhf keeps the rows asked for: SEAL's D is its train split, and every entry of D is
    # labelled by three LM-labellers (at 650 rows, 2,600 entries: most of the SEAL pages' time)
    "openai/webgpt_comparisons": 750,
    "openai/summarize_from_feedback": 750,
    "Dahoas/synthetic-instruct-gptj-pairwise": 750,
}


def build_dataset(hub_id: str, root: str | Path, *, rows: int = 200, seed: int = 0) -> Path:
    """Write data set ``hub_id`` in its Hub layout under ``root/<hub_id>`` (see :data:`DATASETS`): ``rows`` pairs
    per split (:data:`MIN_ROWS` at least)."""
    if hub_id not in DATASETS:
        raise RehearsalError(
            f"no rehearsal recipe for data set id {hub_id!r}: add a writer in its Hub layout to "
            f"pluralign.book.rehearsal_datasets.DATASETS (known: {', '.join(sorted(DATASETS))})"
        )
    if rows < 2:
        raise ValueError(f"rows must be at least 2, got {rows}")
    folder = Path(root) / hub_id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    writer, (name, calls) = DATASETS[hub_id]
    rows = max(rows, MIN_ROWS.get(hub_id, 0))
    notes = writer(folder, rows, seed)
    write_sidecar(
        folder,
        {
            "kind": "dataset",
            "id": hub_id,
            "loader": name,
            "rows_per_split": rows,
            "contents": notes,
            "layout": (writer.__doc__ or "").split(":", 1)[-1].strip().split("\n")[0],
        },
    )
    return folder
