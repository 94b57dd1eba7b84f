"""Loaders for public data sets distributed as files in their GitHub repositories (PandaLM, LLMBar,
MT-Bench as processed by LLMBar, HHH via prometheus-eval).

Default ``source``: ``$PLURALIGN_SHARED_DATA`` or ``../shared/data`` next to the project root (the
workplace's copy of the real files); pass ``source=`` to point at your own copy. The package does not
depend on these files otherwise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pluralign.data.checks import Filters, refuse_first, require
from pluralign.data.core import DataError
from pluralign.data.fields import check_text, check_unique, chosen_rejected, map_labels
from pluralign.data.io import default_local, read_table
from pluralign.data.registry import Loaded, annotations, canonical, register

PANDALM_LABELS = {"0": 0, "1": -2, "2": 2}
PANDALM_CITATION = (
    "Wang et al. 2024, PandaLM: An Automatic Evaluation Benchmark for LLM Instruction Tuning "
    "Optimization, ICLR 2024, arXiv:2306.05087"
)
LLMBAR_CITATION = (
    "Zeng et al. 2024, Evaluating Large Language Models at Evaluating Instruction Following, "
    "ICLR 2024, arXiv:2310.07641 (LLMBar)"
)
JUDGES = {
    "gpt-3.5-turbo": ("gpt-3.5-turbo-testset-v1.json", "gpt_result"),
    "pandalm-7b": ("pandalm-7b-testset-v1.json", "pandalm_result"),
}
JUDGE_LABELS = {"0": 0, "Tie": 0, "tie": 0, "1": -2, "2": 2}


def _pandalm(source, annotators: str, on_invalid: str, empty: str | None) -> Loaded:
    path = default_local(source, "pandalm", "pandalm", "testset-v1.json")
    raw = read_table(path)
    require(raw, ["idx", "instruction", "response1", "response2"], str(path))
    f = Filters(on_invalid, empty)
    for c in ("response1", "response2"):  # model outputs "True"/"False" were stored as JSON booleans
        isbool = raw[c].map(lambda v: isinstance(v, bool)).to_numpy()
        if isbool.any():
            f.note(raw, isbool, "JSON boolean response turned into its text ('True' / 'False')", c)
            raw[c] = raw[c].map(lambda v: str(v) if isinstance(v, bool) else v)
    raw = check_text(raw, f, ["response1", "response2"])
    ids = "pandalm:" + raw["idx"].astype(str)
    check_unique(raw, ids, "idx")
    inp = raw["input"].fillna("").astype(str) if "input" in raw else ""
    prompt = raw["instruction"].astype(str) + np.where(inp.str.strip() != "", "\n\n" + inp, "")
    pairs = canonical(
        raw,
        pair_id=ids,
        dataset="pandalm",
        split="test",
        prompt=prompt,
        response_a=raw["response1"],
        response_b=raw["response2"],
        metadata={"motivation_app": raw.get("motivation_app"), "cmp_key": raw.get("cmp_key")},
    )
    frames = []
    if annotators in ("human", "all"):
        cols = [c for c in ("annotator1", "annotator2", "annotator3") if c in raw]
        require(raw, cols or ["annotator1"], str(path))
        for c in cols:
            pref, bad = map_labels(raw, raw[c], PANDALM_LABELS, c, f)
            frames.append(annotations(ids[~bad], c, pref[~bad], annotator_kind="human"))
            f.count(raw, bad, f"unknown {c} label", c)
    if annotators in ("judges", "all"):
        for judge, (fname, col) in JUDGES.items():
            jpath = path.parent / fname
            j = read_table(jpath)
            require(j, ["idx", col], str(jpath))
            jids = "pandalm:" + j["idx"].astype(str)
            unknown = ~jids.isin(ids).to_numpy()
            refuse_first(j, unknown, "verdict for unknown idx {value!r}", "idx")
            val = j[col].astype(str).str.strip()
            garbage = ~val.isin(list(JUDGE_LABELS)).to_numpy()
            if garbage.any():  # the judge's own unparseable verdicts (e.g. "garbage"): not a judgment
                f.count(j, garbage, f"{judge} verdict not a label (e.g. {val[garbage].iat[0]!r})", col)
            frames.append(annotations(jids[~garbage], judge, val[~garbage].map(JUDGE_LABELS), annotator_kind="judge"))
    if not frames:
        raise ValueError("annotators must be 'human', 'judges' or 'all'")
    return Loaded(pairs, pd.concat(frames, ignore_index=True), str(path), f.records)


@register(
    "pandalm",
    license="Apache-2.0",
    citation=PANDALM_CITATION,
    local_path="pandalm/testset-v1.json",
    url="https://github.com/WeOpenML/PandaLM",
    description="999 instruction-following pairs, each judged by three human annotators (0 tie, 1 "
    "response1, 2 response2); a real stand-in for MultiPref-style multi-annotator data.",
    papers=("Diverging Preferences",),
    aliases=("WeOpenML/PandaLM",),
)
def load_pandalm(
    source=None, *, annotators: str = "human", on_invalid: str = "error", empty: str = "placeholder", **_
) -> Loaded:
    """PandaLM ``testset-v1.json``: ``idx``, ``instruction``, ``input``, ``response1``, ``response2``,
    ``annotator1..3`` with 0 tie / 1 response1 / 2 response2 → 0 / −2 / +2 (no strength recorded, so
    full preferences). ``annotators``: ``human`` (default), ``judges`` (gpt-3.5-turbo and pandalm-7b
    verdict files next to it), ``all``. ``source``: the file or its folder.

    60 of the 999 pairs have an empty model output (or one stored as a JSON boolean); the annotators
    judged those as they were, so by default (``empty="placeholder"``) an empty response becomes the
    text ``"[empty response]"`` and a boolean its text, both counted in ``meta['filters']``
    (``empty="error"`` / ``"drop"`` for the strict behaviours)."""
    return _pandalm(source, annotators, on_invalid, empty)


@register(
    "pandalm-judges",
    license="Apache-2.0",
    citation=PANDALM_CITATION,
    local_path="pandalm/",
    url="https://github.com/WeOpenML/PandaLM",
    description="The PandaLM test pairs judged by two LLM judges (gpt-3.5-turbo, pandalm-7b); verdicts "
    "that are not a label ('garbage') are dropped and counted.",
    papers=("Diverging Preferences",),
)
def load_pandalm_judges(source=None, *, on_invalid: str = "error", empty: str = "placeholder", **_) -> Loaded:
    """Same pairs as ``pandalm``; annotations are the LLM judges' verdicts (``annotator_id`` =
    ``gpt-3.5-turbo`` / ``pandalm-7b``; "Tie" → 0)."""
    return _pandalm(source, "judges", on_invalid, empty)


LLMBAR_SUBSETS = ("Natural", "Adversarial-Neighbor", "Adversarial-GPTInst", "Adversarial-GPTOut", "Adversarial-Manual")


def _llmbar_rows(
    files: list[tuple[str, Path]], dataset: str, annotator: str, on_invalid: str, empty: str | None
) -> Loaded:
    f = Filters(on_invalid, empty)
    frames = []
    for subset, path in files:
        raw = read_table(path)
        require(raw, ["input", "output_1", "output_2", "label"], str(path))
        raw = check_text(raw, f, ["output_1", "output_2"])
        pref, bad = map_labels(raw, raw["label"], {"1": -2, "2": 2}, "label", f)
        raw = f.apply(raw.assign(_pref=pref), bad, "unknown label value", "label", always_drop=True)
        raw["_subset"] = subset
        frames.append(raw)
    raw = pd.concat(frames, ignore_index=True)
    ids = dataset + ":" + raw["_subset"] + ":" + raw["_row"].astype(str)
    pairs = canonical(
        raw,
        pair_id=ids,
        dataset=dataset,
        split="test",
        prompt=raw["input"],
        response_a=raw["output_1"],
        response_b=raw["output_2"],
        metadata={"subset": raw["_subset"]},
    )
    ann = annotations(ids, annotator, raw["_pref"].astype(int))
    return Loaded(pairs, ann, ", ".join(str(p) for _, p in files), f.records)


@register(
    "llmbar",
    license="MIT",
    citation=LLMBAR_CITATION,
    local_path="llmbar/",
    url="https://github.com/princeton-nlp/LLMBar",
    description="Instruction-following pairs with one objectively better output (gold label): Natural (100) "
    "and four Adversarial subsets (319); a single-correct-answer test set.",
    papers=("Beyond the Binary",),
    aliases=("princeton-nlp/LLMBar",),
)
def load_llmbar(source=None, *, subsets=None, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """LLMBar ``Dataset/LLMBar/<subset>/dataset.json`` rows ``{input, output_1, output_2, label}``,
    label 1 or 2 → −2 / +2, annotator ``gold``. ``subsets``: list (default all five); the subset is the
    ``subset`` column. ``source``: the folder holding the subset folders (or one ``dataset.json``)."""
    root = default_local(source, "llmbar", "llmbar")
    if root.is_file():
        files = [(root.parent.name, root)]
    else:
        wanted = list(subsets) if subsets else list(LLMBAR_SUBSETS)
        files = []
        for s in wanted:
            p = root / s / "dataset.json"
            if not p.exists():
                raise DataError(f"LLMBar subset {s!r} not found (expected {s}/dataset.json)", file=p)
            files.append((s, p))
    return _llmbar_rows(files, "llmbar", "gold", on_invalid, empty)


@register(
    "mt-bench",
    license="MIT (LLMBar processing); MT-Bench human judgments CC-BY-4.0",
    citation="Zheng et al. 2023, Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena, NeurIPS 2023; "
    "processed by " + LLMBAR_CITATION,
    local_path="llmbar/MT-Bench/dataset.json",
    url="https://github.com/princeton-nlp/LLMBar",
    description="200 MT-Bench pairs labelled by the majority vote of MT-Bench's human judges (ties removed), "
    "as processed by LLMBar.",
    papers=("Beyond the Binary",),
    aliases=("mtbench", "mt_bench"),
)
def load_mt_bench(source=None, *, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """LLMBar's ``Dataset/Processed/MT-Bench/dataset.json`` (same schema as LLMBar; annotator
    ``human-majority``)."""
    path = default_local(source, "llmbar/MT-Bench", "mt-bench", "dataset.json")
    return _llmbar_rows([("MT-Bench", path)], "mt-bench", "human-majority", on_invalid, empty)


HHH_INSTRUCTION = "###The instruction to evaluate:"
HHH_RESPONSE = "###Response to evaluate:"
HHH_RUBRIC = "###Score Rubrics"


def _hhh_parse(texts: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut (instruction, response) out of Prometheus' grading template."""
    inst, resp, ok = [], [], []
    for t in texts.tolist():
        i, r, s = t.find(HHH_INSTRUCTION), t.find(HHH_RESPONSE), t.find(HHH_RUBRIC)
        good = 0 <= i < r < s
        ok.append(good)
        inst.append(t[i + len(HHH_INSTRUCTION) : r].strip() if good else "")
        resp.append(t[r + len(HHH_RESPONSE) : s].strip() if good else "")
    return np.array(inst, dtype=object), np.array(resp, dtype=object), np.array(ok)


@register(
    "hhh",
    license="Apache-2.0 (HHH data from BIG-bench)",
    citation="Askell et al. 2021, A General Language Assistant as a Laboratory for Alignment, "
    "arXiv:2112.00861 (HHH alignment eval, BIG-bench); file from prometheus-eval "
    "(Kim et al. 2024, arXiv:2405.01535)",
    local_path="hhh/hhh_alignment_eval.json",
    url="https://github.com/prometheus-eval/prometheus-eval",
    description="221 helpful / harmless / honest / other pairs with a chosen and a rejected response.",
    papers=("SEAL",),
    aliases=("hhh-alignment", "hhh_alignment"),
)
def load_hhh(source=None, *, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """prometheus-eval's ``hhh_alignment_eval.json``: ``{source, chosen_instruction, rejected_instruction}``
    where each side is a grading prompt holding the instruction between "###The instruction to
    evaluate:" and "###Response to evaluate:", and the response before "###Score Rubrics". Both sides
    must hold the same instruction. The HHH category is the ``subset`` column."""
    path = default_local(source, "hhh", "hhh", "hhh_alignment_eval.json")
    raw = read_table(path)
    require(raw, ["chosen_instruction", "rejected_instruction"], str(path))
    f = Filters(on_invalid, empty)
    ic, rc, okc = _hhh_parse(raw["chosen_instruction"])
    ir, rr, okr = _hhh_parse(raw["rejected_instruction"])
    raw = raw.assign(_ic=ic, _rc=rc, _ir=ir, _rr=rr)
    raw = f.apply(raw, ~okc, "grading template without instruction/response markers", "chosen_instruction")
    raw = f.apply(
        raw,
        ~okr[raw.index] if len(raw) == len(okr) else np.zeros(len(raw), bool),
        "grading template without instruction/response markers",
        "rejected_instruction",
    )
    raw = f.apply(
        raw,
        (raw["_ic"] != raw["_ir"]).to_numpy(),
        "chosen and rejected hold different instructions",
        "rejected_instruction",
    )
    raw = check_text(raw, f, ["_rc", "_rr"])
    ids = "hhh:" + raw["_row"].astype(str)
    pairs, ann = chosen_rejected(
        raw,
        dataset="hhh",
        pair_id=ids,
        split="test",
        prompt=raw["_ic"],
        chosen=raw["_rc"],
        rejected=raw["_rr"],
        annotator="gold",
        metadata={"subset": raw["source"] if "source" in raw else "hhh"},
    )
    return Loaded(pairs, ann, str(path), f.records)
