"""The settings of Part IV's study (across the three papers): one field per page parameter of the four cross pages
(``notebooks/cross_*.py``, ``params/<profile>/cross-study.yml``), each default and its documentation written here
once. The nested settings of the synthetic judge (:data:`JUDGE`), the train / test split (:data:`SPLIT`) and SEAL's
pre-D / post-D reward models (:data:`SEAL`) are given as overrides of their defaults and merged over them here, in
one place (:func:`pluralign.settings.merge`: an unknown key is an error naming it)."""

from __future__ import annotations

import dataclasses

from pluralign.data.difficulty import JUDGE_N, JUDGE_NOISE
from pluralign.settings import Settings, merge, setting

__all__ = ["CrossSettings", "DEMO_DATA", "JUDGE", "SPLIT", "SEAL"]

#: The demo's data: the simulator's HelpSteer2-format pairs (four annotators with Likert scores, so the MSE model
#: trains too), the same pairs Part I's second demo data set uses (its embeddings and models are reused).
DEMO_DATA = {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}}
#: The synthetic judge of Beyond the Binary Eq. 3 (:func:`pluralign.btb.margins.judgments_from`): ``from`` =
#: "simulated" (the demo's offline stand-in on the planted p*), "llm" (``model``, the paper's) or None (no
#: synthetic margin on this profile: only the annotators' gold margin).
JUDGE = {
    "from": "simulated",
    "n": JUDGE_N,
    "noise": JUDGE_NOISE,
    "top_p": 0.9,
    "model": None,
    "method": "sample",
    "job": "cross-margins",
}
#: Held-out pairs: ``test`` (evaluated) and ``validation`` (the best checkpoint is chosen on them).
SPLIT = {"test": 300, "validation": 100}
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

P_STAR_SOURCES = ("truth", "annotators", "labels", "llm", "none")
JUDGE_SOURCES = (None, "none", "simulated", "llm", "annotators")


@dataclasses.dataclass(frozen=True)
class CrossSettings(Settings):
    """What Part IV's four pages analyse and how (:func:`pluralign.cross.setup`)."""

    data: object = setting(
        None,
        "one multi-annotator data spec (pluralign.data.spec.from_spec), or a list of them, each analysed apart "
        "(the paper profile: MultiPref and HelpSteer2, never combined); None: DEMO_DATA",
    )
    ties: str = setting("majority", "the reading of Diverging Preferences §3's tie class: 'majority' or 'plurality'")
    p_star_from: object = setting(
        "truth",
        "where p* (Beyond the Binary Eq. 2) comes from: truth, annotators, labels, llm or none (a list: fallbacks)",
    )
    labeller: object = setting(None, "the LLM labeller of p_star_from 'llm' (llm.load arguments or a key of models)")
    judge: dict = setting({}, "the synthetic judge of Eq. 3: overrides of cross.settings.JUDGE ('from': null for none)")
    split: dict = setting({}, "held-out pairs: overrides of cross.settings.SPLIT ({test, validation})")
    reward_model: object = setting(
        None, "the reward model: pluralign.rewards.load arguments or a key of models (None: load's defaults)"
    )
    train: dict = setting({}, "RewardModel.train arguments of the five models of question 4")
    train_margin: str = setting(
        "synthetic", "what Eq. 4's margin-regularized RM trains on: 'synthetic' (gold when there is no judge) or 'gold'"
    )
    seal: dict = setting({}, "SEAL's pre-D / post-D reward models: overrides of cross.settings.SEAL")
    n_boot: int = setting(2000, "bootstrap resamples of every 95% CI")

    def __post_init__(self):
        object.__setattr__(self, "data", DEMO_DATA if self.data is None else self.data)
        object.__setattr__(self, "judge", merge(JUDGE, self.judge, what="judge"))
        object.__setattr__(self, "split", merge(SPLIT, self.split, what="split"))
        object.__setattr__(self, "seal", merge(SEAL, self.seal, what="seal"))
        object.__setattr__(self, "train", dict(self.train or {}))
        object.__setattr__(self, "n_boot", int(self.n_boot))
        if self.ties not in ("majority", "plurality"):
            raise ValueError(f"ties must be 'majority' or 'plurality', not {self.ties!r}")
        sources = self.p_star_from if isinstance(self.p_star_from, list) else [self.p_star_from]
        if any(s not in P_STAR_SOURCES for s in sources):
            raise ValueError(
                f"p_star_from must be one of {P_STAR_SOURCES} (or a list of them), not {self.p_star_from!r}"
            )
        if self.judge["from"] not in JUDGE_SOURCES:
            raise ValueError(f"judge.from must be one of {JUDGE_SOURCES}, not {self.judge['from']!r}")
        if self.train_margin not in ("synthetic", "gold"):
            raise ValueError(f"train_margin must be 'synthetic' or 'gold', not {self.train_margin!r}")
        if self.n_boot < 1:
            raise ValueError(f"n_boot must be at least 1, not {self.n_boot}")

    @property
    def has_judge(self) -> bool:
        """Whether a synthetic judge gives margins (``judge.from`` is not None / "none")."""
        return self.judge["from"] not in (None, "none")
