"""The Part III study (Beyond the Binary, Padmakumar et al. 2024): :func:`setup` turns a page's parameters
into a :class:`Study`, whose methods each compute one section of a page and return a
:class:`pluralign.report.Result`.

- Categories and p* (§3.1–3.2, Eq. 2): :meth:`Study.data_sets`, :meth:`Study.appendix_b`,
  :meth:`Study.categories`, :meth:`Study.examples`, :meth:`Study.p_star_by_category`,
  :meth:`Study.binary_judgment_gap`;
- synthetic judgments and margins (§3.3, Eq. 3): :meth:`Study.judgment_prompt`,
  :meth:`Study.synthetic_judgments`, :meth:`Study.judge_quality`, :meth:`Study.margin_distribution`,
  :meth:`Study.embedded_judge`;
- the reward models (§3.3–3.4, Eqs. 1 and 4, Tables 1–2): :meth:`Study.splits`,
  :meth:`Study.same_model_warning`, :meth:`Study.sources`, :meth:`Study.training_margins`, :meth:`Study.learning_rate_sweep`,
  :meth:`Study.table`, :meth:`Study.directions`, :meth:`Study.beside_paper`,
  :meth:`Study.paper_sized_check`, :meth:`Study.rm_vs_p_star`, :meth:`Study.delta_plot`;
- the paper's numbers each page quotes: :meth:`Study.paper_numbers`; the profile note:
  :meth:`Study.profile_note`.

Heavy steps (LLM judgments and labels, embeddings, trained models) are cached on disk by the modules they
call, so the three pages share one computation.
"""

from __future__ import annotations

import contextlib
import io
import time
import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.btb import evaluation as E
from pluralign.btb import margins as M
from pluralign.btb import plots
from pluralign.btb import subjectivity as S
from pluralign.btb import training as T
from pluralign.data.core import PreferenceData
from pluralign.data.spec import load_specs, split
from pluralign.llm import load as load_llm
from pluralign.params import named_model

__all__ = ["Study", "setup", "LABELLER", "JUDGE", "EVALUATION", "TRAINING"]

#: The LLM labeller of Appendix B (categories, p*): ``model`` (:func:`pluralign.llm.load` arguments, a list of
#: them for distinct labellers, or a key of ``models``), ``samples`` answers each (they differ only when
#: sampled: ``temperature`` > 0), ``job`` (a resumable job name).
#: The demo's data: the simulator's 1,200 pairs with planted p* and categories (a page's ``design`` overrides it)
DEMO_DATA = [{"simulate": {"n_pairs": 1200, "seed": 0}}]
LABELLER = {"model": None, "samples": 3, "temperature": 1.0, "top_p": 0.9, "job": "btb-labels"}
#: Where the synthetic judgments of Eq. 3 come from: ``from`` = ``"simulated"`` (the offline stand-in judge
#: with log-odds ``noise``), ``"llm"`` (``model`` with ``method`` "sample" — the paper's nucleus sampling,
#: ``top_p`` — or "logprob") or ``"annotators"`` (the data's own annotators); ``n`` judgments per pair.
JUDGE = {
    "from": "simulated",
    "n": 10,
    "top_p": 0.9,
    "noise": 1.0,
    "model": None,
    "method": "sample",
    "job": "btb-margins",
}
#: The test set of Tables 1–2: ``test_only`` (evaluation-only data specs, each sub-sampled to
#: ``test_per_dataset``), ``ood_by`` (a truth / pairs column whose ``values`` are out-of-domain), ``test_size``
#: held-out in-domain pairs, the data-set names (``dataset_column``: "dataset" or a truth column;
#: ``display_names``), which are ``in_domain`` / ``out_of_domain``, ``n_boot`` bootstrap resamples and
#: ``paper_sized_check`` (the size of a random test subset to compare the interval width on; 0 = skip).
EVALUATION = {
    "test_only": [],
    "test_per_dataset": 0,
    "ood_by": None,
    "test_size": 0,
    "dataset_column": "dataset",
    "display_names": {},
    "in_domain": list(E.PAPER_IN_DOMAIN),
    "out_of_domain": list(E.PAPER_OUT_OF_DOMAIN),
    "n_boot": 2000,
    "paper_sized_check": 0,
}
#: The reward models: ``reward_model`` (:func:`pluralign.rewards.load` arguments or a key of ``models``;
#: None = a linear head on frozen all-MiniLM-L6-v2), ``baseline_model`` (None: ``reward_model`` trained with
#: Eq. 1 and the same sweep; or an already trained RM), the learning rates ``lr_sweep`` chosen on
#: ``validation_size`` pairs by ``select_on`` (``"paper"`` = footnote 6's grid, :data:`pluralign.btb.training.LR_SWEEP`,
#: or a list; :func:`pluralign.btb.training.lr_grid`); every other key is passed to ``RewardModel.train``.
TRAINING = {
    "reward_model": None,
    "baseline_model": None,
    "lr_sweep": "paper",
    "select_on": "accuracy",
    "validation_size": 2000,
}

#: The offline stand-ins of each page, per profile (formatted with the study's settings).
STAND_INS = {
    "subjectivity": {
        "demo": [
            "The categories are the simulator's planted ones (single- vs multiple-correct prompt plans; "
            "paraphrase-only pairs are the indistinguishable ones), not an annotator's or an LLM's labels.",
            "p* is the planted population share P(A ≻ B) (computed from the simulated population, not "
            "estimated from 10-people answers).",
        ],
        "sample": [
            "p* is the share of PandaLM's three real annotators (Eq. 2 over a population of three); "
            "LLMBar pairs are single-correct by construction (one output follows the instruction) and "
            "their p* is that gold label (1 or 0).",
            "HH-RLHF (harmless-base test split, {hh_rlhf}) has one crowdworker label per "
            "pair: its p* is that label, 0 or 1 — a population of one, not the paper's three annotators' "
            "10-people estimate. Its pairs get no category (a red-teaming dialogue is neither clearly "
            "single- nor multiple-correct without a labeller) and count only in 'all'.",
            "No LLM labels the categories: the embedded model is a base model that cannot answer "
            "Appendix B's questions.",
        ],
    },
    "margins": {
        "demo": [
            "The synthetic judgments for all pairs come from a **simulated judge**, not Llama-3-70B-Instruct: "
            "its P(A) is the planted population share p* distorted by Gaussian log-odds noise "
            "(sd {noise:g}), and n = {n} judgments are drawn from it. Its quality is "
            "measured below. The real LLM path (the embedded Gemma 3 270M's next-token log-probabilities of "
            "' A' / ' B') runs on the `sample` profile, on a handful of real pairs."
        ],
        "sample": [
            "Margins come from PandaLM's three real annotators (the paper's 'gold standard', §2) and, for a "
            "handful of pairs, from the embedded Gemma 3 270M base model ({embedded_pairs} pairs, "
            "log-probability judgments), not from Llama-3-70B-Instruct.",
            "The sample's single-label sets (the HH-RLHF harmless test split, LLMBar) are not used here: Eq. 3 "
            "over one annotator gives the margin 1 for every pair. They are evaluation data on "
            "{{ref}}`btb-subjectivity` and {{ref}}`btb-rewards`.",
        ],
    },
    "rewards": {
        "demo": [
            "Margins come from a **simulated judge** (the planted p* with log-odds noise sd "
            "{noise:g}, n = {n} draws), not Llama-3-70B-Instruct — see "
            "{{ref}}`btb-margins` for its measured quality.",
            "p* and the categories are the simulator's planted ones; 'data sets' are the simulator's prompt "
            "types, two of which are held out entirely as out-of-domain.",
            "The reward model is a linear head on frozen all-MiniLM-L6-v2 embeddings, not DeBERTa-v3 fine-tuning.",
        ],
        "sample": [
            "Margins come from PandaLM's three real annotators (the paper's 'gold standard'), not from an LLM.",
            "p*: PandaLM = the three annotators' share; LLMBar (single-correct by construction, never trained "
            "on) = its gold label; HH-RLHF (harmless-base test split, "
            "{hh_rlhf_test}, never trained on) = its one crowdworker's label. "
            "For LLMBar and HH-RLHF p* is therefore 0 or 1 — one label, not a population's share.",
            "Both single-label sets are out-of-domain (the RMs are trained on PandaLM only); HH-RLHF pairs get "
            "no category of subjectivity (no labeller) and count in 'all' and 'OOD' only.",
            "The reward model is a linear head on frozen all-MiniLM-L6-v2 embeddings.",
        ],
        "paper": [
            "p* and the categories come from human answers to Appendix B where `labels_file` gives them (the "
            "paper's three annotators), else from the data's own annotators where a pair has at least three, "
            "else from an LLM labeller of another model family (Qwen) than the Llama-3-70B-Instruct whose votes "
            "give the training margins; the section 'Where p\\* and the categories come from' counts the pairs "
            "of each source and warns when they are not human."
        ],
    },
}

_QUANTITY = {"p*": "p\\*", "categories": "the categories"}  # as the pages' Markdown writes them
_NO_CATEGORY = ".*without a category.*"  # pairs without a category stay in "all" and leave that grouping


def _n_of(per_dataset, name: str) -> str:
    n = per_dataset.get(name) if isinstance(per_dataset, dict) else per_dataset
    return f"a random {n} of its pairs" if n else "all of its pairs"


def _lr(v: float) -> str:
    return f"{v:.0e}".replace("e-0", "e-").replace("e+0", "e")


@dataclass
class Comparison:
    """The trained reward models of §3.3 and their Tables 1–2 (:func:`pluralign.btb.evaluation.compare`)."""

    splits: T.Splits
    p_star: pd.Series
    groups: pd.DataFrame
    margins: pd.Series
    sweeps: pd.DataFrame
    p_baseline: pd.Series
    p_regularized: pd.Series
    table: pd.DataFrame | None  # None: no test pair has p*
    margins_missing: int = 0  # training pairs without a parseable judgment (trained with margin 0)


@dataclass
class Study:
    """The data and settings of Part III's pages (:func:`setup`), and one method per section of a page."""

    profile: str
    seed: int
    data: PreferenceData
    parts: list
    p_star_from: object = "truth"  # a source name or a fallback chain (list)
    category_source: object = "truth"
    labels_file: str | None = None
    per_dataset: object = 0
    labeller: dict = field(default_factory=lambda: dict(LABELLER))
    judge: dict = field(default_factory=lambda: dict(JUDGE))
    evaluation: dict = field(default_factory=lambda: dict(EVALUATION))
    training: dict = field(default_factory=lambda: dict(TRAINING))

    # ---- shared ---------------------------------------------------------------------------------
    @property
    def ids(self) -> pd.Index:
        return pd.Index(self.data.pairs["pair_id"], name="pair_id")

    @property
    def pairs(self) -> pd.DataFrame:
        return self.data.pairs.set_index("pair_id")

    def _labelling(self) -> dict:
        lab = self.labeller
        return dict(
            labeller=lab["model"],
            samples=lab["samples"],
            temperature=lab["temperature"],
            top_p=lab["top_p"],
            job=lab["job"],
        )

    def p_star_of(self, data: PreferenceData, ids=None) -> pd.Series | None:
        """p* (Eq. 2) of ``data``'s pairs ``ids`` from the study's ``p_star_from`` source."""
        return S.p_star_from(self.p_star_from, data, ids, labels_file=self.labels_file, **self._labelling())

    def categories_of(self, data: PreferenceData, ids=None) -> tuple[pd.Series, pd.Series | None]:
        """The categories (§3.1) of ``data``'s pairs ``ids`` from the study's category source
        (:func:`pluralign.btb.subjectivity.categories_from`): ``kind`` and ``distinguishable`` (None when
        no pair has one), as :func:`pluralign.btb.evaluation.table_groups` takes them."""
        c = S.categories_from(self.category_source, data, ids, labels_file=self.labels_file, **self._labelling())
        dist = c["distinguishable"]
        return c["kind"], (dist if bool(dist.notna().any()) else None)

    @cached_property
    def p_star(self) -> pd.Series | None:
        return self.p_star_of(self.data)

    def _p_star_missing(self, p: pd.Series | None = None) -> dict | None:
        """Pairs of the page without p* (Eq. 2): ``missing`` of ``pairs``, and ``text`` saying how many and why —
        e.g. how many of the LLM labeller's Appendix B task 3 answers were unparseable
        (:func:`pluralign.btb.subjectivity.p_star_from` counts them); None when every pair has p* (or none is
        asked for). ``p``: the p* of other pairs than the page's data (the rewards page: its test pairs)."""
        p = self.p_star if p is None else p
        if p is None or not p.isna().any():
            return None
        n, a = int(p.isna().sum()), p.attrs
        why = (
            f"{a['llm_unparsed']} of {a['llm_answers']} answers of the LLM labeller to Appendix B task 3 were "
            "unparseable (no number of 10 people)"
            if a.get("llm_answers")
            else f"no source of {self.p_star_from} covers them"
        )
        return {
            "missing": n,
            "pairs": len(p),
            "all": n == len(p),
            "text": f"p\\* is missing for {n} of {len(p)} pairs: {why}",
        }

    def _no_p_star(self, values: dict | None = None, p: pd.Series | None = None) -> report.Result | None:
        """A section with nothing to estimate from because no pair has p*: a skipped Result ("no estimate: …",
        the counts of :meth:`_p_star_missing`) that still glues ``values``; None when some pair has p*."""
        m = self._p_star_missing(p)
        if m is None or not m["all"]:
            return None
        return report.Result(table=None, values=dict(values or {}), skipped=f"no estimate: {m['text']}.")

    def _no_test_p_star(self, values: dict | None = None) -> report.Result | None:
        """:meth:`_no_p_star` for the rewards page's test pairs (Tables 1–2 need their p*)."""
        return self._no_p_star(values, self.comparison.p_star)

    @cached_property
    def _categories(self) -> tuple[pd.Series, pd.Series | None]:
        return self.categories_of(self.data)

    def profile_note(self, page: str, **settings):
        """The note naming the profile that produced ``page`` ("subjectivity", "margins", "rewards") and
        its offline stand-ins on this profile (``settings``: page parameters the text quotes)."""
        fields = {
            "noise": self.judge["noise"],
            "n": self.judge["n"],
            "hh_rlhf": _n_of(self.per_dataset, "hh-rlhf"),
            "hh_rlhf_test": _n_of(self.evaluation["test_per_dataset"], "hh-rlhf"),
            **settings,
        }
        return report.profile_note(self.profile, [s.format(**fields) for s in STAND_INS[page].get(self.profile, [])])

    def paper_numbers(self, page: str) -> report.Result:
        """The paper's Table 1 and the numbers from it (and footnote 6) that ``page`` quotes."""
        t1 = E.paper_table1()
        ds = t1[t1.grouping == "dataset"]
        kinds = t1.set_index(["grouping", "category"])
        if page not in ("subjectivity", "rewards"):
            raise ValueError(f"the paper's numbers are quoted on the subjectivity and rewards pages, not {page!r}")
        if page == "subjectivity":
            values = {
                "btb_subj_paper_n": int(ds["n"].sum()),
                "btb_paper_single": float(kinds.loc[("kind", "Single Correct"), "baseline"]),
                "btb_paper_multiple": float(kinds.loc[("kind", "Multiple Correct"), "baseline"]),
            }
        else:
            per = sorted(set(ds["n"].astype(int)))
            lrs = [float(v) for v in self.training["lr_sweep"]]
            dec = float(np.mean(np.log10(lrs)) - np.mean(np.log10(T.LR_SWEEP)))  # decades between the centres
            values = {
                "btb_paper_n": int(ds["n"].sum()),
                "btb_paper_n_per": str(per[0]) if len(per) == 1 else f"{per[0]}–{per[-1]}",
                "btb_paper_lrs": f"{_lr(max(T.LR_SWEEP))} to {_lr(min(T.LR_SWEEP))}",
                "btb_lrs": ", ".join(_lr(v) for v in lrs),
                "btb_lr_ratio": "on the scale of"
                if abs(dec) < 0.5
                else f"about {10 ** round(abs(dec)):,.0f} times {'larger' if dec > 0 else 'smaller'} than",
                **{f"btb_paper_d_{key}": float(kinds.loc[(g, c), "delta"]) for g, c, key in _DIRECTIONS},
                "btb_paper_dmin": float(t1["delta"].min()),
                "btb_paper_dmax": float(t1["delta"].max()),
                "btb_paper_nmin": int(t1["n"].min()),
                "btb_paper_nmax": int(t1["n"].max()),
            }
        return report.Result(table=t1, paper=t1, values=values)

    # ---- §3.1-3.2: categories and p* --------------------------------------------------------------
    def data_sets(self) -> report.Result:
        """Pairs, judgments and annotators per pair of each data set."""
        t = pd.DataFrame(
            [
                {
                    "data set": p.name,
                    "pairs": len(p),
                    "judgments": len(p.annotations),
                    "annotators per pair": float(p.n_annotators().median()),
                }
                for p in self.parts
            ]
        )
        return report.Result(table=t)

    def appendix_b(self) -> report.Result:
        """Appendix B tasks 1 and 2, word for word, filled with the first pair."""
        ex = self.pairs.iloc[0]
        note = (
            "**Task 1 (subjectivity)**\n\n```text\n"
            + S.task1_prompt(ex["prompt"][:300], suffix=None)
            + "\n```\n\n**Task 2 (distinguishability)**\n\n```text\n"
            + S.task2_prompt(ex["prompt"][:300], ex["response_a"][:300], ex["response_b"][:300], suffix=None)
            + "\n```"
        )
        return report.Result(table=None, note=note)

    def categories(self) -> report.Result:
        """§3.1's two dimensions: pairs per category, mean p* and mean population agreement |2p* − 1|."""
        kind, dist = self._categories
        summary = S.category_summary(kind, dist, self.p_star)
        said = []
        for cat in ("Single Correct", "Multiple Correct"):
            row = summary[summary["category"] == cat]
            if len(row):
                said.append(
                    f"{int(row['n'].iloc[0])} pairs are *{cat.lower()}*, with a mean population agreement "
                    f"of {float(row['mean_agreement'].iloc[0]):.2f}"
                )
            else:
                said.append(f"no pair is assigned *{cat.lower()}* on this profile")
        note = (
            "Here "
            + "; ".join(said)
            + ". (The paper's premise: where many answers are correct, the population splits.)"
        )
        m = self._p_star_missing()
        if m is not None:
            note = (
                report.warning(
                    f"{m['text']}. "
                    + (
                        "No estimate of the mean p\\* or the population agreement: "
                        "only the counts of pairs per category stand."
                        if m["all"]
                        else "Those pairs are left out of the means (counted per category)."
                    )
                )
                + "\n\n"
                + note
            )
        return report.Result(table=summary.round(3), note=note, data={"summary": summary})

    def examples(self, n: int = 1) -> report.Result:
        """``n`` example pairs per category (texts cut at 160 characters) with their p*."""
        kind, dist = self._categories
        pairs, ids, show = self.pairs, self.ids, []
        for kname in ("single", "multiple"):
            for dv in (True, False) if dist is not None else (None,):
                m = (kind == kname) & ((dist == dv) if dv is not None else True)
                for pid in list(ids[m.to_numpy()])[:n]:
                    which = "—" if dv is None else "distinguishable" if dv else "indistinguishable"
                    show.append(
                        {
                            "category": f"{kname} / {which}",
                            "prompt": pairs.at[pid, "prompt"][:160],
                            "response A": pairs.at[pid, "response_a"][:160],
                            "response B": pairs.at[pid, "response_b"][:160],
                            "p*": round(float(self.p_star[pid]), 3),
                        }
                    )
        return report.Result(table=pd.DataFrame(show))

    def p_star_by_category(self) -> report.Result:
        """The distribution of p* per category of the plurality of responses."""
        none = self._no_p_star()
        if none is not None:
            return none
        kind, dist = self._categories
        frame = pd.DataFrame({"p*": self.p_star, "category": kind.map(S.KIND_NAMES).fillna("unassigned")})
        if dist is not None:
            frame["responses"] = dist.map({True: "distinguishable", False: "indistinguishable"}).fillna("unassigned")
        m = self._p_star_missing()
        if m is None:
            return report.Result(table=None, figure=plots.p_star_by_category(frame), data={"frame": frame})
        frame = frame[frame["p*"].notna()]
        return report.Result(
            table=None,
            figure=plots.p_star_by_category(frame),
            data={"frame": frame},
            note=f"{m['text']}; they are not plotted.",
        )

    def binary_judgment_gap(self) -> report.Result:
        """One binary judgment (Eq. 1) read as a prediction of p*: Pearson r and mean L1 per category
        (the statistics of Tables 1–2) with 95% bootstrap CIs, beside the share of all annotators."""
        d, ids, seed = self.data, self.ids, self.seed
        binary = T.binary_judgments(d, seed=seed)
        none = self._no_p_star(
            values={
                "btb_binary_l1": report.MISSING,
                "btb_binary_l1_lo": report.MISSING,
                "btb_binary_l1_hi": report.MISSING,
                "btb_binary_dropped": int(len(d) - len(binary)),
            }
        )
        if none is not None:
            return none
        kind, dist = self._categories
        missing = self._p_star_missing()
        groups = E.table_groups(
            self.pairs["dataset"], kind, dist, in_domain=set(self.pairs["dataset"]), out_of_domain=None
        )
        bids = binary.pairs["pair_id"]
        if missing is not None:  # pairs without p* have nothing to be compared with: counted in the note
            has = self.p_star.notna()
            bids, ids = bids[has.reindex(bids).to_numpy()], ids[has.reindex(ids).to_numpy()]
        by = groups.drop(columns=["domain", "kind_domain"], errors="ignore")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_NO_CATEGORY)
            rows = [
                E.evaluate(
                    self.p_star.reindex(bids), binary.share_a().reindex(bids), by=by.reindex(bids), seed=seed
                ).assign(source="one binary judgment")
            ]
            if d.n_annotators().max() > 1 and self.p_star_from != "annotators":  # (p* = their share: identical)
                p_all, by_all = (self.p_star, by) if missing is None else (self.p_star.reindex(ids), by.reindex(ids))
                rows.append(
                    E.evaluate(p_all, d.share_a().reindex(ids), by=by_all, seed=seed).assign(
                        source=f"all annotators (median {int(d.n_annotators().median())})"
                    )
                )
        ev = pd.concat(rows, ignore_index=True)
        ev["cell"] = [E.interval(v, lo, hi) for v, lo, hi in zip(ev["value"], ev["lo"], ev["hi"])]
        tab = ev.pivot_table(
            index=["grouping", "category"], columns=["source", "metric"], values="cell", aggfunc="first", sort=False
        )
        tab.insert(0, ("n", ""), ev.drop_duplicates(["grouping", "category"]).set_index(["grouping", "category"])["n"])
        one = ev[(ev.source == "one binary judgment") & (ev.grouping == "all") & (ev.metric == "l1")].iloc[0]
        note = ""
        if S._uses(self.p_star_from, "annotators"):
            note = (
                "Here p\\* is the share of the same annotators the binary judgment is drawn from, so the "
                "judgment is part of its own target: this comparison is optimistic. For a data set with one "
                "label per pair the binary judgment *is* p\\* (r = 1, L1 = 0): only data sets with several "
                "annotators per pair say anything here."
            )
        if missing is not None:
            note = f"{missing['text']}; they are left out here." + ("\n\n" + note if note else "")
        return report.Result(
            table=tab,
            figure=plots.l1_by_category(ev),
            note=note,
            data={"evaluation": ev},
            values={
                "btb_binary_l1": float(one["value"]),
                "btb_binary_l1_lo": float(one["lo"]),
                "btb_binary_l1_hi": float(one["hi"]),
                "btb_binary_dropped": int(len(d) - len(binary)),
            },
        )

    # ---- §3.3: synthetic judgments and margins -----------------------------------------------------
    @property
    def judge_source(self) -> str:
        j = self.judge
        return {
            "simulated": f"simulated judge (log-odds noise {j['noise']:g})",
            "llm": f"{(j['model'] or {}).get('name')} ({j['method']})",
            "annotators": "the data set's own annotators",
        }[j["from"]]

    def judgments_of(self, data: PreferenceData, p_star: pd.Series | None = None) -> pd.DataFrame:
        """Per-pair judgments and margins (Eq. 3) of ``data`` from the study's judge
        (:func:`pluralign.btb.margins.judgments_from`)."""
        j = self.judge
        return M.judgments_from(
            j["from"],
            data,
            n=j["n"],
            seed=self.seed,
            p_star=p_star,
            noise=j["noise"],
            judge=j["model"],
            method=j["method"],
            top_p=j["top_p"],
            job=j["job"],
        )

    @cached_property
    def judgments(self) -> pd.DataFrame:
        return self.judgments_of(self.data, self.p_star).set_index("pair_id")

    def judgment_prompt(self, show: bool = True) -> report.Result:
        """The Appendix A prompt filled with the first pair (nothing when ``show`` is false)."""
        ex = self.pairs.iloc[0]
        text = M.judgment_prompt(ex["prompt"][:300], ex["response_a"][:300], ex["response_b"][:300])
        return report.Result(table=None, note="```text\n" + text + "\n```" if show else "")

    def synthetic_judgments(self) -> report.Result:
        """The first pairs' judgment counts, share of A votes and margin (Eq. 3)."""
        sj = self.judgments
        head = sj.drop(columns=[c for c in ("verdicts", "judgments") if c in sj.columns]).head(6).round(3)
        note = ""
        bad = int(sj["n_unparsed"].sum()) if "n_unparsed" in sj else 0
        if bad:  # a judge's unparseable verdicts, counted (the library warns outside the book)
            none = int((sj["n_valid"] == 0).sum())
            note = report.warning(
                f"**{bad:,} of {int(sj['n'].sum()):,} verdicts of the judge were unparseable**; {none:,} of "
                f"{len(sj):,} pairs have no parseable verdict and so no margin (Eq. 3 needs at least one), and "
                "training gives them a margin of 0 (plain Bradley–Terry)."
            )
        return report.Result(table=head, note=note, data={"judgments": sj})

    def judge_quality(self) -> report.Result:
        """How often the judge sides with the population majority, and Pearson r / mean L1 between its
        share of A votes and p* (95% bootstrap CIs)."""
        if self.judge["from"] == "annotators":
            return report.Result(
                table=None,
                note="Here the margins come from the data set's own annotators (the "
                "paper's gold standard), and p\\* is their share: there is no separate judge to check.",
            )
        if self.p_star is None:
            return report.Result(
                table=None, note="No p\\* for these data: the judge's quality cannot be measured here."
            )
        sj, ids, p_star = self.judgments, self.ids, self.p_star
        judge_p = (sj["p_a"] if sj.get("p_a") is not None and sj["p_a"].notna().all() else sj["share_a"]).astype(float)
        side = E.side_agreement(p_star, judge_p.reindex(ids), seed=self.seed)
        ev = E.evaluate(p_star, sj["share_a"].reindex(ids), seed=self.seed)
        r = ev[ev.metric == "pearson"].iloc[0]
        table = pd.DataFrame(
            [
                {
                    "judge": self.judge_source,
                    "sides with the population": f"{side['value']:.3f} "
                    f"[{side['lo']:.3f}, {side['hi']:.3f}] (n={side['n']})",
                    **{
                        f"{m} (share of A votes vs p*)": f"{v:.3f} [{lo:.3f}, {hi:.3f}]"
                        for m, v, lo, hi in zip(ev["metric"], ev["value"], ev["lo"], ev["hi"])
                    },
                }
            ]
        )
        note = (
            f"The judge sides with the population on {side['value']:.3f} of the {side['n']} pairs that have a "
            f"majority (95% CI {side['lo']:.3f}–{side['hi']:.3f}); its share of A votes correlates with p\\* at "
            f"r = {r['value']:.3f} ({r['lo']:.3f}–{r['hi']:.3f}). The paper does not report its judge's accuracy; "
            "it is the first thing to measure before trusting margins from any LLM."
        )
        values = {
            "btb_judge_side": side["value"],
            "btb_judge_side_lo": side["lo"],
            "btb_judge_side_hi": side["hi"],
            "btb_judge_side_n": side["n"],
            "btb_judge_r": float(r["value"]),
            "btb_judge_r_lo": float(r["lo"]),
            "btb_judge_r_hi": float(r["hi"]),
        }
        return report.Result(table=table, note=note, values=values, data={"evaluation": ev, "side": side})

    def margin_distribution(self) -> report.Result:
        """The Eq. 3 margins (by category where there is one) and, with p*, against |2p* − 1|."""
        ids, n = self.ids, int(self.judge["n"])
        frame = pd.DataFrame({"margin": self.judgments["margin"].reindex(ids)})
        if self.p_star is not None:
            frame["population agreement |2p*-1|"] = (2 * self.p_star - 1).abs()
        if self.data.truth is not None and "kind" in self.data.truth:
            frame["category"] = self.data.truth["kind"].reindex(ids).map(S.KIND_NAMES)
        vals = M.margin_values(n)
        k = n // 2 + 1  # the closest split to an even one that is not even
        shown = ", ".join(f"{v:g}" for v in vals) if len(vals) <= 4 else f"{vals[0]:g}, {vals[1]:.3g}, …, {vals[-1]:g}"
        m_k = float(M.eq3_margin(k, n))
        note = (
            f"With n = {n} judgments the margin takes {len(vals)} values ({shown}). Eq. 3 is coarse by design: "
            f"a {k}–{n - k} split already gives m = {m_k:.3g}."
        )
        return report.Result(
            table=None,
            figure=plots.margin_distribution(frame, n, self.judge_source),
            note=note,
            values={"btb_n_judgments": n},
            data={"frame": frame},
        )

    def embedded_judge(self, pairs: int = 8) -> report.Result:
        """The embedded base LLM (Gemma 3 270M) judging the first ``pairs`` pairs from its next-token
        log-probabilities of " A" / " B" (n draws from its P(A)), beside the study's judge; 0 = not run."""
        if not pairs:
            return report.Result(
                table=None,
                skipped=(
                    "the embedded model is not run (`embedded_pairs = 0`): on two busy CPU "
                    "cores loading it takes minutes, and a judgment of a long prompt seconds. The `sample` profile "
                    "runs it on a handful of real pairs."
                ),
            )
        ids, p_star, n = self.ids, self.p_star, int(self.judge["n"])
        t0 = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):  # the model's conversion / loading progress bars
            gemma = load_llm(None)
        t_load = time.perf_counter() - t0
        few = self.data.subset(list(ids[:pairs]), reason=f"first {pairs} pairs for the embedded LLM")
        t0 = time.perf_counter()
        gj = M.synthetic_judgments(
            gemma, few, n=n, method="logprob", seed=self.seed, job=f"{self.judge['job']}-embedded"
        ).set_index("pair_id")
        t_judge = time.perf_counter() - t0
        show = pd.DataFrame({"Gemma P(A)": gj["p_a"], "A votes of 10": gj["n_a"], "Gemma margin": gj["margin"]})
        values = {
            "btb_gemma_mean_pa": float(gj["p_a"].mean()),
            "btb_gemma_secs": float(t_judge / max(len(gj), 1)),
            "btb_gemma_load": float(t_load),
        }
        sided = ""
        if p_star is not None:
            show["p*"] = p_star.reindex(gj.index)
            show["|2p*-1|"] = (2 * show["p*"] - 1).abs()
            gside = E.side_agreement(p_star.reindex(gj.index), gj["p_a"], seed=self.seed)
            values["btb_gemma_side"] = gside["value"]
            sided = (
                f" It sides with the population majority on {gside['value']:.2f} of {gside['n']} pairs here "
                f"(95% CI {gside['lo']:.2f}–{gside['hi']:.2f})."
            )
        show[f"{self.judge_source.split(' (')[0]} margin"] = self.judgments["margin"].reindex(gj.index)
        note = (
            f"The base model's mean P(A) is {gj['p_a'].mean():.2f}. A value far from ½ means it leans towards one "
            "position whatever the texts (a position bias): its ten votes are then mostly unanimous and its margins "
            f"say little about the population.{sided} It took {t_load:.0f} s to load and "
            f"{t_judge / max(len(gj), 1):.1f} s per pair on this machine."
        )
        return report.Result(table=show.round(3), note=note, values=values, data={"judgments": gj})

    # ---- §3.3-3.4: the reward models, Tables 1-2 ---------------------------------------------------
    @cached_property
    def data_splits(self) -> T.Splits:
        ev, tr = self.evaluation, self.training
        return T.evaluation_splits(
            self.data,
            test_only=ev["test_only"],
            test_per_dataset=ev["test_per_dataset"],
            ood_by=ev["ood_by"],
            test_size=ev["test_size"],
            validation_size=tr["validation_size"],
            seed=self.seed,
        )

    @cached_property
    def comparison(self) -> Comparison:
        """Both reward models trained (learning rate chosen on validation) and compared with p* (Tables 1–2)."""
        from pluralign import rewards

        sp, ev, tr, seed = self.data_splits, self.evaluation, self.training, self.seed
        tid = sp.test.pairs["pair_id"]
        pairs_all = sp.everything.pairs.set_index("pair_id")
        p_star = self.p_star_of(sp.everything, tid)
        names = (
            pairs_all["dataset"] if ev["dataset_column"] == "dataset" else sp.everything.truth[ev["dataset_column"]]
        ).reindex(tid)
        kind, dist = self.categories_of(sp.everything, tid)
        groups = E.table_groups(
            names, kind, dist, in_domain=ev["in_domain"], out_of_domain=ev["out_of_domain"], names=ev["display_names"]
        )
        source = sp.train_full if self.judge["from"] == "annotators" else sp.train
        judged = self.judgments_of(source)
        margins = M.training_margins(judged)
        train_kw = {k: v for k, v in tr.items() if k not in TRAINING}
        rm = rewards.load(**(tr["reward_model"] or {}))
        rewards.embed_all(rm, sp.everything)  # frozen encoder: every text embedded once (cached)
        if tr["baseline_model"] is None:
            base, sweep_b = T.sweep(
                rm,
                sp.train,
                sp.validation,
                tr["lr_sweep"],
                objective="bt",
                metric=tr["select_on"],
                seed=seed,
                progress=False,
                **train_kw,
            )
        else:  # an already trained baseline (the paper's OpenAssistant RM): scored on validation, not trained
            base = rewards.load(**tr["baseline_model"])
            sweep_b = pd.DataFrame(
                [
                    {
                        "objective": "bt (pretrained)",
                        "lr": float("nan"),
                        "split": "validation",
                        **T.validation_scores(base.prob_a(sp.validation, progress=False), sp.validation),
                        "selected": True,
                    }
                ]
            )
        reg, sweep_r = T.sweep(
            rm,
            sp.train,
            sp.validation,
            tr["lr_sweep"],
            objective="bt-margin",
            margins=margins,
            metric=tr["select_on"],
            seed=seed,
            progress=False,
            **train_kw,
        )
        p_base, p_reg = base.prob_a(sp.test, progress=False), reg.prob_a(sp.test, progress=False)
        # Tables 1-2 compare on the test pairs that have p*; the others are counted (sources, table) and, where
        # no pair has p* (every answer of an LLM labeller failed), the sections that need it have no estimate
        keep = p_star.index[p_star.notna()]
        cmp = None
        if len(keep):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=_NO_CATEGORY)
                cmp = E.compare(
                    p_star.reindex(keep),
                    p_base.reindex(keep),
                    p_reg.reindex(keep),
                    by=groups.reindex(keep),
                    n_boot=ev["n_boot"],
                    seed=seed,
                )
        return Comparison(
            sp,
            p_star,
            groups,
            margins,
            pd.concat([sweep_b, sweep_r], ignore_index=True),
            p_base.reindex(tid),
            p_reg.reindex(tid),
            cmp,
            int((judged["n_valid"] == 0).sum()) if "n_valid" in judged else 0,
        )

    def splits(self) -> report.Result:
        """Pairs per split (train / validation with one binary judgment each, test with all annotators)."""
        sp = self.data_splits
        filters = pd.DataFrame(sp.filters).tail(2)
        note = "\n".join(f"- {r['filter']}: {r['removed']} removed, {r['kept']} kept" for _, r in filters.iterrows())
        return report.Result(table=sp.table(), note=note, data={"filters": filters})

    def _circularity_warning(self, used: set | None = None) -> str:
        """The warning box for :func:`pluralign.btb.subjectivity.circularity` (only the quantities in ``used``
        when given: those an LLM actually labelled), or ""."""
        c = S.circularity(self.p_star_from, self.category_source, self.labeller["model"], self.judge)
        if used is not None:
            c = c[c["quantity"].isin(used)]
        c = c[c["same"] != ""]
        if c.empty:
            return ""
        what = " and ".join(dict.fromkeys(_QUANTITY[q] for q in c["quantity"]))
        r = c.iloc[0]
        rel = (
            f"the same model ({r['judge']})"
            if r["same"] == "model"
            else f"a model of the same family ({r['labeller family']}: {r['labeller']} and {r['judge']})"
        )
        return report.warning(
            f"**Circular evaluation: on this run {what} and the training margins come from {rel}.** The margins "
            "of Eq. 3 are that judge's ten votes per pair, so the regularized RM is trained towards the model (or "
            "model family) that also defines its evaluation target, which favours it over the baseline by "
            "construction; read any advantage of the regularized RM below with that in mind. The paper's p\\* "
            "and categories come from three human annotators (§3.2): give their answers to Appendix B as "
            "`labels_file` (`p_star_from` / `categories`: `[labels, ...]`), or a labeller of another model family."
        )

    def same_model_warning(self) -> report.Result:
        """A warning (:func:`pluralign.report.warning`) when the LLM labeller of p* or the categories is the
        margin judge or of its model family (:func:`pluralign.btb.subjectivity.circularity`), from the
        parameters alone; :meth:`sources` also counts the pairs each source labels."""
        return report.Result(table=None, note=self._circularity_warning())

    def sources(self, page: str = "rewards") -> report.Result:
        """Where p* (Eq. 2) and the categories (§3.1) of the page's pairs (``page="rewards"``: the test pairs of
        Tables 1–2; ``"subjectivity"``: all pairs) come from: pairs per source
        (:func:`pluralign.btb.subjectivity.source_counts`), with a warning box when an LLM labelled any of them
        — the paper's are human, three annotators (§3.2) — which says the evaluation is circular when that LLM
        is the margin judge or of its family."""
        if page == "rewards":
            data, ids = self.data_splits.everything, self.data_splits.test.pairs["pair_id"]
        elif page == "subjectivity":
            data, ids = self.data, None
        else:
            raise ValueError(f"sources are counted for the 'rewards' or 'subjectivity' page, not {page!r}")
        kw = dict(labels_file=self.labels_file, **self._labelling())
        pw = None if self.p_star_from in (None, "none") else S.p_star_with_source(self.p_star_from, data, ids, **kw)
        ps = None if pw is None else pw["source"]
        cs = S.categories_with_source(self.category_source, data, ids, **kw)["source"]
        table = S.source_counts(ps, cs)
        by_llm = table[(table["source"] == "llm") & (table["pairs"] > 0)]
        used = set(by_llm["quantity"])
        notes = [self._circularity_warning(used)]
        if used and not notes[0]:
            names = ", ".join(
                str(S.model_name(m))
                for m in (
                    self.labeller["model"] if isinstance(self.labeller["model"], list) else [self.labeller["model"]]
                )
            )
            judge = (
                (
                    f"; it is of another model family than the margin judge ({S.model_name(self.judge['model'])}),"
                    " so the evaluation is not circular"
                )
                if self.judge["from"] == "llm"
                else ""
            )
            counts = " and ".join(
                f"{_QUANTITY[q]} of {int(n)} pairs" for q, n in zip(by_llm["quantity"], by_llm["pairs"])
            )
            notes.append(
                report.warning(
                    f"**Not human: {counts} come from an LLM labeller ({names}),** not from human annotators as in the "
                    f"paper (three annotators, §3.2){judge}. Its p\\* is a model's estimate of the population, not "
                    "the population's. Give human answers to Appendix B as `labels_file` where you have them."
                )
            )
        if pw is not None and pw["p_star"].isna().any():  # counted, with why (e.g. the labeller's answers failed)
            a, n = pw.attrs, int(pw["p_star"].isna().sum())
            notes.append(
                report.warning(
                    f"**p\\* is missing for {n} of {len(pw)} pairs**"
                    + (
                        f": {a['llm_unparsed']} of {a['llm_answers']} answers of the LLM labeller to Appendix B task 3 "
                        "were unparseable (no number of 10 people)"
                        if a.get("llm_answers")
                        else ""
                    )
                    + ". Sections that need p\\* leave those pairs out, and have no estimate where no pair has it."
                )
            )
        return report.Result(
            table=table.set_index(["quantity", "source"]),
            note="\n\n".join(n for n in notes if n),
            data={"p_star": ps, "categories": cs},
        )

    def training_margins(self) -> report.Result:
        """The margins (Eq. 3) of the training pairs."""
        c = self.comparison
        m, bad = c.margins, c.margins_missing
        if not bad:
            return report.Result(table=None, figure=plots.training_margins(m), data={"margins": m})
        note = (
            f"{bad:,} of {len(m):,} training pairs have no parseable judgment and so no margin (Eq. 3); they are "
            "trained with a margin of 0, as plain Bradley–Terry pairs."
        )
        if bad == len(m):  # every margin is the fill value: nothing to plot, and Eq. 4 is Eq. 1 on this run
            return report.Result(
                table=None,
                note=report.warning(
                    note
                    + " No pair has a margin, so the regularized model is trained with the baseline's loss on this "
                    "run."
                ),
                data={"margins": m},
            )
        return report.Result(table=None, figure=plots.training_margins(m), note=note, data={"margins": m})

    def learning_rate_sweep(self) -> report.Result:
        """Footnote 6: validation accuracy and loss per learning rate and objective, the selected ones."""
        s = self.comparison.sweeps
        sel = s[s["selected"]].set_index("objective")["lr"]
        return report.Result(
            table=s.round(4), values={"btb_lr_base": float(sel.iloc[0]), "btb_lr_reg": float(sel.loc["bt-margin"])}
        )

    def table(self, metric: str) -> report.Result:
        """Table 1 (``metric="pearson"``) or Table 2 (``"l1"``) of this run: baseline, regularized and Δ with
        95% (paired) bootstrap CIs per grouping and category; the values over all test pairs."""
        key = {"pearson": "r", "l1": "l1"}[metric]
        none = self._no_test_p_star(
            {
                f"btb_{key}_{k}{suf}": report.MISSING
                for k in ("baseline", "regularized", "delta")
                for suf in ("", "_lo", "_hi")
            }
        )
        if none is not None:
            return none
        cmp = self.comparison.table
        t = cmp[cmp.metric == metric]
        out = pd.DataFrame(
            {
                "grouping": t.grouping,
                "category": t.category,
                "N": t.n,
                **{
                    lab: [E.interval(*r) for r in t[[k, f"{k}_lo", f"{k}_hi"]].to_numpy()]
                    for lab, k in (("baseline", "baseline"), ("regularized", "regularized"), ("Δ (paired CI)", "delta"))
                },
            }
        ).set_index(["grouping", "category"])
        row = t[t.grouping == "all"].iloc[0]
        values = {
            f"btb_{key}_{k}{suf}": float(row[k + suf])
            for k in ("baseline", "regularized", "delta")
            for suf in ("", "_lo", "_hi")
        }
        missing = self._p_star_missing(self.comparison.p_star)
        note = f"{missing['text']}; they are left out of this table." if missing else ""
        if metric == "pearson":  # (glued once per page)
            values["btb_n_test"] = int(row["n"])
            # a category the baseline ranks backwards (CI below 0) explains a small r over all pairs
            ds = t[(t.grouping == "dataset") & (t.baseline_hi < 0)]
            if len(ds):
                ood = set(self.evaluation.get("out_of_domain") or [])
                said = [
                    f"{c} ({'held out of training' if c in ood else 'in training'}; N = {int(n)}): r = "
                    f"{E.interval(v, lo, hi)}"
                    for c, n, v, lo, hi in ds[["category", "n", "baseline", "baseline_lo", "baseline_hi"]].itertuples(
                        index=False
                    )
                ]
                note += (" " if note else "") + (
                    "The baseline RM ranks some test pairs backwards (r with p* below 0, its whole 95% interval "
                    "too): " + "; ".join(said) + ". The r over all test pairs averages these with the others, "
                    "so read it beside the per-category rows."
                )
        return report.Result(
            table=out, paper=E.paper_table1() if metric == "pearson" else None, values=values, note=note
        )

    def directions(self) -> report.Result:
        """Δ r on the groupings where the paper reports a direction (Multiple vs Single Correct, OOD vs ID),
        with paired CIs and what each says, beside the paper's Δ."""
        none = self._no_test_p_star()
        if none is not None:
            return none
        cmp = self.comparison.table
        paper_d = E.paper_table1().set_index(["grouping", "category"])["delta"]
        rows, d, values = [], {}, {}
        for g, c, key in _DIRECTIONS:
            row = cmp[(cmp.metric == "pearson") & (cmp.grouping == g) & (cmp.category == c)]
            v, lo, hi, n = (
                row[["delta", "delta_lo", "delta_hi", "n"]].iloc[0].tolist() if len(row) else [np.nan] * 3 + [0]
            )
            d[c] = (v, lo, hi)
            values.update(
                {
                    f"btb_d_{key}": float(v),
                    f"btb_d_{key}_lo": float(lo),
                    f"btb_d_{key}_hi": float(hi),
                    f"btb_d_{key}_n": int(n),
                }
            )
            rows.append(
                {
                    "category": c,
                    "paper Δ r": float(paper_d[(g, c)]),
                    "N here": int(n),
                    "Δ r here [95% CI]": E.interval(v, lo, hi),
                    "here": report.verdict(
                        v, lo, hi, n=int(n), paper=float(paper_d[(g, c)]), missing="no such pairs on this profile"
                    ),
                }
            )
        said = []
        for a, b, what in (
            ("Multiple Correct", "Single Correct", "on multiple-correct than on single-correct pairs"),
            ("OOD", "ID", "out-of-domain than in-domain"),
        ):
            (va, la, ha), (vb, lb, hb) = d[a], d[b]
            if not (np.isfinite(va) and np.isfinite(vb)):
                said.append(f"{a} vs {b}: not comparable (no {a if not np.isfinite(va) else b} pairs here)")
                continue
            # the two groups hold different pairs: the difference of their Δ has SE √(se_a² + se_b²)
            diff = va - vb
            se = float(np.hypot((ha - la) / 3.92, (hb - lb) / 3.92))
            paper_diff = float(paper_d[(_group_of(a), a)] - paper_d[(_group_of(b), b)])
            says = report.verdict(diff, diff - 1.96 * se, diff + 1.96 * se, paper=paper_diff)
            said.append(
                f"Δ {what}: {va:+.3f} vs {vb:+.3f}, difference {diff:+.3f} "
                f"[{diff - 1.96 * se:+.3f}, {diff + 1.96 * se:+.3f}] (the paper: {paper_diff:+.3f}) — {says}"
            )
        note = (
            "Measured on this profile: " + "; ".join(said) + ". A verdict follows the 95% interval: "
            '"same direction as the paper" only when it excludes 0 on the paper\'s side. This page runs the '
            "paper's procedure with other data, judges and models (see the note at the top): agreeing or "
            "disagreeing with the paper's direction is a measurement of this setting, neither a reproduction "
            "nor a refutation of the paper's numbers."
        )
        return report.Result(table=pd.DataFrame(rows).set_index("category"), note=note, values=values)

    def beside_paper(self) -> report.Result:
        """The paper's Table 1 rows beside this run's where a row of the same name exists."""
        none = self._no_test_p_star()
        if none is not None:
            return none
        cmp = self.comparison.table
        pv = E.paper_vs_ours(cmp[cmp.metric == "pearson"])
        pv = pv[pv.metric == "pearson"]

        def arrow(a, b):
            return f"{a:.3f} → {b:.3f}" if np.isfinite(a) and np.isfinite(b) else report.MISSING

        show = pd.DataFrame(
            {
                "grouping": pv["grouping"],
                "category": pv["category"],
                "N (paper)": pv["n_paper"].map(lambda x: int(x) if np.isfinite(x) else report.MISSING),
                "r baseline → regularized (paper)": [
                    arrow(a, b) for a, b in zip(pv["baseline_paper"], pv["regularized_paper"])
                ],
                "Δ r (paper)": pv["delta_paper"],
                "N (this run)": pv["n_ours"].map(lambda x: int(x) if np.isfinite(x) else report.MISSING),
                "r baseline → regularized (this run)": [
                    arrow(a, b) for a, b in zip(pv["baseline_ours"], pv["regularized_ours"])
                ],
                "Δ r this run [95% CI]": [
                    E.interval(v, lo, hi)
                    for v, lo, hi in zip(pv["delta_ours"], pv["delta_lo_ours"], pv["delta_hi_ours"])
                ],
                "this run says": [
                    report.verdict(
                        v,
                        lo,
                        hi,
                        n=int(n) if np.isfinite(n) else None,
                        paper=p,
                        missing="no such pairs on this profile"
                        if not np.isfinite(n)
                        else "too few pairs for a correlation (N < 10)",
                    )
                    for v, lo, hi, n, p in zip(
                        pv["delta_ours"], pv["delta_lo_ours"], pv["delta_hi_ours"], pv["n_ours"], pv["delta_paper"]
                    )
                ],
            }
        )
        note = (
            "Each row of the paper's Table 1 beside this run's row of the same name. A verdict follows this run's "
            "95% paired interval of Δ. — : the paper has no such row, or this profile has no such pairs."
        )
        return report.Result(table=show.set_index(["grouping", "category"]), paper=E.paper_table1(), note=note)

    def paper_sized_check(self) -> report.Result:
        """The same comparison on a random test subset of the paper's size (``paper_sized_check`` pairs):
        how wide the paired interval of Δ is at that size (drawn from the test pairs that have p*)."""
        none = self._no_test_p_star()
        if none is not None:
            return none
        c, size = self.comparison, int(self.evaluation["paper_sized_check"])
        cmp = c.table
        tid = c.p_star.index[c.p_star.notna()]
        allr = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
        if not (size and size < len(tid)):  # the test set is already of the paper's size (or smaller)
            return report.Result(
                table=None,
                values={"btb_small_width": float(allr["delta_hi"] - allr["delta_lo"]), "btb_small_n": int(allr["n"])},
            )
        _, small = split(c.splits.test.subset(tid), size, self.seed)
        sid = small.pairs["pair_id"]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_NO_CATEGORY)
            small_cmp = E.compare(
                c.p_star.reindex(sid),
                c.p_baseline.reindex(sid),
                c.p_regularized.reindex(sid),
                by=c.groups.reindex(sid),
                n_boot=self.evaluation["n_boot"],
                seed=self.seed,
            )
        both = pd.concat(
            [cmp.assign(test_set=f"all {len(tid)} test pairs"), small_cmp.assign(test_set=f"random {size}")],
            ignore_index=True,
        )
        both = both[both.grouping.isin(["all", "kind", "domain", "distinguishability"])]
        both["Δ CI width"] = both["delta_hi"] - both["delta_lo"]
        table = both.pivot_table(
            index=["metric", "grouping", "category"],
            columns="test_set",
            values=["n", "delta", "Δ CI width"],
            aggfunc="first",
        ).round(3)
        w = small_cmp[(small_cmp.grouping == "all") & (small_cmp.metric == "pearson")].iloc[0]
        return report.Result(
            table=table, values={"btb_small_width": float(w["delta_hi"] - w["delta_lo"]), "btb_small_n": int(w["n"])}
        )

    def rm_vs_p_star(self) -> report.Result:
        """Each reward model's P(A ≻ B) against p* on the test pairs (those with p*)."""
        none = self._no_test_p_star()
        if none is not None:
            return none
        c = self.comparison
        frame = pd.DataFrame({"p*": c.p_star, "baseline": c.p_baseline, "regularized": c.p_regularized})
        frame = frame[frame["p*"].notna()]
        if "kind" in c.groups:
            frame["category"] = c.groups["kind"]
        return report.Result(table=None, figure=plots.rm_vs_p_star(frame, c.table), data={"frame": frame})

    def delta_plot(self, metric: str) -> report.Result:
        """Δ with its paired CI per grouping and category (with the paper's Δ for Pearson r)."""
        none = self._no_test_p_star()
        if none is not None:
            return none
        paper_d = E.paper_table1().set_index(["grouping", "category"])["delta"] if metric == "pearson" else None
        return report.Result(table=None, figure=plots.delta_by_group(self.comparison.table, metric, paper_d))


#: The groupings on which the paper reports a direction of Δ (Table 1): (grouping, category, glue key).
_DIRECTIONS = (
    ("kind", "Multiple Correct", "multiple"),
    ("kind", "Single Correct", "single"),
    ("domain", "ID", "id"),
    ("domain", "OOD", "ood"),
)


def _group_of(category: str) -> str:
    """The grouping of a :data:`_DIRECTIONS` category."""
    return next(g for g, c, _ in _DIRECTIONS if c == category)


def setup(
    profile: str = "demo",
    seed: int = 0,
    *,
    data=None,
    per_dataset=0,
    p_star_from="truth",
    categories="truth",
    labels_file: str | None = None,
    labeller: dict | None = None,
    judge: dict | None = None,
    evaluation: dict | None = None,
    training: dict | None = None,
    models: dict | None = None,
) -> Study:
    """The Part III study from a page's parameters.

    ``data``: data specs (:func:`pluralign.data.spec.from_spec`, a list is concatenated; None: :data:`DEMO_DATA`), ``per_dataset``
    pairs of each (0 = all; an int or ``{data set: n}``). ``p_star_from`` (:func:`~pluralign.btb.subjectivity.p_star_from`:
    truth, annotators, labels, llm, none) and ``categories`` (:func:`~pluralign.btb.subjectivity.categories_from`)
    with ``labels_file`` for human labels; either may be a list, tried in order per pair (human sources first,
    as the paper's p* is human, §3.2; :meth:`Study.sources` counts the pairs of each and warns). ``labeller`` (:data:`LABELLER`), ``judge`` (:data:`JUDGE`),
    ``evaluation`` (:data:`EVALUATION`) and ``training`` (:data:`TRAINING`) override those defaults key by key.
    Model entries that name a key of ``models`` (the profile's models) are resolved with
    :func:`pluralign.params.named_model`."""
    S.check_sources(p_star_from, categories)
    lab = {**LABELLER, **(labeller or {})}
    jdg = {**JUDGE, **(judge or {})}
    tr = {**TRAINING, **(training or {})}
    lab["model"] = named_model(lab["model"], models, what="labeller")
    jdg["model"] = named_model(jdg["model"], models, what="judge")
    tr["reward_model"] = named_model(tr["reward_model"], models, what="reward_model")
    tr["baseline_model"] = named_model(tr["baseline_model"], models, what="baseline_model")
    tr["lr_sweep"] = T.lr_grid(tr["lr_sweep"])
    full, parts = load_specs(DEMO_DATA if data is None else data, per_dataset=per_dataset, seed=seed)
    return Study(
        profile=profile,
        seed=int(seed),
        data=full,
        parts=parts,
        p_star_from=p_star_from,
        category_source=categories,
        labels_file=labels_file,
        per_dataset=per_dataset,
        labeller=lab,
        judge=jdg,
        evaluation={**EVALUATION, **(evaluation or {})},
        training=tr,
    )
