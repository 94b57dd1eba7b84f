"""The Diverging Preferences study on any profile: :func:`setup` loads the data sets once and returns a
:class:`Study` whose methods each compute one section of a Part I page and return a
:class:`pluralign.report.Result`.

- agreement classes (§2): :meth:`Study.agreement_shares`, :meth:`Study.class_examples`,
  :meth:`Study.planted_recovery`;
- causes (Table 1, §2.1): :meth:`Study.taxonomy`, :meth:`Study.diverging_pairs`, :meth:`Study.cause_frequencies`,
  :meth:`Study.annotation_sheets`, :meth:`Study.annotation_round_trip`, :meth:`Study.label_agreement`,
  :meth:`Study.cause_prompt`, :meth:`Study.llm_causes`;
- reward models (§3, Table 2): :meth:`Study.reward_models`, :meth:`Study.table2`, :meth:`Study.decisiveness`;
- do models know (§4): :meth:`Study.mean_variance`, :meth:`Study.mean_variance_table2`, :meth:`Study.judge_decisiveness`.

Heavy steps (embedding, training) are cached on disk by :mod:`pluralign.rewards`; within one study each is
done once (cached properties), whichever section asks first.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from pluralign import data as pdata
from pluralign import paper, report
from pluralign.diverging import agreement as agr
from pluralign.diverging import causes as cz
from pluralign.diverging import knowing as kn
from pluralign.diverging import plots
from pluralign.diverging import reward_models as rmod
from pluralign.params import named_model
from pluralign.report import Result

__all__ = ["Study", "MeanVarianceRun", "setup", "STAND_INS", "HEADS"]

#: How the demo and sample profiles' reward-model heads are named in the pages.
HEADS = {"linear": "linear", "mlp": "small MLP"}

#: Per page and profile, the offline stand-ins the profile note names ({head}: the reward-model head).
STAND_INS = {
    "agreement": {
        "demo": [
            "the simulator's data sets in the MultiPref format (A/B/tie + slight/significant) and the "
            "HelpSteer2 format (per-response Likert scores) stand in for MultiPref and HelpSteer2; the same "
            "texts in both"
        ],
        "sample": [
            "PandaLM's test set (three human annotators per pair, verdicts without strength) stands in for "
            "MultiPref and HelpSteer2, which live on the Hugging Face Hub; its shares are set beside the "
            'paper\'s MultiPref figure, marked "stand-in reference" (PandaLM is not MultiPref)'
        ],
    },
    "causes": {
        "demo": [
            "the simulator's planted cause of each pair is the reference labelling (in place of the authors' "
            "annotations)",
            "a rule-based labeller reading surface features (length, lists and headings, "
            "refusal phrases) is the second 'annotator' written into the annotation sheet",
        ],
        "sample": [
            "PandaLM's test set stands in for MultiPref and HelpSteer2; nobody has annotated its causes, so "
            "the annotation sheet is produced but no cause frequencies or agreement are computed"
        ],
    },
    "rewards": {
        "demo": [
            "simulated MultiPref-format and HelpSteer2-format data (same texts) stand in for MultiPref and HelpSteer2",
            "reward models are a {head} head over frozen all-MiniLM-L6-v2 embeddings, not "
            "Llama-3-8B-Instruct with LoRA",
        ],
        "sample": [
            "PandaLM's three-annotator test set stands in for MultiPref (its Table 2 block is shown beside "
            'ours, marked "stand-in reference"); it has no Likert scores, so the MSE models are not '
            "trained",
            "reward models are a {head} head over frozen all-MiniLM-L6-v2 embeddings, not "
            "Llama-3-8B-Instruct with LoRA",
        ],
    },
    "know": {
        "demo": [
            "simulated MultiPref-format and HelpSteer2-format data (same texts) stand in for MultiPref and HelpSteer2",
            "the mean-variance reward model is a {head} head (μ and σ) over frozen "
            "all-MiniLM-L6-v2 embeddings, not Llama-3-8B-Instruct with LoRA",
            "the LLM judge is a **simulated judge** (`diverging.knowing.simulated_judge`): its P(A) is drawn "
            "around the planted population share preferring A (log-odds noise sd 1), so it knows the split "
            "by construction — the section checks that the measure finds that, not what LLM judges do "
            "(the sample profile shows real judges' published verdicts)",
        ],
        "sample": [
            "PandaLM's three-annotator test set stands in for MultiPref and HelpSteer2 (the paper's "
            'MultiPref BT (All) values are shown beside it, marked "stand-in reference")',
            "the mean-variance reward model is a {head} head over frozen all-MiniLM-L6-v2 embeddings",
            "the LLM judges are the verdicts PandaLM published for GPT-3.5 and PandaLM-7B",
        ],
    },
}

_NO_JUDGE = (
    "No LLM judge runs on this profile. The simulated pairs have no judge verdicts, and the only LLM in "
    "the demo profile, Gemma 3 270M, is a base model whose A/B log-probabilities on simulated text would "
    "measure its position bias more than its judgment. The sample profile runs this section on the "
    "PandaLM test set, whose three human annotators and the published GPT-3.5 and PandaLM-7B verdicts "
    "cover the same pairs."
)

_NO_CLASSIFIER = (
    "The classifier is **not run on this profile**. The only LLM shipped with the demo and sample profiles is "
    "Gemma 3 270M, a *base* model: it continues text but does not follow an instruction to answer in JSON, so "
    "its labels would be noise. The path itself is exercised in `tests/test_causes.py` against a real "
    "OpenAI-compatible server on 127.0.0.1, and the paper profile runs it (parameter `cause_classifier`, e.g. "
    '`{llm: {name: "openai:gpt-4o-2024-08-06", api_key_env: OPENAI_API_KEY}, pairs: 50}`).'
)


@dataclass
class MeanVarianceRun:
    """The "do models know?" experiment on one data set: the reward-model ``run`` (BT (All) and the
    mean-variance RM), the mean-variance RM's held-out Gaussian rewards with predicted and observed
    disagreement (``mv``, :func:`~pluralign.diverging.knowing.mean_variance_disagreement`) and their
    :class:`~pluralign.diverging.knowing.DisagreementSummary`."""

    run: rmod.RewardModelRun
    mv: pd.DataFrame
    summary: kn.DisagreementSummary


def _pct(v) -> str:
    return "n/a" if pd.isna(v) else f"{v:.0%}"


@dataclass
class Study:
    """The loaded data sets of one Part I page and its settings (see :func:`setup` for each field)."""

    data: list
    profile: str = "demo"
    seed: int = 0
    ties: str = "majority"
    paper_reference: dict = field(default_factory=dict)
    split: dict = field(default_factory=lambda: {"test": 300, "validation": 100})
    reward_model: dict = field(default_factory=dict)
    train: dict = field(default_factory=dict)
    n_boot: int = 2000
    judges: dict | None = None
    judge_llm: dict | None = None
    annotation: dict = field(default_factory=dict)
    cause_classifier: dict = field(default_factory=dict)
    mse_aggregate: str = "majority"

    # ---- shared pieces -------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [d.name for d in self.data]

    def dataset(self, name: str):
        return next(d for d in self.data if d.name == name)

    @cached_property
    def classified(self) -> dict[str, pd.DataFrame]:
        """The agreement classes of every pair, per data set (:func:`~pluralign.diverging.agreement.agreement_classes`)."""
        return {d.name: agr.agreement_classes(d, ties=self.ties) for d in self.data}

    @property
    def head(self) -> str:
        return HEADS.get(self.reward_model.get("head", "linear"), "linear")

    def profile_note(self, page: str):
        """The page's profile admonition (:func:`pluralign.report.profile_note`) with the stand-ins this profile
        uses on ``page`` ("agreement", "causes", "rewards", "know")."""
        items = STAND_INS[page].get(self.profile)
        return report.profile_note(self.profile, [s.format(head=self.head) for s in items] if items else None)

    @property
    def has_truth(self) -> bool:
        return all(d.truth is not None for d in self.data)

    # ---- §2: agreement classes -------------------------------------------------------------------------
    @cached_property
    def shares(self) -> pd.DataFrame:
        return pd.concat([agr.shares(c, paper_reference=self.paper_reference) for c in self.classified.values()])

    def agreement_shares(self) -> Result:
        """Count and share of every agreement class per data set, beside §2's diverging shares (39% MultiPref,
        24% HelpSteer2), as a table, a stacked-bar figure and one sentence per data set."""
        sh = self.shares
        cols = ["high-agreement-pref", "high-agreement-tie", "diverging", "diverging-substantial", "other"]
        table = pd.DataFrame({"pairs": sh["n"]})
        for c in cols:
            table[c] = [f"{k} ({v:.1%})" for k, v in zip(sh[c], sh[f"{c} share"])]
        planted = {d.name: agr.planted_divergence(d) for d in self.data}
        table["planted: diverging"] = [
            f"{planted[n].mean():.1%}" if planted.get(n) is not None else "—" for n in table.index
        ]
        table["paper: diverging"] = sh["paper diverging share"].map(_pct)
        table["paper reference"] = sh["paper reference"].map(lambda v: "n/a" if pd.isna(v) else v)
        lines = []
        for name in sh.index:
            words = "."
            v = sh.loc[name, "paper diverging share"]
            if pd.notna(v):
                paper_set = agr.PAPER_DATASETS[agr.paper_dataset(name, self.paper_reference)]
                words = (
                    f"; the paper reports {v:.0%} on {paper_set}, shown as a *stand-in reference* ({name} is "
                    f"not {paper_set}, only compared with it)."
                    if sh.loc[name, "paper stand-in"]
                    else f"; the paper reports {v:.0%} on {paper_set}."
                )
            lines.append(
                f"- **{name}** ({int(sh.loc[name, 'n'])} pairs): {sh.loc[name, 'diverging share']:.1%} "
                f"diverging, {sh.loc[name, 'diverging-substantial share']:.1%} substantially so" + words
            )
        values = {}
        for i, name in enumerate(sh.index):
            values[f"div_share_{i}"] = float(sh.loc[name, "diverging share"])
            values[f"div_n_{i}"] = int(sh.loc[name, "n"])
            values[f"subst_share_{i}"] = float(sh.loc[name, "diverging-substantial share"])
        values["paper_mp"] = agr.paper_diverging_share("multipref")
        values["paper_hs2"] = agr.paper_diverging_share("helpsteer2")
        from pluralign.report import warning

        single = [d.name for d in self.data if len(d) and int(d.n_annotators().max()) <= 1]
        warn = [
            warning(
                f"**{name}** has one judgment per pair: no pair can be diverging (nor in any class that "
                "needs annotators to disagree), so its shares say nothing about disagreement. The agreement "
                "classes need several annotators per pair."
            )
            for name in single
        ]
        if any(v is not None for v in planted.values()):
            lines.append(
                '\n"planted: diverging" is the share the simulator\'s planted population makes diverging '
                "with each pair's annotators (`agreement.planted_divergence`; the recovery page checks it "
                'against the estimate); "—": no planted population for that format or data set.'
            )
        return Result(
            table=table,
            figure=plots.agreement_shares(sh),
            paper=paper.numbers("diverging", "§2"),
            note="\n\n".join(warn + ["\n".join(lines)]),
            values=values,
            data={"shares": sh},
        )

    def class_examples(self, per_class: int = 2) -> Result:
        """A few pairs of each agreement class of the first data set, with their judgments and prompt."""
        first = self.data[0]
        votes = agr.votes_text(first)
        prompts = first.pairs.set_index("pair_id")["prompt"]
        ex = self.classified[first.name].groupby("agreement", sort=False).head(per_class)
        ex = ex.assign(
            votes=votes.reindex(ex.index).to_numpy(), prompt=prompts.loc[ex.index].str.slice(0, 80).to_numpy()
        )
        return Result(table=ex[["agreement", "substantial", "votes", "prompt"]].sort_values("agreement"))

    def planted_recovery(self) -> Result:
        """How the agreement classes line up with the simulator's planted truth, per data set
        (:func:`~pluralign.diverging.agreement.planted_recovery`); on real data, a note that there is none."""
        if not all(d.truth is not None and "taste_driven" in d.truth.columns for d in self.data):
            return Result(
                table=None, note="Real data carries no planted truth: this check runs on the demo profile only."
            )
        rec = {d.name: agr.planted_recovery(self.classified[d.name], d.truth) for d in self.data}
        note = "\n\n".join(
            f"**{name}**: {r.precision:.1%} of the diverging pairs were planted as taste-driven; "
            f"{r.recall:.1%} of the taste-driven pairs come out diverging."
            for name, r in rec.items()
        )
        table = pd.concat({name: r.table for name, r in rec.items()}, names=["data set", "planted"])
        for c in agr.CLASSES:
            table[c] = table[c].map(lambda v: f"{v:.1%}")
        return Result(table=table, note=note, data={"recovery": rec})

    # ---- Table 1 and §2.1: causes ----------------------------------------------------------------------
    @cached_property
    def diverging_ids(self) -> dict[str, pd.Index]:
        return {name: cl.index[cl["agreement"] == "diverging"] for name, cl in self.classified.items()}

    @property
    def use_planted(self) -> bool:
        return self.annotation.get("reference") == "planted" and all(
            d.truth is not None and "cause" in d.truth.columns for d in self.data
        )

    def taxonomy(self) -> Result:
        """Table 1: the ten causes with their §2.1 definitions and the paper's frequencies."""
        t = cz.taxonomy_table().reset_index(drop=True)
        t["paper MP"], t["paper HS2"] = t["paper MP"].map(_pct), t["paper HS2"].map(_pct)
        return Result(
            table=t[["class", "category", "definition", "paper MP", "paper HS2"]],
            paper=paper.numbers("diverging", "Table 1"),
        )

    def diverging_pairs(self) -> Result:
        """The number of diverging pairs per data set."""
        return Result(
            table=pd.Series({n: len(i) for n, i in self.diverging_ids.items()}, name="diverging pairs").to_frame()
        )

    def _frequencies(self, labels: dict, title: str) -> tuple[pd.DataFrame, object]:
        freq = cz.cause_frequencies(labels)
        return freq, plots.cause_frequencies(freq, list(labels), title)

    def cause_frequencies(self) -> Result:
        """Cause frequencies of the reference labelling (the simulator's planted causes on the demo profile)
        beside Table 1; without a reference labelling, a note saying where the frequencies will come from."""
        if not self.use_planted:
            return Result(
                table=None,
                note="No reference cause labelling on this profile: the frequencies come from "
                "the annotation sheets below once people have filled them in "
                "(`annotation.files`).",
            )
        planted = {d.name: cz.planted_causes(d.truth, self.diverging_ids[d.name]) for d in self.data}
        freq, fig = self._frequencies(planted, "Causes of diverging preferences: planted reference vs Table 1")
        none = {d.name: int((d.truth.loc[self.diverging_ids[d.name], "cause"] == "none").sum()) for d in self.data}
        note = (
            "On this profile every pair was generated for one planted cause, so the reference labelling has "
            "exactly one cause per pair (the authors' pairs often carry several, so their column sums exceed "
            "100%). Diverging pairs planted as objective ('none': a plain error, harmful compliance, a "
            "paraphrase) carry no Table 1 cause and are left out: "
            + ", ".join(f"{n} of {len(self.diverging_ids[k])} in {k}" for k, n in none.items())
            + ".\n\n"
            "Labelled diverging pairs — " + ", ".join(f"{k}: {freq[f'{k} n'].iloc[0]} pairs" for k in planted) + "."
        )
        table = freq.drop(columns=[f"{k} n" for k in planted]).set_index("category", append=True)
        for c in [*planted, "paper MP", "paper HS2"]:
            table[c] = table[c].map(lambda v: f"{v:.1%}")
        return Result(
            table=table,
            figure=fig,
            note=note,
            paper=paper.numbers("diverging", "Table 1"),
            data={"frequencies": freq, "labels": planted},
        )

    @cached_property
    def annotation_folder(self) -> Path:
        d = self.annotation.get("dir")
        return Path(d) if d else Path(tempfile.mkdtemp(prefix="pluralign-causes-"))

    @cached_property
    def sheets(self) -> dict[str, tuple[Path, pd.DataFrame]]:
        """``{data set: (path, sheet)}``: the exported annotation sheet of each data set
        (:func:`~pluralign.diverging.causes.export_for_annotation`, ``annotation.n`` pairs at most)."""
        out = {}
        for d in self.data:
            n = min(int(self.annotation.get("n", 50)), len(self.diverging_ids[d.name]))
            path = self.annotation_folder / f"causes-{d.name}.xlsx"
            out[d.name] = (path, cz.export_for_annotation(d, self.classified[d.name], n, path, seed=self.seed))
        return out

    def annotation_sheets(self) -> Result:
        """Export one cause-annotation spreadsheet per data set; the table shows the first rows of the first
        sheet, and reading the fresh sheet back gives no labels (``values["read_back"]``)."""
        path, sheet = next(iter(self.sheets.values()))
        n_back = len(cz.import_annotations(path))
        return Result(
            table=sheet[["pair_id", "votes", "prompt", "annotator", *cz.CAUSE_IDS[:3]]].head(3),
            note=f"Labels read back from the fresh sheet `{path.name}`: **{n_back}**.",
            values={},
            data={"read_back": n_back, "sheets": self.sheets},
        )

    @cached_property
    def _round_trip(self) -> tuple[dict, dict]:
        """(labels written into the sheets, labels imported back), per data set."""
        written, files = {}, dict(self.annotation.get("files") or {})
        if self.use_planted:
            for name, (path, sheet) in self.sheets.items():
                d = self.dataset(name)
                written[name] = pd.concat(
                    [cz.planted_causes(d.truth, sheet["pair_id"]), cz.rule_causes(d, sheet["pair_id"])],
                    ignore_index=True,
                )
                filled = self.annotation_folder / f"causes-{name}-filled.xlsx"
                cz.write_annotations(path, written[name], filled)
                files[name] = [filled]
        return written, {name: cz.import_annotations(f) for name, f in files.items()}

    def annotation_round_trip(self) -> Result:
        """Fill the sheets in and read them back: on the demo profile two 'annotators' (the planted causes and
        :func:`~pluralign.diverging.causes.rule_causes`) are written with
        :func:`~pluralign.diverging.causes.write_annotations`; otherwise the files of ``annotation.files`` are
        read. The table counts the labels imported per data set; the note says whether they came back
        unchanged."""
        written, imported = self._round_trip
        table = pd.Series({n: len(v) for n, v in imported.items()}, name="labels imported", dtype=int).to_frame()
        if written:
            same = all(
                {(r.pair_id, r.annotator): r.causes for r in written[n].itertuples()}
                == {(r.pair_id, r.annotator): r.causes for r in imported[n].itertuples()}
                for n in written
            )
            note = (
                "On this profile the sheets are filled in the way an annotator would, with "
                "`write_annotations`, for two 'annotators': **planted** — the simulator's planted cause (the "
                "reference) — and **rules** — `rule_causes`, a labeller that sees only surface features (one "
                f"response has ≥ {cz.VERBOSITY_RATIO:g}× the words and at least {cz.MIN_EXTRA_WORDS} more → "
                "verbosity; a list or heading on one side only → format; refusal phrases → comply-vs-refuse or "
                "refuse-vs-refuse) and leaves a pair blank when none fires. Neither is a person: the point is "
                "that what goes into the spreadsheet comes back out unchanged, and that the agreement "
                "statistics behave as they should.\n\nLabels written and read back are identical for every "
                "data set: **"
                + ("yes" if same else "NO")
                + "** ("
                + ", ".join(f"{n}: {len(written[n])} labels" for n in written)
                + ")."
            )
        elif not imported:
            note = (
                f"The sheets are in `{self.annotation_folder}` (one per data set). Fill them in (one copy per "
                "annotator), list them under `annotation.files` and re-run the page to get cause frequencies "
                "and agreement."
            )
        else:
            note = ""
        figure = None
        labelled = {k: v for k, v in imported.items() if len(v)}
        if not self.use_planted and labelled:
            freq, figure = self._frequencies(
                labelled, "Causes of diverging preferences: imported annotations vs Table 1"
            )
            note += (
                "\n\nCause frequencies from the imported annotations (every annotator's judgment of a pair "
                "counts once), beside Table 1:\n\n" + report.present_markdown(freq)
            )
        return Result(
            table=table if len(table) else None,
            figure=figure,
            note=note,
            data={"written": written, "imported": imported},
        )

    def label_agreement(self) -> Result:
        """§2.1's agreement statistics (Cohen's κ over full label sets, Krippendorff's α with MASI distance) per
        data set with labels from two or more annotators, beside the paper's."""
        _, imported = self._round_trip
        agree = cz.agreement_table(imported, paper_reference=self.paper_reference)
        notes = []
        skipped = [k for k in imported if k not in agree.index]
        if skipped:
            notes.append(
                "Labels from fewer than two annotators, so no agreement: " + ", ".join(str(k) for k in skipped) + "."
            )
        if any(agr.is_stand_in(k, self.paper_reference) for k in agree.index):
            notes.append(
                'Rows whose paper reference says "stand-in reference" are compared with the κ and α the '
                "paper reports for a different data set, which they only stand in for."
            )
        if not len(agree):
            notes.append(
                "No data set has cause labels from two or more annotators on this run, so there is no "
                "agreement to compute."
            )
        if self.use_planted:
            notes.append(
                "The paper's figures are agreement between three of its authors. Here the two 'annotators' are the "
                "planted reference and the surface-feature labeller, so κ and α measure how much of the planted "
                "causes a reader of surface features recovers: it finds verbosity, format and refusals, cannot see "
                "complexity, taste or task ambiguity, and often marks an extra cause (a dressed-up wrong answer is "
                "also longer and formatted) — which κ counts as full disagreement and MASI as partial agreement. "
                "Low values here say the surface features miss most causes, which is why the paper needed people "
                "(and an LLM classifier) to label them."
            )
        table = agree.copy()
        for c in ["κ", "α (MASI)", "paper κ", "paper α"]:
            table[c] = table[c].map(lambda v: "n/a" if pd.isna(v) else f"{v:.2f}")
        return Result(
            table=table if len(agree) else None,
            note="\n\n".join(notes),
            paper=paper.numbers("diverging", "§2.1"),
            data={"agreement": agree},
        )

    def cause_prompt(self, max_chars: int = 600) -> Result:
        """The cause classifier's prompt for the first sampled pair (:func:`~pluralign.diverging.causes.cause_prompt`)."""
        name, (_, sheet) = next(iter(self.sheets.items()))
        row = self.dataset(name).pairs.set_index("pair_id").loc[sheet["pair_id"].iloc[0]]
        text = cz.cause_prompt(row["prompt"], row["response_a"], row["response_b"], max_chars=max_chars)
        return Result(table=None, note=f"```text\n{text}\n```", data={"prompt": text})

    def llm_causes(self) -> Result:
        """Label the sampled diverging pairs with the LLM cause classifier (``cause_classifier.llm``, at most
        ``cause_classifier.pairs`` per data set) and compare it with the imported human labels; without a
        classifier, a note saying why it does not run."""
        spec = self.cause_classifier.get("llm")
        if spec is None:
            return Result(table=None, skipped=_NO_CLASSIFIER)
        from pluralign import llm as llms

        classifier = llms.load(**spec)
        _, imported = self._round_trip
        tables, notes, figs = {}, [], []
        for name, (_, sheet) in self.sheets.items():
            ids = list(sheet["pair_id"])[: int(self.cause_classifier.get("pairs", 50))]
            got = cz.classify_causes(self.dataset(name), classifier, ids, job=f"diverging-causes-{name}")
            labels = got.labels
            notes.append(
                f"**{name}**: {len(labels)} pairs labelled, {len(got.failed)} failed "
                f"validation, {len(got.patched)} needed a retry."
            )
            freq, fig = self._frequencies(
                {f"{name} (LLM)": labels}, f"{name}: causes from the LLM classifier vs Table 1"
            )
            tables[name], figs = freq, figs + [fig]
            humans = imported.get(name)
            if humans is not None and len(humans):
                a = cz.label_agreement(
                    pd.concat([humans, labels[["pair_id", "annotator", "causes"]]], ignore_index=True)
                )
                notes.append(
                    pd.Series(a["pairwise_kappa"], name="κ")
                    .to_frame()
                    .assign(**{"α (MASI), all annotators": a["alpha"]})
                    .pipe(report.present_markdown)
                )
        return Result(
            table=pd.concat(tables, names=["data set", "cause"]),
            figure=figs[0] if figs else None,
            note="\n\n".join(notes),
            data={"figures": figs},
        )

    # ---- §3 and Table 2: reward models -----------------------------------------------------------------
    @cached_property
    def rm(self):
        """The base reward model every Table 2 and mean-variance model is a trained copy of."""
        from pluralign import rewards

        return rewards.load(**self.reward_model)

    def loading_line(self) -> str:
        """One line on how the base reward model was loaded — quantization (8-bit / 4-bit / none, read from its
        layers), precision, LoRA, device (:func:`pluralign.rewards.describe_loading`); every trained model is a
        copy loaded the same way."""
        from pluralign import rewards

        return f"*Reward models: trained copies of {rewards.describe_loading(self.rm)}.*"

    def _study(self, models=None) -> dict:
        out = {}
        for d in self.data:
            out[d.name] = rmod.reward_model_study(
                self.rm,
                d,
                test=self.split["test"],
                validation=self.split["validation"],
                seed=self.seed,
                models=models,
                classified=self.classified[d.name],
                **self.train,
            )
        return out

    @cached_property
    def runs(self) -> dict[str, rmod.RewardModelRun]:
        """Per data set, :func:`~pluralign.diverging.reward_models.reward_model_study` with Table 2's models (MSE (Agg)
        on the ``mse_aggregate`` variant of its label, :func:`~pluralign.diverging.reward_models.table2_models`)."""
        return self._study(rmod.table2_models(self.mse_aggregate))

    def reward_models(self) -> Result:
        """Training, validation and held-out pairs per data set, the models trained and the training instances
        per model (BT drops ties: a pair whose majority is a tie for Agg, each tie judgment for All)."""
        runs = self.runs
        table = pd.DataFrame(
            {
                name: {
                    "training pairs": len(r.train.pairs),
                    "validation pairs": len(r.validation.pairs),
                    "held-out pairs": len(r.heldout.pairs),
                    "models": ", ".join(r.models),
                    "not trained": ", ".join(r.skipped) or "—",
                }
                for name, r in runs.items()
            }
        ).T
        inst = pd.DataFrame(
            {
                (name, m): {"training instances": model.info.get("n_instances"), **model.dropped}
                for name, r in runs.items()
                for m, model in r.models.items()
            }
        ).T
        inst = inst.fillna(0).astype(int)
        note = (
            self.loading_line() + "\n\n"
            "Training instances per model (BT drops ties: a pair whose majority is a tie or a split for Agg, "
            "each tie judgment for All; MSE (Agg) on the majority vote drops the split pairs, which have no "
            "majority):\n\n" + report.present_markdown(inst)
        )
        note += "".join(
            f"\n\n*{name}: {m} is not trained — {why}.*" for name, r in runs.items() for m, why in r.skipped.items()
        )
        return Result(table=table, note=note, data={"instances": inst})

    def _table2(self, runs: dict, *, also: bool, paper_only_models: bool) -> tuple[pd.DataFrame, dict, list]:
        frames, raw, notes = {}, {}, []
        for name, r in runs.items():
            raw[name] = t = rmod.table2(
                r.classified, p_a=r.p_a, reward_gap=r.gap or None, n_boot=self.n_boot, seed=self.seed
            )
            beside = rmod.table2_vs_paper(
                t,
                name,
                also=r.skipped if also else (),
                paper_reference=self.paper_reference,
                paper_only_models=paper_only_models,
            )
            label = agr.paper_label(name, self.paper_reference)
            if label is not None and agr.is_stand_in(name, self.paper_reference):
                notes.append(
                    f'*{name}: the columns marked "(paper)" are {label}, the paper\'s values for a '
                    f"different data set, which {name} stands in for: a reference point, not a "
                    "replication target.*"
                )
            elif label is not None:
                notes.append(f'*{name}: the columns marked "(paper)" are {label}.*')
            beside.columns = [
                c.removesuffix(" paper") + " (paper)" if c.endswith(" paper") else c for c in beside.columns
            ]
            truth = getattr(r.heldout, "truth", None)
            if truth is not None and "share_a" in truth.columns:  # the demo: what the planted population does
                ids = pd.Index(r.heldout.pairs["pair_id"])  # the held-out pairs every model is evaluated on
                planted = rmod.table2(
                    r.classified,
                    p_a={"population": truth["share_a"].reindex(ids).astype(float)},
                    n_boot=self.n_boot,
                    seed=self.seed,
                )
                if not any(n.startswith("*Planted") for n in notes):
                    notes.append(
                        "*Planted: the simulated population's own P(chosen ≻ rejected) on the same pairs "
                        "(the mean of max(p*, 1 − p*)) — what a reward model that knew how the whole "
                        "population splits would show; a model's column above it overstates the "
                        "population's agreement, below it understates it.*"
                    )
                beside["planted: the population's P(chosen ≻ rejected)"] = [
                    f"{v:.3f}" if v == v else "n/a" for v in planted["population"].reindex(beside.index)
                ]
            frames[name] = beside
        table = pd.concat(frames, names=["data set", "subset"]).fillna("n/a")
        return table, raw, notes

    def table2(self) -> Result:
        """Table 2: per data set and agreement subset of the held-out pairs, the count and each model's mean
        P(chosen ≻ rejected) (BT) or r_chosen − r_rejected (MSE) with a 95% bootstrap CI, beside the paper's."""
        table, raw, notes = self._table2(self.runs, also=True, paper_only_models=True)
        first = next(iter(raw))
        t = raw[first]
        counts = rmod.paper_table2("multipref")["# Ex."]  # MultiPref's: the first three rows < All Examples
        values = {
            "t2_name": first,
            "t2_paper_sum": " + ".join(str(int(v)) for v in counts.iloc[:3]) + f" < {int(counts.iloc[-1])}",
        }
        for col in ("BT (Agg)", "BT (All)"):
            key = col.replace(" ", "").replace("(", "_").replace(")", "")
            values[f"t2_{key}_hap"] = float(t.loc["High-Agreement Prefs.", col])
            values[f"t2_{key}_div"] = float(t.loc["Diverging Prefs. (All)", col])
        if any("MSE (Agg)" in r.models for r in self.runs.values()):
            notes.append(
                f"*MSE (Agg) is trained on {rmod.MSE_AGGREGATES[self.mse_aggregate][1]} "
                f"(`mse_aggregate: {self.mse_aggregate}`).*"
            )
        values["t2_mse_aggregate"] = self.mse_aggregate
        if self.profile == "demo":
            notes.append(
                f"On the demo profile the reward models are a {self.head} head over frozen sentence "
                f"embeddings trained on {len(next(iter(self.runs.values())).train.pairs)} simulated "
                "pairs, not the paper's fine-tuned 8B models on thousands of real ones: their levels say "
                "little about the paper's columns; the comparison that carries over is across rows — "
                "diverging against high-agreement pairs."
            )
        return Result(
            table=table,
            note="\n\n".join(notes),
            values=values,
            paper=paper.numbers("diverging", "Table 2"),
            data={"table2": raw},
        )

    def decisiveness(self) -> Result:
        """Per held-out pair and model, P(chosen ≻ rejected) (BT) or r_chosen − r_rejected (MSE) by Table 2
        subset (a pair appears in every subset it belongs to), as violins; the table gives the medians."""
        values = {}
        for name, r in self.runs.items():
            v = rmod.chosen_values(r.classified, p_a=r.p_a, reward_gap=r.gap or None)
            values[name] = pd.concat(
                [v[m.to_numpy()].assign(subset=s) for s, m in rmod.subset_masks(v).items()], ignore_index=True
            )
        long = pd.concat(values, names=["data set"]).reset_index(level=0)
        table = long.pivot_table(
            index=["data set", "model"], columns="subset", values="value", aggfunc="median", sort=False
        )[list(rmod.SUBSETS)].round(3)
        return Result(
            table=table.rename_axis(columns="median by subset"),
            figure=plots.decisiveness(values, rmod.SUBSETS),
            data={"values": values},
        )

    # ---- §4: do models know? ---------------------------------------------------------------------------
    @cached_property
    def mv_runs(self) -> dict[str, MeanVarianceRun]:
        """Per data set, BT (All) and the mean-variance RM trained on the Table 2 split, their held-out outputs,
        the mean-variance model's predicted and observed disagreement and its
        :func:`~pluralign.diverging.knowing.disagreement_summary`."""
        models = {"BT (All)": rmod.TABLE2_MODELS["BT (All)"], **kn.MEAN_VARIANCE_MODEL}
        mv_name = next(iter(kn.MEAN_VARIANCE_MODEL))
        out = {}
        for name, r in self._study(models).items():
            mv = kn.mean_variance_disagreement(r.models[mv_name], r.heldout, r.classified)
            out[name] = MeanVarianceRun(
                run=r, mv=mv, summary=kn.disagreement_summary(mv, r.classified, n_boot=self.n_boot, seed=self.seed)
            )
        return out

    def mean_variance(self) -> Result:
        """How well the mean-variance RM's predicted disagreement separates diverging from high-agreement
        held-out pairs (AUROC, 95% bootstrap CI; also against high-agreement preferences only) and its rank
        correlation with the observed disagreement, with the figure of both."""
        runs = self.mv_runs
        table = pd.DataFrame(
            {
                name: {
                    "diverging pairs": int(m.summary.labels.sum()),
                    "high-agreement pairs": int((~m.summary.labels).sum()),
                    "AUROC": round(m.summary.auc.estimate, 3),
                    "AUROC 95% CI": f"[{m.summary.auc.lo:.3f}, {m.summary.auc.hi:.3f}]",
                    "AUROC vs high-agreement prefs only": round(m.summary.auc_prefs.estimate, 3),
                    "its 95% CI": f"[{m.summary.auc_prefs.lo:.3f}, {m.summary.auc_prefs.hi:.3f}]",
                    "Spearman ρ (predicted, observed)": round(m.summary.corr["spearman"], 3),
                    "pairs": m.summary.corr["n"],
                }
                for name, m in runs.items()
            }
        ).T
        values = {}
        for i, (name, m) in enumerate(runs.items()):
            values.update(
                {
                    f"auc_{i}": float(m.summary.auc.estimate),
                    f"auc_lo_{i}": float(m.summary.auc.lo),
                    f"auc_hi_{i}": float(m.summary.auc.hi),
                    f"auc_name_{i}": name,
                }
            )
        fig_runs = {}
        for name, m in runs.items():
            truth = m.run.data.truth
            planted = (
                kn.split_probability(truth["share_a"].reindex(m.mv.index))
                if truth is not None and "share_a" in truth.columns
                else None
            )
            fig_runs[name] = {
                "mv": m.mv.join(m.run.classified[["agreement"]]),
                "auc": m.summary.auc,
                "corr": m.summary.corr,
                "planted": planted,
            }
        return Result(
            table=table,
            figure=plots.predicted_disagreement(fig_runs),
            values=values,
            note=self.loading_line(),
            data={"runs": runs},
        )

    def mean_variance_table2(self) -> Result:
        """The mean-variance RM's Table 2 row (P(chosen ≻ rejected) per subset) beside BT (All) and the paper's
        BT (All) values (the paper has no mean-variance row)."""
        table, raw, notes = self._table2(
            {n: m.run for n, m in self.mv_runs.items()}, also=False, paper_only_models=False
        )
        return Result(
            table=table, note="\n\n".join(notes), paper=paper.numbers("diverging", "Table 2"), data={"table2": raw}
        )

    def judge_decisiveness(self) -> Result:
        """LLM judges' confidence per human agreement subset (:func:`~pluralign.diverging.knowing.judge_decisiveness`):
        published verdicts (``judges``) and/or an LLM's P(A) on the held-out pairs (``judge_llm``)."""
        if self.judges is None and self.judge_llm is None:
            return Result(table=None, skipped=_NO_JUDGE)
        decisiveness, dropped = {}, {}
        if self.judges is not None:
            humans = pdata.load(self.judges["humans"])
            verdicts = pdata.load(self.judges["verdicts"])
            classes = agr.agreement_classes(humans, ties=self.ties)
            for judge in self.judges["annotators"]:
                decisiveness[judge] = kn.judge_decisiveness(
                    kn.judge_verdicts(verdicts, judge), classes, n_boot=self.n_boot, seed=self.seed
                )
                dropped[judge] = kn.judge_filters(verdicts, judge)
        if self.judge_llm is not None:
            from pluralign import llm as llms

            sim = self.judge_llm.get("simulated")
            model = None if sim is not None else llms.load(**self.judge_llm.get("load", {}))
            # the held-out split of §4's runs (the same split as Table 2's): no Table 2 model is trained for this
            for name, r in ((n, m.run) for n, m in self.mv_runs.items()):
                pairs = r.heldout.pairs.head(self.judge_llm.get("n_pairs", len(r.heldout.pairs)))
                if sim is not None:  # the demo's named stand-in: a judge that knows the planted population split
                    probs = kn.simulated_judge(r.heldout.truth, pairs["pair_id"], seed=self.seed, **sim).to_numpy()
                else:
                    probs = model.judge_ab_many(
                        pairs[["prompt", "response_a", "response_b"]].to_dict("records"),
                        job=f"diverging-know-judge-{name}",
                    )
                decisiveness[f"{self.judge_llm.get('label', 'LLM judge')} on {name}"] = kn.judge_decisiveness(
                    pd.Series(probs, index=pairs["pair_id"].to_numpy(), dtype=float),
                    r.classified.loc[pairs["pair_id"].to_numpy()],
                    n_boot=self.n_boot,
                    seed=self.seed,
                )
        notes = []
        for judge, d in decisiveness.items():
            why = [f"{f['removed']} dropped by the data loader ({f['filter']})" for f in dropped.get(judge, [])]
            if d.n_unreadable:
                why.append(f"{d.n_unreadable} unreadable judgments")
            notes.append(
                f"**{judge}**: a readable judgment on {d.n_judged} of the {d.n_classified} pairs; "
                f"{d.n_without_verdict} pairs without one are left out" + (f" — {'; '.join(why)}." if why else ".")
            )
        notes.append(
            "A judge that knew when people disagree would name a winner less often on diverging pairs "
            "than on high-agreement preferences; the row *Diverging − High-Agreement Prefs.* of each "
            "table gives that difference with its CI."
        )
        tables = {j: d.table for j, d in decisiveness.items()}
        table = pd.concat(tables, names=["judge", "subset"]).round(3)
        fig = plots.judge_confidence(tables, rmod.SUBSETS[:3], {d.kind for d in decisiveness.values()})
        return Result(table=table, figure=fig, note="\n\n".join(notes), data={"decisiveness": decisiveness})


def setup(
    *,
    datasets,
    profile: str = "demo",
    seed: int = 0,
    ties: str = "majority",
    paper_reference=None,
    split: dict | None = None,
    reward_model=None,
    train: dict | None = None,
    n_boot: int = 2000,
    judges: dict | None = None,
    judge_llm: dict | None = None,
    annotation: dict | None = None,
    cause_classifier: dict | None = None,
    models: dict | None = None,
    mse_aggregate: str = "majority",
) -> Study:
    """Load the Part I data sets and settings of a page into a :class:`Study`.

    ``datasets``: data specs of :func:`pluralign.data.load`, one data set each (kept apart, never combined);
    ``ties``: how §3's "majority of annotators labeled the instance as a tie" is read ("majority" /
    "plurality"); ``paper_reference``: ``{data-set name: "multipref" | "helpsteer2"}`` for a stand-in data set
    (checked against the loaded names); ``split``: ``{"test": held-out pairs, "validation": pairs for the best
    checkpoint}``; ``reward_model``: :func:`pluralign.rewards.load` arguments, or the name of an entry of
    ``models`` (:func:`pluralign.params.named_model`); ``train``: ``RewardModel.train`` arguments; ``n_boot``:
    bootstrap resamples; ``judges`` / ``judge_llm``: LLM judges (:meth:`Study.judge_decisiveness`); ``annotation``: ``{"n":
    pairs per sheet, "dir": folder or None, "files": {data set: [filled sheets]}, "reference": "planted" or
    None}``; ``cause_classifier``: ``{"llm": pluralign.llm.load arguments (or the name of an entry of ``models``) or
    None, "pairs": pairs per data set}``; ``judge_llm["load"]`` may also name an entry of ``models``;
    ``mse_aggregate``: the MSE (Agg) model's label, ``"majority"`` (the paper's majority vote, §3) or ``"mean"``
    (the mean Likert score) — :data:`~pluralign.diverging.reward_models.MSE_AGGREGATES`."""
    if mse_aggregate not in rmod.MSE_AGGREGATES:
        raise ValueError(f"mse_aggregate must be one of {list(rmod.MSE_AGGREGATES)}, not {mse_aggregate!r}")
    loaded = [pdata.load(spec) for spec in datasets]
    names = {d.name for d in loaded} | {x for d in loaded for x in d.pairs["dataset"].unique()}
    ref = agr.check_paper_reference(paper_reference, names)
    rm = named_model(reward_model, models, what="reward_model") if reward_model is not None else {}
    cause_classifier = dict(cause_classifier or {})
    if cause_classifier.get("llm") is not None:
        cause_classifier["llm"] = named_model(cause_classifier["llm"], models, what="cause_classifier.llm")
    if judge_llm is not None and judge_llm.get("load") is not None:
        judge_llm = {**judge_llm, "load": named_model(judge_llm["load"], models, what="judge_llm.load")}
    if judge_llm is not None and (judge_llm.get("simulated") is None) == (judge_llm.get("load") is None):
        raise ValueError(
            "judge_llm needs exactly one of 'load' (pluralign.llm.load arguments) and 'simulated' "
            f"(the demo's stand-in, e.g. {{noise: 1.0}}), got keys {sorted(judge_llm)}"
        )
    return Study(
        data=loaded,
        profile=profile,
        seed=seed,
        ties=ties,
        paper_reference=ref,
        split={"test": 300, "validation": 100, **(split or {})},
        reward_model=dict(rm),
        train=dict(train or {}),
        n_boot=n_boot,
        judges=judges,
        judge_llm=judge_llm,
        annotation={"n": 50, "dir": None, "files": {}, "reference": None, **(annotation or {})},
        cause_classifier={"llm": None, "pairs": 50, **(cause_classifier or {})},
        mse_aggregate=mse_aggregate,
    )
