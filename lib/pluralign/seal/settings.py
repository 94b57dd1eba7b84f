"""The settings of the SEAL pages (Part II): :class:`SealSettings`, one field per page parameter of the four pages
(``notebooks/seal_*.py``, ``params/<profile>/seal-*.yml``) besides ``profile``, ``seed`` and ``models``, each default
and its meaning written once, validated on construction. The study design (D, the other data and the pre-D /
post-D reward models, § 2) is the nested :class:`AlignmentDesign`, whose defaults are the demo's simulated design;
Part IV uses it too, with its own data as D."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from pluralign.data import spec
from pluralign.data.core import combine
from pluralign.data.spec import DataSpec
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.named_models import resolve_model
from pluralign.seal.design import FEATURE_SOURCES, alignment_models
from pluralign.seal.imprint import VIF_THRESHOLD
from pluralign.seal.resistance import LABELLER_RULES
from pluralign.seal.scoring import SCORING_INPUTS
from pluralign.settings import Section, Settings, setting
from pluralign.train_options import TrainOptions

__all__ = ["SealSettings", "AlignmentDesign", "PrePostModels", "ROBUSTNESS_MODELS", "TOPIC_SOURCES"]

#: Eq. 4 / Table 8's regression: the linear probability model of SEAL's code, or the logit of Eq. 4 as written.
ROBUSTNESS_MODELS = ("linear", "logit")
#: Where App. E.1's topics come from: the keyword stand-in, or the LM-labeller's labels (``features: llm``).
TOPIC_SOURCES = ("rules", "llm")


#: The demo's "other" preference data: 600 simulated pairs of another population (the pre-D RM's training data).
DEMO_OTHER_DATA = [
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
]


class PrePostModels(Section):
    """SEAL's two named reward models (§ 2): r̲, before alignment on D (``pre``), and r, after (``post``); both
    are required."""

    pre: ModelOptions | str = Field(description="the pre-D RM: pluralign.rewards.load arguments or a key of `models`")
    post: ModelOptions | str = Field(description="the post-D RM: pluralign.rewards.load arguments or a key of `models`")


class AlignmentDesign(Section):
    """SEAL's study design (§ 2, Fig. 1): the alignment data set D and the pre-D / post-D reward models — two named
    models, or a pre-D model trained on ``other_data`` and a post-D one on it plus D
    (:func:`pluralign.seal.design.alignment_models`). The defaults are the demo's simulated design."""

    data: DataSpec | None = setting({"simulate": {"n_pairs": 1200, "seed": 0}}, "D: a pluralign.load spec")
    other_data: list[DataSpec] | None = setting(DEMO_OTHER_DATA, "the pre-D RM's training data (pluralign.load specs)")
    reward_models: PrePostModels | None = setting(
        None,
        "{pre, post}: pluralign.rewards.load arguments or keys of `models`; None: this project's own pair, trained "
        "with `train` over `base_model`",
    )
    train: TrainOptions | None = setting(
        TrainOptions(), "how this project's own pair is trained (TrainOptions; None: the defaults)"
    )
    base_model: ModelOptions = setting(ModelOptions(head="mlp"), "pluralign.rewards.load arguments of the pair's base")
    scoring_input: Literal[SCORING_INPUTS] | None = setting(
        "prompt_reply",
        "what the RMs score (pluralign.seal.scoring): 'seal' (SEAL's (history, reply) split, for named RMs) or "
        "'prompt_reply' (the loader's pairs, as this project's own pair was trained); None: by the models",
    )

    def resolved(self, models: dict | None, *, what: str = "") -> AlignmentDesign:
        """This design with its named pre-D and post-D RMs as their options: a key of the profile's ``models`` is
        replaced by its entry (:func:`pluralign.named_models.resolve_model`; an unknown key is an error naming
        ``what`` + ``reward_models.pre`` / ``.post``)."""
        if self.reward_models is None:
            return self
        pair = self.reward_models
        return self.replace(
            reward_models={
                k: resolve_model(getattr(pair, k), models, ModelOptions, what=f"{what}reward_models.{k}")
                for k in ("pre", "post")
            }
        )

    def models(self, D, seed: int, *, single_other_as_is: bool = False):
        """SEAL's pre-D and post-D reward models of ``D`` (§ 2; :func:`pluralign.seal.design.alignment_models`): the
        named ``reward_models`` (of a :meth:`resolved` design), or this project's pair, trained with ``train`` over
        ``base_model`` on the other data (pre-D) and on the other data + D (post-D). Returns ``(rms, other,
        parts)``: the models, the other data (None without ``other_data``) and its parts, one data set per spec of
        ``other_data`` (loaded with ``seed``).

        The parts are combined into one data set named "other data" (the SEAL pages: their post-D RM trains on
        "other data + D"). ``single_other_as_is``: a single part is used as it is, under its own name, and only
        several are combined (Part IV's study); the same pairs either way, under another name."""
        parts = [spec.from_spec(x, seed) for x in self.other_data or []]
        if single_other_as_is and len(parts) == 1:
            other = parts[0]
        else:
            other = combine(*parts, name="other data") if parts else None
        pair = self.reward_models
        named = None if pair is None else {"pre": pair.pre, "post": pair.post}
        rms = alignment_models(D, other, models=named, train=self.train, base=self.base_model)
        return rms, other, parts


#: the pages that read a setting only some Part II pages read (:meth:`pluralign.settings.Settings.readers`)
IMPRINT, RESISTANCE, ROBUSTNESS = ("seal_imprint",), ("seal_resistance",), ("seal_robustness",)


class SealSettings(Settings):
    """Every parameter of the Part II pages (SEAL, Revel et al. 2024)."""

    design: AlignmentDesign = setting(
        AlignmentDesign(),
        "the study design shared by the four pages (params/<profile>/seal-study.yml; AlignmentDesign): data (D) "
        "and other_data (pluralign.load specs; the pre-D RM's training data), reward_models ({pre, post}: "
        "pluralign.rewards.load arguments or keys of `models`) or the train and base_model of this project's own "
        "pair, and scoring_input ('seal': SEAL's (history, reply) split; 'prompt_reply': the loader's)",
    )
    features: Literal[FEATURE_SOURCES] | None = setting(
        None,
        "where the entries' features come from: 'planted' (the simulator's), 'rules' (the rule-based featurizer), "
        "'llm' (the LM-labeller of App. C.3); None: no features (the rewards page needs none)",
    )
    labeller: LLMOptions | str | None = setting(
        None, "the LM-labeller (pluralign.llm.load arguments or a key of `models`) for features 'llm' and rewriting"
    )
    labeller_temperature: float = setting(
        0.0,
        "the sampling temperature of the LM-labeller and the stability labellers (§ 2.1: gpt-4-turbo 'at temperature "
        "0'; App. D.5: the other labellers 'also at temperature 0.0')",
        ge=0,
    )
    stability_labellers: list[LLMOptions | str] | None = setting(
        None,
        "label stability (App. D.5, Fig. 11): more labellers (pluralign.llm.load arguments or keys of `models`) "
        "that label a random share of the pairs; None: not run",
        pages=IMPRINT,
    )
    stability_share: float = setting(
        0.01, "the share of D's pairs the stability labellers label (App. D.5: 1%)", gt=0, le=1, pages=IMPRINT
    )
    vif_threshold: float | None = setting(
        VIF_THRESHOLD,
        "the regressions of Eq. 1, 2 and 3 (Tables 5-7) drop features whose VIF exceeds this (footnote 6: 5, "
        "'following standard practice'); None: none dropped",
        gt=1,
    )
    labeller_rule: Literal[tuple(LABELLER_RULES)] = setting(
        "harmless_first",
        "γ's rule (App. D.4): 'harmless_first' (SEAL's code, which gives its reported counts) or 'helpful_first' "
        "(its text and Table 2); both rules' counts are shown",
    )
    reward_gap_models: list[ModelOptions | str] | None = setting(
        None,
        "App. D.1 / Fig. 7: the RMs whose reward gaps are compared (pluralign.rewards.load arguments or keys of "
        "`models`); None: this study's pre-D and post-D RMs (and, on planted features, the population's mean utility)",
        pages=RESISTANCE,
    )
    other_preference_sets: list[DataSpec] | None = setting(
        None,
        "§ 3: preference sets to measure alignment resistance on (pluralign.load specs); None: the study's own",
        pages=RESISTANCE,
    )
    topic_source: Literal[TOPIC_SOURCES] = setting(
        "rules",
        "App. E.1 / Fig. 15: 'rules' (the keyword stand-in) or 'llm' (the LM-labeller's, features 'llm')",
        pages=RESISTANCE,
    )
    rewriter: LLMOptions | str | None = setting(
        None,
        "§ 2.3's rewriting: 'simulator' (the demo's planted flips), pluralign.llm.load arguments or a key of "
        "`models` (an LM, with the labeller re-featurizing its rewrites), or None (not run)",
        pages=ROBUSTNESS,
    )
    rewrite_temperature: float = setting(
        0.1,
        "the LM rewriter's sampling temperature (§ 2.3, footnote 13: Mistral 7B 'ran at temperature 0.1')",
        ge=0,
        pages=ROBUSTNESS,
    )
    n_rewrite: int | None = setting(
        200, "pairs drawn for rewriting; None: rewrite_share of D's pairs", gt=0, pages=ROBUSTNESS
    )
    rewrite_share: float | None = setting(
        None, "the share of D's pairs drawn for rewriting when n_rewrite is None", gt=0, le=1, pages=ROBUSTNESS
    )
    p_flip: float | None = setting(
        0.25,
        "the simulator's rewriter: the probability that a rewrite flips each planted feature (demo only: a stated "
        "round value, one planted feature in four; pluralign.data.difficulty lists it)",
        ge=0,
        le=1,
        pages=ROBUSTNESS,
    )
    similarity_model: str | None = setting(
        None,
        "the embedding of original and rewritten texts' similarity (pluralign.embed; the paper: BAAI/bge-m3)",
        pages=ROBUSTNESS,
    )
    robustness_model: Literal[ROBUSTNESS_MODELS] = setting(
        "linear",
        "Eq. 4 / Table 8: 'linear' (the linear probability model of SEAL's code, Table 8's scale) or 'logit' "
        "(Eq. 4 as written); both are shown, this one is plotted",
        pages=ROBUSTNESS,
    )

    @model_validator(mode="after")
    def _labeller_for_llm_steps(self):
        """§ 2.3 re-labels every rewrite with the LM-labeller, and features 'llm' are the labeller's; a rewriter
        needs a number of pairs to rewrite."""
        if self.rewriter not in (None, "simulator") and not self.labeller:
            raise ValueError(
                "rewriter needs a labeller too: § 2.3 re-labels every rewrite with the LM-labeller "
                "(set labeller: pluralign.llm.load arguments or a key of models)"
            )
        if self.features == "llm" and not self.labeller:
            raise ValueError("features 'llm' needs a labeller (pluralign.llm.load arguments)")
        if self.rewriter is not None and self.n_rewrite is None and self.rewrite_share is None:
            raise ValueError("a rewriter needs n_rewrite or rewrite_share (how many pairs to rewrite)")
        return self
