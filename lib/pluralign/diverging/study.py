"""The Diverging Preferences study on any profile: :func:`setup` loads the data sets once and returns a
:class:`Study` holding them, their agreement classes and the computations several sections share (the
cause-annotation sheets, the trained reward models), each done once per study as a cached property, whichever
section asks first. The sections themselves are functions of the study in :mod:`pluralign.diverging.pages`.

Heavy steps (embedding, training) are also cached on disk by :mod:`pluralign.rewards`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from pluralign.data.spec import from_spec
from pluralign.diverging import agreement as agr
from pluralign.diverging import cause_annotation as sheets_io
from pluralign.diverging import causes as cz
from pluralign.diverging import knowing as kn
from pluralign.diverging import reward_models as rmod
from pluralign.diverging.settings import DivergingSettings
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.named_models import resolve_model
from pluralign.params import part_setup

__all__ = ["Study", "MeanVarianceRun", "setup"]


@dataclass
class MeanVarianceRun:
    """The "do models know?" experiment on one data set: the reward-model ``run`` (BT (All) and the
    mean-variance RM), the mean-variance RM's held-out Gaussian rewards with predicted and observed
    disagreement (``mv``, :func:`~pluralign.diverging.knowing.mean_variance_disagreement`) and their
    :class:`~pluralign.diverging.knowing.DisagreementSummary`."""

    run: rmod.RewardModelRun
    mv: pd.DataFrame
    summary: kn.DisagreementSummary


@dataclass
class Study:
    """The loaded data sets of the Part I pages with their settings (:class:`DivergingSettings`), the profile,
    the seed and the profile's named models."""

    data: list
    settings: DivergingSettings = field(default_factory=DivergingSettings)
    profile: str = "demo"
    seed: int = 0
    models: dict = field(default_factory=dict)

    # ---- the data ---------------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [d.name for d in self.data]

    def dataset(self, name: str):
        return next(d for d in self.data if d.name == name)

    @cached_property
    def classified(self) -> dict[str, pd.DataFrame]:
        """The agreement classes of every pair, per data set
        (:func:`~pluralign.diverging.agreement.agreement_classes`)."""
        return {d.name: agr.agreement_classes(d, ties=self.settings.ties) for d in self.data}

    @cached_property
    def diverging_ids(self) -> dict[str, pd.Index]:
        """The diverging pairs of each data set."""
        return {name: cl.index[cl["agreement"] == "diverging"] for name, cl in self.classified.items()}

    @property
    def head(self) -> str:
        """The reward-model head as the pages name it ("linear" / "small MLP")."""
        return self.settings.head

    # ---- the cause annotation (Table 1, §2.1) ------------------------------------------------------------
    @property
    def use_planted(self) -> bool:
        """Whether the simulator's planted causes are the reference labelling (``annotation.reference``)."""
        return self.settings.annotation.reference == "planted" and all(
            d.truth is not None and "cause" in d.truth.columns for d in self.data
        )

    @cached_property
    def annotation_folder(self) -> Path:
        d = self.settings.annotation.dir
        return Path(d) if d else Path(tempfile.mkdtemp(prefix="pluralign-causes-"))

    @cached_property
    def sheets(self) -> dict[str, tuple[Path, pd.DataFrame]]:
        """``{data set: (path, sheet)}``: the exported annotation sheet of each data set
        (:func:`~pluralign.diverging.cause_annotation.export_for_annotation`, ``annotation.n`` pairs at most)."""
        out = {}
        for d in self.data:
            n = min(int(self.settings.annotation.n), len(self.diverging_ids[d.name]))
            path = self.annotation_folder / f"causes-{d.name}.xlsx"
            out[d.name] = (path, sheets_io.export_for_annotation(d, self.classified[d.name], n, path, seed=self.seed))
        return out

    @cached_property
    def round_trip(self) -> tuple[dict, dict]:
        """(labels written into the sheets, labels imported back), per data set: with the planted reference the
        planted causes and :func:`~pluralign.diverging.causes.rule_causes` are written in as two annotators;
        otherwise the filled-in files of ``annotation.files`` are read."""
        written, files = {}, dict(self.settings.annotation.files or {})
        if self.use_planted:
            for name, (path, sheet) in self.sheets.items():
                d = self.dataset(name)
                written[name] = pd.concat(
                    [cz.planted_causes(d.truth, sheet["pair_id"]), cz.rule_causes(d, sheet["pair_id"])],
                    ignore_index=True,
                )
                filled = self.annotation_folder / f"causes-{name}-filled.xlsx"
                sheets_io.write_annotations(path, written[name], filled)
                files[name] = [filled]
        return written, {name: sheets_io.import_annotations(f) for name, f in files.items()}

    # ---- the reward models (§3, Table 2; §4) ------------------------------------------------------------
    @cached_property
    def rm(self):
        """The base reward model every Table 2 and mean-variance model is a trained copy of."""
        from pluralign import rewards

        return rewards.load(**ModelOptions.of(self.settings.reward_model).kwargs())

    def loading_line(self) -> str:
        """One line on how the base reward model was loaded — quantization (8-bit / 4-bit / none, read from its
        layers), precision, LoRA, device (:func:`pluralign.rewards.describe_loading`); every trained model is a
        copy loaded the same way."""
        from pluralign import rewards

        return f"*Reward models: trained copies of {rewards.describe_loading(self.rm)}.*"

    def train_models(self, models: Mapping | None = None) -> dict[str, rmod.RewardModelRun]:
        """Per data set, :func:`~pluralign.diverging.reward_models.reward_model_study` of ``models`` on the
        ``split`` (trained models are cached on disk, so two pages asking for one model share it)."""
        return {
            d.name: rmod.reward_model_study(
                self.rm,
                d,
                test=self.settings.split.test,
                validation=self.settings.split.validation,
                seed=self.seed,
                models=models,
                classified=self.classified[d.name],
                options=self.settings.train,
            )
            for d in self.data
        }

    @cached_property
    def runs(self) -> dict[str, rmod.RewardModelRun]:
        """Per data set, Table 2's models (MSE (Agg) on the ``mse_aggregate`` variant of its label,
        :func:`~pluralign.diverging.reward_models.table2_models`)."""
        return self.train_models(rmod.table2_models(self.settings.mse_aggregate))

    @cached_property
    def mv_runs(self) -> dict[str, MeanVarianceRun]:
        """Per data set, BT (All) and the mean-variance RM trained on the Table 2 split, their held-out outputs,
        the mean-variance model's predicted and observed disagreement and its
        :func:`~pluralign.diverging.knowing.disagreement_summary`."""
        models = {"BT (All)": rmod.TABLE2_MODELS["BT (All)"], **kn.MEAN_VARIANCE_MODEL}
        mv_name = next(iter(kn.MEAN_VARIANCE_MODEL))
        out = {}
        for name, r in self.train_models(models).items():
            mv = kn.mean_variance_disagreement(r.models[mv_name], r.heldout, r.classified)
            summary = kn.disagreement_summary(mv, r.classified, n_boot=self.settings.n_boot, seed=self.seed)
            out[name] = MeanVarianceRun(run=r, mv=mv, summary=summary)
        return out


@part_setup(DivergingSettings)
def setup(s: DivergingSettings, profile: str, seed: int, models: dict | None) -> Study:
    """Load the Part I data sets of a page into a :class:`Study`: ``settings`` (a :class:`DivergingSettings` or
    a mapping of its fields) with ``overrides`` (field names; an unknown one is an error naming it) laid over
    them. A reward model, cause classifier or LLM judge may name an entry of ``models`` (the profile's named
    models); each is resolved to its options (:func:`pluralign.named_models.resolve_model`). ``paper_reference`` is
    checked against the loaded names.
    ``page``: the notebook's name, which a page of the book gives (:func:`pluralign.params.part_setup`)."""
    models = dict(models or {})
    changes = {
        "reward_model": resolve_model(s.reward_model, models, ModelOptions, what="reward_model"),
        "cause_classifier": {
            "llm": resolve_model(s.cause_classifier.llm, models, LLMOptions, what="cause_classifier.llm")
        },
    }
    if s.judge_llm is not None:
        changes["judge_llm"] = {"load": resolve_model(s.judge_llm.load, models, LLMOptions, what="judge_llm.load")}
    loaded = [from_spec(x, seed) for x in s.datasets]
    names = {d.name for d in loaded} | {x for d in loaded for x in d.pairs["dataset"].unique()}
    changes["paper_reference"] = agr.check_paper_reference(s.paper_reference, names)
    return Study(data=loaded, settings=s.replace(**changes), profile=profile, seed=seed, models=models)
