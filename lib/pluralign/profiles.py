"""What each profile stands in for: the one place where a profile's offline stand-ins are written.

A profile (``demo``, ``sample``, ``paper``; the README's "Profiles") runs the same notebooks and the same library
code with other parameters. Where it replaces one of the papers' components (their data sets, models, LLM judges,
labellers) by something that runs offline, the page says so in its profile note
(:func:`pluralign.report.profile_note`). Those sentences live here, one dictionary per profile: ``summary`` (what
the profile's numbers are) and ``stand_ins`` (per page, named ``part.page``: a list of Markdown sentences, formatted
with the page's settings by :func:`stand_ins`).
Adding a profile is one dictionary here and one folder ``params/<profile>/``.
"""

from __future__ import annotations

__all__ = ["PROFILES", "summary", "stand_ins"]

#: The **demo** profile.
DEMO = {
    "summary": "simulated data with planted truth and small CPU models: the numbers check that each method recovers "
    "what the simulator planted; they are not estimates of the papers' quantities.",
    "stand_ins": {
        "data": [
            "simulated data sets in the MultiPref (A/B/tie + strength) and HelpSteer2 (per-response "
            "Likert) annotation formats, with planted truth"
        ],
        "diverging.agreement": [
            "the simulator's data sets in the MultiPref format (A/B/tie + "
            "slight/significant) and the HelpSteer2 format (per-response Likert scores) "
            "stand in for MultiPref and HelpSteer2; the same texts in both"
        ],
        "diverging.causes": [
            "the simulator's planted cause of each pair is the reference labelling (in "
            "place of the authors' annotations)",
            "a rule-based labeller reading surface features (length, lists and headings, "
            "refusal phrases) is the second 'annotator' written into the annotation sheet",
        ],
        "diverging.rewards": [
            "simulated MultiPref-format and HelpSteer2-format data (same texts) stand in for MultiPref and HelpSteer2",
            "reward models are a {head} head over frozen all-MiniLM-L6-v2 embeddings, not "
            "Llama-3-8B-Instruct with LoRA",
        ],
        "diverging.know": [
            "simulated MultiPref-format and HelpSteer2-format data (same texts) stand in for MultiPref and HelpSteer2",
            "the mean-variance reward model is a {head} head (μ and σ) over frozen "
            "all-MiniLM-L6-v2 embeddings, not Llama-3-8B-Instruct with LoRA",
            "the LLM judge is a **simulated judge** (`diverging.knowing.simulated_judge`): "
            "its P(A) is drawn around the planted population share preferring A (log-odds "
            "noise sd 1), so it knows the split by construction — the section checks that "
            "the measure finds that, not what LLM judges do (the sample profile shows real "
            "judges' published verdicts)",
        ],
        # the caveat under Table 2 ({head}: the reward-model head, {n}: its training pairs)
        "diverging.rewards.table2": [
            "On the demo profile the reward models are a {head} head over frozen sentence "
            "embeddings trained on {n} simulated pairs, not the paper's fine-tuned 8B models on thousands of "
            "real ones: their levels say little about the paper's columns; the comparison that carries over is "
            "across rows — diverging against high-agreement pairs."
        ],
        "btb.subjectivity": [
            "The categories are the simulator's planted ones (single- vs multiple-correct "
            "prompt plans; paraphrase-only pairs are the indistinguishable ones), not an "
            "annotator's or an LLM's labels.",
            "p* is the planted population share P(A ≻ B) (computed from the simulated "
            "population, not estimated from 10-people answers).",
        ],
        "btb.margins": [
            "The synthetic judgments for all pairs come from a **simulated judge**, not "
            "Llama-3-70B-Instruct: its P(A) is the planted population share p* distorted by "
            "Gaussian log-odds noise (sd {noise:g}), and n = {n} judgments are drawn from it. "
            "Its quality is measured below. The real LLM path (the embedded Gemma 3 270M's "
            "next-token log-probabilities of ' A' / ' B') runs on the `sample` profile, on a "
            "handful of real pairs."
        ],
        "btb.rewards": [
            "Margins come from a **simulated judge** (the planted p* with log-odds noise sd "
            "{noise:g}, n = {n} draws), not Llama-3-70B-Instruct — see {{ref}}`btb-margins` for "
            "its measured quality.",
            "p* and the categories are the simulator's planted ones; 'data sets' are the "
            "simulator's prompt types, two of which are held out entirely as out-of-domain.",
            "The reward model is a linear head on frozen all-MiniLM-L6-v2 embeddings, not DeBERTa-v3 fine-tuning.",
        ],
        "cross": [
            "The data are simulated (HelpSteer2 format: four annotators rate each response 1–5); p* "
            "is the planted population share and the planted truth stands beside each estimate.",
            "The synthetic margins come from a **simulated judge** (the planted p* with log-odds "
            "noise sd {noise:g}, n = {n} draws), not Llama-3-70B-Instruct.",
            "Reward models are small heads over frozen all-MiniLM-L6-v2 embeddings, not fine-tuned 8B models.",
        ],
    },
}

#: The **sample** profile.
SAMPLE = {
    "summary": "real public preference data (from the local data folder) scored and labelled by small CPU models: "
    "real text through every step, at a size and model quality far below the papers'.",
    "stand_ins": {
        "diverging.agreement": [
            "PandaLM's test set (three human annotators per pair, verdicts without "
            "strength) stands in for MultiPref and HelpSteer2, which live on the "
            "Hugging Face Hub; its shares are set beside the paper's MultiPref figure, "
            'marked "stand-in reference" (PandaLM is not MultiPref)'
        ],
        "diverging.causes": [
            "PandaLM's test set stands in for MultiPref and HelpSteer2; nobody has "
            "annotated its causes, so the annotation sheet is produced but no cause "
            "frequencies or agreement are computed"
        ],
        "diverging.rewards": [
            "PandaLM's three-annotator test set stands in for MultiPref (its Table 2 "
            'block is shown beside ours, marked "stand-in reference"); it has no Likert '
            "scores, so the MSE models are not trained",
            "reward models are a {head} head over frozen all-MiniLM-L6-v2 embeddings, not "
            "Llama-3-8B-Instruct with LoRA",
        ],
        "diverging.know": [
            "PandaLM's three-annotator test set stands in for MultiPref and HelpSteer2 (the "
            "paper's MultiPref BT (All) values are shown beside it, marked \"stand-in "
            'reference")',
            "the mean-variance reward model is a {head} head over frozen all-MiniLM-L6-v2 embeddings",
            "the LLM judges are the verdicts PandaLM published for GPT-3.5 and PandaLM-7B",
        ],
        "btb.subjectivity": [
            "p* is the share of PandaLM's three real annotators (Eq. 2 over a population "
            "of three); LLMBar pairs are single-correct by construction (one output "
            "follows the instruction) and their p* is that gold label (1 or 0).",
            "HH-RLHF (harmless-base test split, {hh_rlhf}) has one crowdworker label per "
            "pair: its p* is that label, 0 or 1 — a population of one, not the paper's "
            "three annotators' 10-people estimate. Its pairs get no category (a "
            "red-teaming dialogue is neither clearly single- nor multiple-correct without "
            "a labeller) and count only in 'all'.",
            "No LLM labels the categories: the embedded model is a base model that cannot "
            "answer Appendix B's questions.",
        ],
        "btb.margins": [
            "Margins come from PandaLM's three real annotators (the paper's 'gold standard', "
            "§2) and, for a handful of pairs, from the embedded Gemma 3 270M base model "
            "({embedded_pairs} pairs, log-probability judgments), not from "
            "Llama-3-70B-Instruct.",
            "The sample's single-label sets (the HH-RLHF harmless test split, LLMBar) are not "
            "used here: Eq. 3 over one annotator gives the margin 1 for every pair. They are "
            "evaluation data on {{ref}}`btb-subjectivity` and {{ref}}`btb-rewards`.",
        ],
        "btb.rewards": [
            "Margins come from PandaLM's three real annotators (the paper's 'gold standard'), not from an LLM.",
            "p*: PandaLM = the three annotators' share; LLMBar (single-correct by construction, "
            "never trained on) = its gold label; HH-RLHF (harmless-base test split, "
            "{hh_rlhf_test}, never trained on) = its one crowdworker's label. For LLMBar and "
            "HH-RLHF p* is therefore 0 or 1 — one label, not a population's share.",
            "Both single-label sets are out-of-domain (the RMs are trained on PandaLM only); "
            "HH-RLHF pairs get no category of subjectivity (no labeller) and count in 'all' and "
            "'OOD' only.",
            "The reward model is a linear head on frozen all-MiniLM-L6-v2 embeddings.",
        ],
        "cross": [
            "PandaLM's three real annotators give the agreement classes, the gold margin (Eq. 3 over "
            "three judgments) and p* (their share): all three come from the same three judgments, so "
            "a link between them is partly true by construction.",
            "No synthetic margin: no LLM judge runs offline (the embedded Gemma 3 270M base model is "
            "too slow for every pair here, see {{ref}}`btb-margins`). The margin-regularized RM "
            "trains on the gold margin.",
            "PandaLM has no Likert scores, so the MSE model is not trained. Reward models are small "
            "heads over frozen all-MiniLM-L6-v2 embeddings.",
        ],
    },
}

#: The **paper** profile.
PAPER = {
    "summary": "the papers' data sets, models and hyper-parameters.",
    "stand_ins": {
        "btb.rewards": [
            "p* and the categories come from human answers to Appendix B where the parameter file's labels "
            "file gives them (the paper's three annotators), else from the data's own annotators "
            "where a pair has at least three, else from an LLM labeller of another model family "
            "(Qwen) than the Llama-3-70B-Instruct whose votes give the training margins; the "
            "section 'Where p\\* and the categories come from' counts the pairs of each source "
            "and warns when they are not human."
        ],
        "cross": ["Synthetic margins from {judge}; reward models as named in the parameter file."],
    },
}

#: Every profile by name.
PROFILES = {"demo": DEMO, "sample": SAMPLE, "paper": PAPER}


def summary(profile: str) -> str:
    """What the numbers of ``profile``'s pages are, in one sentence ("" for a profile not listed here)."""
    return PROFILES.get(profile, {}).get("summary", "")


def stand_ins(profile: str, page: str, **fields) -> list[str]:
    """The stand-ins ``profile`` uses on ``page`` (``part.page``, e.g. ``"btb.margins"``; a part's pages that share
    one list name the part, e.g. ``"cross"``), each formatted with ``fields`` (the page's settings the sentence
    quotes, e.g. ``noise``); [] for a page or profile without any."""
    items = PROFILES.get(profile, {}).get("stand_ins", {}).get(page, [])
    return [s.format(**fields) for s in items]
