"""The comparison of Beyond the Binary's two reward models (§3.3–3.4, Tables 1–2): the same base model trained
on one binary judgment per pair with the Bradley–Terry loss (Eq. 1) and with the margin-regularized loss (Eq. 4,
margins from Eq. 3), each learning rate chosen on validation pairs (footnote 6), then both compared with p*
(Eq. 2) on the test pairs: Pearson r (Table 1) and mean L1 (Table 2) with paired bootstrap CIs of Δ."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import pandas as pd

from pluralign.btb import evaluation, training
from pluralign.btb.margins import training_margins
from pluralign.model_options import ModelOptions
from pluralign.train_options import TrainOptions

__all__ = ["Comparison", "compare_reward_models", "NO_CATEGORY"]

#: The warning about pairs without a category: they stay in "all" and leave that grouping (not a page's concern).
NO_CATEGORY = ".*without a category.*"


@dataclass
class Comparison:
    """The trained reward models of §3.3 and their Tables 1–2 (:func:`pluralign.btb.evaluation.compare`)."""

    splits: training.Splits
    p_star: pd.Series
    groups: pd.DataFrame
    margins: pd.Series
    sweeps: pd.DataFrame
    p_baseline: pd.Series
    p_regularized: pd.Series
    table: pd.DataFrame | None  # None: no test pair has p*
    margins_missing: int = 0  # training pairs without a parseable judgment (trained with margin 0)


def _baseline(study, rm, options: TrainOptions):
    """The Eq. 1 model and its sweep: ``reward_model`` swept with Bradley–Terry, or the already trained
    ``baseline_model`` scored on validation."""
    from pluralign import rewards

    sp, tr = study.data_splits, study.settings.training
    if tr.baseline_model is None:
        return training.sweep(
            rm, sp.train, sp.validation, tr.lr_sweep, objective="bt", metric=tr.select_on, options=options
        )
    base = rewards.load(
        **ModelOptions.of(tr.baseline_model).kwargs()
    )  # the paper's OpenAssistant RM: scored on validation, not trained
    scores = training.validation_scores(base.prob_a(sp.validation, progress=False), sp.validation)
    row = {"objective": "bt (pretrained)", "lr": float("nan"), "split": "validation", **scores, "selected": True}
    return base, pd.DataFrame([row])


def _test_groups(study) -> tuple[pd.Series, pd.DataFrame]:
    """p* and the groupings of Tables 1–2 (data set, category, domain) of the test pairs."""
    sp, ev = study.data_splits, study.settings.evaluation
    tid = sp.test.pairs["pair_id"]
    p_star = study.p_star_of(sp.everything, tid)
    names = (
        sp.everything.pairs.set_index("pair_id")["dataset"]
        if ev.dataset_column == "dataset"
        else sp.everything.truth[ev.dataset_column]
    ).reindex(tid)
    kind, dist = study.categories_of(sp.everything, tid)
    groups = evaluation.table_groups(
        names, kind, dist, in_domain=ev.in_domain, out_of_domain=ev.out_of_domain, names=ev.display_names
    )
    return p_star, groups


def compare_reward_models(study) -> Comparison:
    """Both reward models of ``study`` (a :class:`pluralign.btb.study.Study`) trained (learning rate chosen on
    validation) and compared with p*."""
    from pluralign import rewards

    sp, tr, seed = study.data_splits, study.settings.training, study.seed
    tid = sp.test.pairs["pair_id"]
    p_star, groups = _test_groups(study)
    judged = study.judgments_of(sp.train_full if study.settings.judge.source == "annotators" else sp.train)
    margins = training_margins(judged)
    options = tr.train.replace(seed=seed, progress=False)
    rm = rewards.load(**ModelOptions.of(tr.reward_model).kwargs())
    rewards.embed_all(rm, sp.everything)  # frozen encoder: every text embedded once (cached)
    base, sweep_b = _baseline(study, rm, options)
    reg, sweep_r = training.sweep(
        rm,
        sp.train,
        sp.validation,
        tr.lr_sweep,
        objective="bt-margin",
        margins=margins,
        metric=tr.select_on,
        options=options,
    )
    p_base, p_reg = base.prob_a(sp.test, progress=False), reg.prob_a(sp.test, progress=False)
    # Tables 1-2 compare on the test pairs that have p*; the others are counted (sources, table) and, where
    # no pair has p* (every answer of an LLM labeller failed), the sections that need it have no estimate
    keep = p_star.index[p_star.notna()]
    cmp = None
    if len(keep):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=NO_CATEGORY)
            cmp = evaluation.compare(
                p_star.reindex(keep),
                p_base.reindex(keep),
                p_reg.reindex(keep),
                by=groups.reindex(keep),
                n_boot=study.settings.evaluation.n_boot,
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
