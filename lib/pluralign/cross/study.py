"""The Part IV study (across the three papers): :func:`setup` turns a page's parameters into a :class:`Study`,
whose methods each compute one section of a page and return a :class:`pluralign.report.Result`.

- question 1, margins by agreement class: :meth:`Study.margin_distribution`, :meth:`Study.margin_separation`;
- question 2, reward-model uncertainty vs margin: :meth:`Study.uncertainty`;
- question 3, alignment regimes by agreement class: :meth:`Study.regimes`, :meth:`Study.resistance_gap`;
- question 4, which training handles disagreement: :meth:`Study.models_trained`, :meth:`Study.training_measures`,
  :meth:`Study.decisiveness_gaps`.

Everything is computed by the parts' own functions (agreement classes: :mod:`pluralign.diverging.agreement`;
margins: :mod:`pluralign.btb.margins`; regimes: :mod:`pluralign.seal.resistance`; losses:
:mod:`pluralign.rewards.objectives`); trained models and embeddings are cached on disk, so a page that asks for
what another part already trained on the same data and split reuses it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.cross import margins_by_class as q1
from pluralign.cross import plots
from pluralign.cross import regimes as q3
from pluralign.cross import training as q4
from pluralign.cross import uncertainty as q2
from pluralign.params import named_model

__all__ = ["Study", "Studies", "setup", "DEMO_DATA", "JUDGE", "SEAL"]

#: The demo's data: the simulator's HelpSteer2-format pairs (four annotators with Likert scores, so the MSE model
#: trains too), the same pairs Part I's second demo data set uses (its embeddings and models are reused).
DEMO_DATA = {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}}
#: The synthetic judge of Beyond the Binary Eq. 3 (:func:`pluralign.btb.margins.judgments_from`): ``from`` =
#: "simulated" (the demo's offline stand-in on the planted p*), "llm" (``model``, the paper's) or None (no
#: synthetic margin on this profile: only the annotators' gold margin).
JUDGE = {
    "from": "simulated",
    "n": 10,
    "noise": 1.0,
    "top_p": 0.9,
    "model": None,
    "method": "sample",
    "job": "cross-margins",
}
#: SEAL's pre-D / post-D reward models (:func:`pluralign.seal.design.alignment_models`): named models
#: (``reward_models: {pre, post}``) or a pre-D model trained on ``other_data`` and a post-D one on it plus D.
SEAL = {
    "other_data": [
        {
            "simulate": {
                "n_pairs": 600,
                "seed": 1,
                "name": "simulated-other",
                "weights": {
                    "verbosity": [-0.6, 1.0],
                    "format": [-0.4, 0.9],
                    "sentiment": [-0.5, 1.0],
                    "complexity": [0.3, 0.9],
                    "refusal": [0.3, 1.0],
                },
            }
        }
    ],
    "reward_models": None,
    "train": {"objective": "bt", "labels": "aggregate"},
    "base_model": {"head": "mlp"},
}

STAND_INS = {
    "demo": [
        "The data are simulated (HelpSteer2 format: four annotators rate each response 1–5); p* is the planted "
        "population share and the planted truth stands beside each estimate.",
        "The synthetic margins come from a **simulated judge** (the planted p* with log-odds noise sd {noise:g}, "
        "n = {n} draws), not Llama-3-70B-Instruct.",
        "Reward models are small heads over frozen all-MiniLM-L6-v2 embeddings, not fine-tuned 8B models.",
    ],
    "sample": [
        "PandaLM's three real annotators give the agreement classes, the gold margin (Eq. 3 over three "
        "judgments) and p* (their share): all three come from the same three judgments, so a link between them "
        "is partly true by construction.",
        "No synthetic margin: no LLM judge runs offline (the embedded Gemma 3 270M base model is too slow "
        "for every pair here, see {{ref}}`btb-margins`). The margin-regularized RM trains on the gold margin.",
        "PandaLM has no Likert scores, so the MSE model is not trained. Reward models are small heads over "
        "frozen all-MiniLM-L6-v2 embeddings.",
    ],
    "paper": ["Synthetic margins from {judge}; reward models as named in the parameter file."],
}


@dataclass
class Study:
    """The data and settings of Part IV's pages (:func:`setup`), one method per section of a page."""

    profile: str
    seed: int
    data: object
    ties: str = "majority"
    p_star_from: str = "truth"
    labeller: object = None
    judge: dict = field(default_factory=lambda: dict(JUDGE))
    split: dict = field(default_factory=lambda: {"test": 300, "validation": 100})
    reward_model: dict = field(default_factory=dict)
    train: dict = field(default_factory=dict)
    train_margin: str = "synthetic"
    seal: dict = field(default_factory=lambda: dict(SEAL))
    n_boot: int = 2000

    # ---- shared -------------------------------------------------------------------------------------
    def profile_note(self):
        """The note naming the profile that produced the page and its offline stand-ins."""
        j = self.judge
        judge = (
            (j.get("model") or {}).get("name", "an LLM") if isinstance(j.get("model"), dict) else str(j.get("model"))
        )
        return report.profile_note(
            self.profile,
            [s.format(noise=j.get("noise", 0), n=j.get("n"), judge=judge) for s in STAND_INS.get(self.profile, [])],
        )

    @cached_property
    def classified(self) -> pd.DataFrame:
        """Diverging Preferences' agreement classes of every pair (:func:`pluralign.diverging.agreement_classes`)."""
        from pluralign.diverging import agreement_classes

        return agreement_classes(self.data, ties=self.ties)

    @cached_property
    def p_star(self) -> pd.Series | None:
        """p* (Beyond the Binary Eq. 2) per pair, from ``p_star_from`` (:func:`pluralign.btb.p_star_from`)."""
        from pluralign.btb import p_star_from

        return p_star_from(self.p_star_from, self.data, labeller=self.labeller)

    @property
    def has_truth(self) -> bool:
        t = self.data.truth
        return t is not None and "share_a" in t.columns

    @cached_property
    def planted_margin(self) -> pd.Series | None:
        """The planted population margin |2p* − 1| (simulated data only)."""
        if not self.has_truth:
            return None
        return (2 * self.data.truth["share_a"] - 1).abs().rename("planted margin")

    @cached_property
    def gold_judgments(self) -> pd.DataFrame:
        from pluralign.btb.margins import margins_from_annotators

        return margins_from_annotators(self.data).set_index("pair_id")

    @cached_property
    def synthetic_judgments(self) -> pd.DataFrame | None:
        """Eq. 3 judgments of the study's synthetic judge (:func:`pluralign.btb.margins.judgments_from`), or None."""
        from pluralign.btb.margins import judgments_from

        j = self.judge
        if j.get("from") in (None, "none"):
            return None
        p_star = self.data.truth["share_a"] if j["from"] == "simulated" and self.has_truth else self.p_star
        return judgments_from(
            j["from"],
            self.data,
            n=j["n"],
            seed=self.seed,
            p_star=p_star,
            noise=j.get("noise", 1.0),
            judge=j.get("model"),
            method=j.get("method", "sample"),
            top_p=j.get("top_p", 0.9),
            job=j.get("job"),
        ).set_index("pair_id")

    @cached_property
    def margins(self) -> dict:
        """``{source: margin Series}``: the synthetic margin (when there is a judge) and the gold one. Pairs the
        judge gave no parseable verdict are left out of the synthetic one (counted in ``margins_left_out``)."""
        out = {}
        sj = self.synthetic_judgments
        if sj is not None:
            out[f"synthetic (n = {self.judge['n']})"] = sj["margin"].dropna()
        out["gold (annotators)"] = self.gold_judgments["margin"].dropna()
        return out

    @property
    def margins_left_out(self) -> dict:
        n = len(self.data.pairs)
        return {k: n - len(v) for k, v in self.margins.items()}

    # ---- question 1 -------------------------------------------------------------------------------------
    def margin_distribution(self) -> report.Result:
        """Margins per agreement class (mean with its 95% CI, median, share unanimous) for every margin source,
        the planted one beside on the demo, and the figure with the AUROCs."""
        margins = dict(self.margins)
        if self.planted_margin is not None:
            margins["planted |2p*−1| (demo truth)"] = self.planted_margin.reindex(self.classified.index)
        dist = q1.margin_distribution(margins, self.classified, n_boot=self.n_boot, seed=self.seed)
        table = dist.assign(
            **{
                "mean margin [95% CI]": [q1.interval(*v) for v in dist[["mean", "lo", "hi"]].to_numpy()],
                "median": dist["median"].map(lambda v: f"{v:.3g}"),
                "unanimous (m = 1)": dist["unanimous (m = 1)"].map(lambda v: f"{100 * v:.1f}%"),
            }
        )
        table = table.set_index(["margin", "class"])[["pairs", "mean margin [95% CI]", "median", "unanimous (m = 1)"]]
        long = pd.concat(
            [
                pd.DataFrame(
                    {
                        "margin source": k,
                        "m": v.to_numpy(float),
                        "class": self.classified["agreement"].reindex(v.index).to_numpy(),
                    }
                )
                for k, v in margins.items()
            ],
            ignore_index=True,
        )
        left = {k: v for k, v in self.margins_left_out.items() if v}
        note = "".join(
            f"{v} pairs have no {k} margin (no parseable judgment) and are left out of it. " for k, v in left.items()
        )
        return report.Result(
            table=table,
            figure=plots.margins_by_class(long, self._separation),
            note=note,
            data={"distribution": dist, "long": long},
        )

    @cached_property
    def _separation(self) -> pd.DataFrame:
        return q1.margin_separation(
            self.margins, self.classified, planted=self.planted_margin, n_boot=self.n_boot, seed=self.seed
        )

    def margin_separation(self) -> report.Result:
        """Question 1's test: AUROC of 1 − m for diverging vs high-agreement pairs per margin source, 95% CI,
        verdict against 0.5, the planted AUROC beside on the demo; values ``x_auc_<k>``, ``x_auc_lo_<k>``,
        ``x_auc_hi_<k>`` per source k = 0, 1, …"""
        sep = self._separation
        values = {}
        for k, (name, r) in enumerate(sep.iterrows()):
            values.update(
                {
                    f"x_auc_{k}": float(r["AUROC"]),
                    f"x_auc_lo_{k}": float(r["lo"]),
                    f"x_auc_hi_{k}": float(r["hi"]),
                    f"x_auc_name_{k}": name,
                    f"x_auc_verdict_{k}": r["verdict"],
                }
            )
        lines = [
            f"- **{name}**: AUROC {q1.interval(r['AUROC'], r['lo'], r['hi'])} — {r['verdict']}."
            for name, r in sep.iterrows()
        ]
        if "gold (annotators)" in sep.index:
            lines.append(
                "- The gold margin and the agreement classes are computed from the same judgments, so its "
                "AUROC is partly true by construction (Eq. 3 ignores strength and ties count half, the "
                "classes do not); "
                + (
                    "the synthetic margin is the independent test."
                    if len(sep) > 1
                    else "there is no synthetic margin on this profile, so the hypothesis is "
                    "not tested independently of the annotators here."
                )
            )
        return report.Result(table=q1.display(sep), note="\n".join(lines), values=values, data={"separation": sep})

    # ---- question 4 (question 2 reuses its mean-variance model) ----------------------------------------
    @cached_property
    def rm(self):
        from pluralign import rewards

        return rewards.load(**self.reward_model)

    @cached_property
    def _training_margins(self) -> tuple[pd.Series | None, str]:
        from pluralign.btb.margins import training_margins

        sj = self.synthetic_judgments
        if self.train_margin == "synthetic" and sj is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return training_margins(sj.reset_index()), f"synthetic margins (n = {self.judge['n']})"
        if self.train_margin not in ("synthetic", "gold"):
            raise ValueError(f"train_margin must be 'synthetic' or 'gold', not {self.train_margin!r}")
        return None, "gold margins (the pairs' own annotators, Eq. 3)"

    @cached_property
    def run(self):
        """The five reward models of question 4 trained on one split (:data:`pluralign.cross.training.MODELS`):
        four through :func:`pluralign.diverging.reward_models.reward_model_study`, the margin-regularized one
        (Eq. 4) on the same training pairs; their held-out outputs."""
        from pluralign.diverging import reward_models as rmod

        plain = {k: v for k, v in q4.MODELS.items() if v[0] != "bt-margin"}
        r = rmod.reward_model_study(
            self.rm,
            self.data,
            test=self.split["test"],
            validation=self.split["validation"],
            seed=self.seed,
            models=plain,
            classified=self.classified,
            **self.train,
        )
        margins, _ = self._training_margins
        name = next(k for k, v in q4.MODELS.items() if v[0] == "bt-margin")
        m = self.rm.train(
            r.train,
            objective="bt-margin",
            labels="aggregate",
            margins=None if margins is None else margins.reindex(r.train.pairs["pair_id"]).fillna(0.0),
            eval_data=r.validation,
            progress=False,
            **self.train,
        )
        r.models = {k: (m if k == name else r.models[k]) for k in q4.MODELS if k == name or k in r.models}
        outs = rmod.model_outputs(r.models, r.heldout)
        r.p_a, r.gap = outs.p_a, outs.gap
        return r

    def models_trained(self) -> report.Result:
        """The split, the models trained (with their training instances) and those not trained, with why."""
        r = self.run
        _, source = self._training_margins
        rows = [
            {
                "model": k,
                "objective": q4.MODELS[k][0],
                "labels": q4.MODELS[k][1],
                "training instances": int(r.models[k].info.get("n_instances", 0)) if k in r.models else "—",
                "trained": "yes" if k in r.models else f"no — {r.skipped.get(k, 'not trained')}",
            }
            for k in q4.MODELS
        ]
        note = (
            f"Pairs: {len(r.train.pairs)} training, {len(r.validation.pairs)} validation (best checkpoint), "
            f"{len(r.heldout.pairs)} held out. The margin-regularized model trains on {source}."
        )
        return report.Result(
            table=pd.DataFrame(rows).set_index("model"),
            note=note,
            values={"x_n_train": len(r.train.pairs), "x_n_test": len(r.heldout.pairs)},
        )

    @cached_property
    def _measures(self):
        r = self.run
        cl = self.classified.loc[r.heldout.pairs["pair_id"]]
        p_star = None if self.p_star is None else self.p_star.reindex(cl.index)
        planted = self.data.truth["share_a"].reindex(cl.index) if self.has_truth else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measure = q4.measure_by_class(cl, r.p_a, r.gap, p_star=planted, n_boot=self.n_boot, seed=self.seed)
            gaps = q4.decisiveness_gaps(cl, r.p_a, r.gap, p_star=planted, n_boot=self.n_boot, seed=self.seed)
            pearson = (
                q4.pearson_by_class(
                    p_star, q4.model_probabilities(r.p_a, r.gap), cl, n_boot=self.n_boot, seed=self.seed
                )
                if p_star is not None
                else None
            )
        return measure, gaps, pearson

    def training_measures(self) -> report.Result:
        """Per model and agreement class: Table 2's measure and Pearson r with p*, each with its 95% CI and its
        paired Δ to BT on majority labels (with the verdict), the planted population value beside on the demo."""
        measure, _, pearson = self._measures
        if pearson is None:
            pearson = measure[["model", "class"]].assign(
                r=np.nan,
                lo=np.nan,
                hi=np.nan,
                delta=np.nan,
                delta_lo=np.nan,
                delta_hi=np.nan,
                verdict="— (no p* on this profile)",
            )
        note = (
            "Table 2's measure is the mean P(chosen ≻ rejected) (the model's own chosen response) for the "
            "probability models and r_chosen − r_rejected on the Likert scale for MSE, whose Δ is therefore not "
            "taken; for Pearson the MSE model's P(A ≻ B) is σ(r_A − r_B)."
        )
        return report.Result(
            table=q4.display_measure(measure, pearson),
            figure=plots.training_measures(measure),
            note=note,
            data={"measure": measure, "pearson": pearson},
        )

    def decisiveness_gaps(self) -> report.Result:
        """Per model, the decisiveness gap (Table 2 measure on high-agreement prefs. − on diverging pairs) with its
        95% CI and verdict, and its paired Δ to BT on majority labels; the population's planted gap beside."""
        _, gaps, _ = self._measures
        values = {f"x_gap_{k}": float(r["gap"]) for k, (_, r) in enumerate(gaps.iterrows())}
        lines = [
            f"- **{m}**: gap {q1.interval(r['gap'], r['lo'], r['hi'])} — {r['verdict']}; "
            f"against {q4.REFERENCE}: {r['delta_verdict']}."
            for m, r in gaps.iterrows()
        ]
        return report.Result(table=q4.display_gaps(gaps), note="\n".join(lines), values=values, data={"gaps": gaps})

    # ---- question 2 -------------------------------------------------------------------------------------
    def uncertainty(self) -> report.Result:
        """Spearman ρ between the mean-variance RM's σ_pair and each margin per agreement class on the held-out
        pairs (95% CI, verdict; "too few" under 10 pairs), the planted spread's ρ beside on the demo."""
        r = self.run
        name = next(k for k, v in q4.MODELS.items() if v[0] == "mean-variance")
        ids = r.heldout.pairs["pair_id"]
        sigma = q2.pair_sigma(r.models[name].predict(r.heldout, progress=False)).reindex(ids)
        margins = {k: v.reindex(ids).dropna() for k, v in self.margins.items()}
        planted = (
            q2.planted_spread(self.data.truth.reindex(ids))
            if self.has_truth and "a_verbosity" in self.data.truth.columns
            else None
        )
        corr = q2.sigma_margin_correlations(
            sigma, margins, self.classified, planted=planted, n_boot=self.n_boot, seed=self.seed
        )
        frame = pd.DataFrame(
            {
                "sigma_pair": sigma,
                "class": self.classified["agreement"].reindex(ids).to_numpy(),
                **{k: v.reindex(ids) for k, v in margins.items()},
            }
        )
        lines = [
            f"- **{m}, {c}** (n = {n}): {v}"
            for m, c, n, v in corr[["margin", "class", "pairs", "verdict"]].itertuples(index=False)
        ]
        return report.Result(
            table=q2.display(corr),
            figure=plots.sigma_vs_margin(frame, list(margins)),
            note="\n".join(lines),
            data={"correlations": corr, "frame": frame},
        )

    # ---- question 3 -------------------------------------------------------------------------------------
    @cached_property
    def seal_rewards(self) -> tuple[pd.DataFrame, object, pd.DataFrame]:
        """SEAL's rewards of D = the study's data under its pre-D and post-D RMs
        (:func:`pluralign.seal.design.alignment_models` / :func:`~pluralign.seal.design.alignment_rewards`),
        the models and SEAL's chosen / rejected view."""
        from pluralign.data import spec
        from pluralign.data.core import combine
        from pluralign.seal.design import alignment_models, alignment_rewards, chosen_rejected

        s = self.seal
        parts = [spec.from_spec(x) for x in s.get("other_data") or []]
        other = combine(*parts, name="other data") if len(parts) > 1 else (parts[0] if parts else None)
        rms = alignment_models(
            self.data, other, models=s.get("reward_models"), train=s.get("train"), base=s.get("base_model")
        )
        return alignment_rewards(self.data, rms=rms), rms, chosen_rejected(self.data).table

    @cached_property
    def _population(self) -> pd.Series | None:
        if not self.has_truth:
            return None
        _, _, view = self.seal_rewards
        return q3.population_alignment(view, self.data.truth["share_a"])

    def regimes(self) -> report.Result:
        """SEAL's a₊ / a₋ and four regimes per agreement class (the planted population a₋ beside on the demo)."""
        R, rms, _ = self.seal_rewards
        table = q3.regimes_by_class(R, self.classified, population=self._population, n_boot=self.n_boot, seed=self.seed)
        n_ties = len(self.data.pairs) - len(R)
        note = (
            f"Reward models: {rms.design}. SEAL's chosen entry is the majority label; {n_ties} pairs whose "
            "majority is a tie have none and are left out (so high-agreement ties barely appear)."
        )
        return report.Result(
            table=q3.display(table), figure=plots.regimes_by_class(table), note=note, data={"regimes": table}
        )

    def resistance_gap(self) -> report.Result:
        """a₋(diverging) − a₋(high-agreement prefs.) for the pre-D and post-D RM with 95% CIs and verdicts,
        the planted population difference beside on the demo; values ``x_res_delta``, ``x_res_lo``, ``x_res_hi``."""
        R, _, _ = self.seal_rewards
        rows = {
            w: q3.resistance_difference(
                R, self.classified, which=w, population=self._population, n_boot=self.n_boot, seed=self.seed
            )
            for w in ("pre", "post")
        }
        table = pd.DataFrame(
            {
                f"{w}-D RM": {
                    "diverging pairs": d["n_diverging"],
                    "high-agreement pairs": d["n_high_agreement"],
                    "a₋(diverging) − a₋(high-agreement) [95% CI]": q1.interval(d["delta"], d["lo"], d["hi"]),
                    **({"planted (population)": f"{d['planted']:.3g}"} if self._population is not None else {}),
                    "verdict": d["verdict"],
                }
                for w, d in rows.items()
            }
        ).T
        post = rows["post"]
        return report.Result(
            table=table,
            values={
                "x_res_delta": float(post["delta"]),
                "x_res_lo": float(post["lo"]),
                "x_res_hi": float(post["hi"]),
                "x_res_verdict": post["verdict"],
            },
            data={"differences": rows},
        )


class Studies:
    """Several data sets analysed apart (the paper profile: MultiPref and HelpSteer2, never combined): every
    :class:`Study` method is called on each, and the Results are joined — tables stacked under a "data set"
    level, notes under a heading per data set, values from each suffixed ``_<k>`` (k = 0, 1, …) and also
    unsuffixed from the first, the first data set's figure shown (every figure in ``data["figures"]``)."""

    def __init__(self, studies: dict):
        self.studies = studies

    def profile_note(self):
        return next(iter(self.studies.values())).profile_note()

    def __getattr__(self, name):
        methods = {k: getattr(s, name) for k, s in self.studies.items()}
        if not all(callable(m) for m in methods.values()):
            raise AttributeError(name)

        def joined(*args, **kw) -> report.Result:
            results = {k: m(*args, **kw) for k, m in methods.items()}
            tables = {k: r.table for k, r in results.items() if r.table is not None}
            values = dict(next(iter(results.values())).values)
            for i, r in enumerate(results.values()):
                values.update({f"{v}_{i}": x for v, x in r.values.items()})
            first = next(iter(results))
            note = "\n\n".join(f"**{k}**\n\n{r.note}" for k, r in results.items() if r.note)
            if len(results) > 1 and any(r.figure is not None for r in results.values()):
                note += f"\n\n*The figure shows {first}; the others are in this Result's data['figures'].*"
            return report.Result(
                table=pd.concat(tables, names=["data set"]) if tables else None,
                figure=results[first].figure,
                note=note,
                values=values,
                data={"results": results, "figures": {k: r.figure for k, r in results.items()}},
            )

        return joined


def setup(
    profile: str = "demo",
    seed: int = 0,
    *,
    data=None,
    ties: str = "majority",
    p_star_from: str = "truth",
    labeller=None,
    judge: dict | None = None,
    split: dict | None = None,
    reward_model=None,
    train: dict | None = None,
    train_margin: str = "synthetic",
    seal: dict | None = None,
    n_boot: int = 2000,
    models: dict | None = None,
) -> Study:
    """The Part IV study from a page's parameters.

    ``data``: one multi-annotator data spec (:func:`pluralign.data.spec.from_spec`; None: :data:`DEMO_DATA`);
    ``ties``: the reading of §3's tie class (:func:`pluralign.diverging.agreement_classes`); ``p_star_from``
    (:func:`pluralign.btb.p_star_from`: truth, annotators, labels, llm) with ``labeller``; ``judge``
    (:data:`JUDGE` overrides); ``split`` (``{"test", "validation"}``); ``reward_model``
    (:func:`pluralign.rewards.load` arguments or a key of ``models``); ``train`` (``RewardModel.train``
    arguments); ``train_margin`` ("synthetic" or "gold": what Eq. 4 trains on; gold when there is no judge);
    ``seal`` (:data:`SEAL` overrides; ``reward_models.pre`` / ``.post`` may name keys of ``models``); ``n_boot``.
    A list of data specs gives :class:`Studies`: each data set analysed apart, the results joined."""
    from pluralign.data import spec

    jdg = {**JUDGE, **(judge or {})}
    jdg["model"] = named_model(jdg["model"], models, what="judge.model")
    s = {**SEAL, **(seal or {})}
    if s.get("reward_models"):
        s["reward_models"] = {
            k: named_model(v, models, what=f"seal.reward_models.{k}") for k, v in s["reward_models"].items()
        }
    unknown = set(s) - set(SEAL)
    if unknown:
        raise ValueError(f"cross.setup: unknown seal key(s) {sorted(unknown)}; expected {sorted(SEAL)}")
    rm = named_model(reward_model, models, what="reward_model") if reward_model is not None else {}
    if isinstance(data, list):
        subs = {}
        for one in data:
            st = setup(
                profile,
                seed,
                data=one,
                ties=ties,
                p_star_from=p_star_from,
                labeller=labeller,
                judge=judge,
                split=split,
                reward_model=reward_model,
                train=train,
                train_margin=train_margin,
                seal=seal,
                n_boot=n_boot,
                models=models,
            )
            subs[st.data.name] = st
        return Studies(subs)
    d = spec.from_spec(DEMO_DATA if data is None else data)
    return Study(
        profile=profile,
        seed=int(seed),
        data=d,
        ties=ties,
        p_star_from=p_star_from,
        labeller=named_model(labeller, models, what="labeller"),
        judge=jdg,
        split={"test": 300, "validation": 100, **(split or {})},
        reward_model=dict(rm),
        train=dict(train or {}),
        train_margin=train_margin,
        seal=s,
        n_boot=int(n_boot),
    )
