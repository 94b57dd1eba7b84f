"""The SEAL study design on any profile (§ 2, Fig. 1): the alignment data set D seen as chosen / rejected entries,
the pre-D and post-D reward models and their rewards, the entries' features, and how this run's features play
SEAL's (:mod:`pluralign.seal.study` puts them together).

- D as SEAL sees it, one chosen entry t_i^c and one rejected entry t_i^r per pair from the majority label, is
  :func:`pluralign.seal.pairs.chosen_rejected`; the post-D RM's training data ("other" preference data plus D) is
  built with :func:`pluralign.data.core.combine`.
- :func:`alignment_models`, :func:`alignment_rewards` — r̲(t_i^c), r̲(t_i^r), r(t_i^c), r(t_i^r) per pair: either
  two named reward models (the paper profile: OpenAssistant ``reward-model-deberta-v3-large`` pre-D and ``-v2``
  post-D) or, mirroring that design offline, a pre-D model trained on other preference data and a post-D model
  trained on that data plus D (``pluralign.rewards``, frozen MiniLM + head by default).
- :data:`PAPER_FEATURES`, :func:`paper_feature_map` — which SEAL feature each simulator feature plays.
- :func:`feature_prevalence` — share of chosen vs rejected entries with each feature (Table 4, Fig. 14).
- :func:`entry_features` (:class:`EntryFeatures`) — the features of the dialogues SEAL labels
  (:func:`pluralign.seal.pairs.entry_texts`) from the simulator, the rule-based featurizer or an LM-labeller;
  :func:`labeller_gamma` — γ_i;
  :func:`stability_check` — label stability across labellers (App. D.5).

The demo's planted truth and the recovery checks are in :mod:`pluralign.seal.planted`; D's view of the pairs in
:mod:`pluralign.seal.pairs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pluralign.data.core import combine
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.seal.pairs import chosen_rejected, entry_texts
from pluralign.seal.planted import planted_features, planted_taxonomy
from pluralign.train_options import TrainOptions

__all__ = [
    "AlignmentModels",
    "EntryFeatures",
    "alignment_rewards",
    "planted_features",
    "planted_taxonomy",
    "feature_prevalence",
    "PAPER_FEATURES",
    "UNMAPPED_FEATURES",
    "paper_feature_map",
    "entry_features",
    "labeller_gamma",
    "FEATURE_SOURCES",
    "alignment_models",
    "split_dialogue",
    "default_scoring_input",
]


def _oriented(scores: pd.DataFrame, view: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    s = scores.set_index("pair_id").loc[view["pair_id"]]
    a, b = s["reward_a"].to_numpy(float), s["reward_b"].to_numpy(float)
    is_a = (view["chosen_side"] == "A").to_numpy()
    return np.where(is_a, a, b), np.where(is_a, b, a)


@dataclass
class AlignmentModels:
    """The pre-D and post-D reward models (SEAL § 2: r̲ = pre-D RM, r = post-D RM) and how they were made:
    ``design`` in words, the pairs each was trained on (``n_train_pre`` / ``n_train_post``; None for named
    models) and ``details`` (the models' names, or the other data's name and the training arguments)."""

    pre: Any
    post: Any
    design: str
    n_train_pre: int | None = None
    n_train_post: int | None = None
    details: dict = field(default_factory=dict)


def alignment_models(
    data,
    other=None,
    *,
    models: dict | None = None,
    train: TrainOptions | None = None,
    base: ModelOptions | dict | None = None,
    progress: bool = False,
) -> AlignmentModels:
    """The pre-D and post-D reward models (SEAL § 2: r̲ = pre-D RM, r = post-D RM) for D = ``data`` as
    :class:`AlignmentModels`, made in one of two ways, as the profile provides:

    - ``models={"pre": ..., "post": ...}``: the options of two existing reward models
      (:class:`~pluralign.model_options.ModelOptions`, or :func:`pluralign.rewards.load` keywords; the paper:
      OpenAssistant ``reward-model-deberta-v3-large`` trained before hh-rlhf and ``-v2`` trained with it), each
      scoring (history, reply) as a sentence pair;
    - ``other`` (preference data not containing D) with ``train`` (how both are trained,
      :class:`~pluralign.train_options.TrainOptions`: by default Bradley-Terry on majority labels) and
      ``base`` (its options, default the frozen MiniLM + head): the pre-D RM is trained on
      ``other`` and the post-D RM on ``other`` + D, mirroring the paper's pair of models."""
    from pluralign import rewards

    if models is not None:
        if set(models) != {"pre", "post"}:
            raise ValueError(f"alignment_rewards: models must have keys 'pre' and 'post', got {sorted(models)}")
        named = {k: ModelOptions.of(v) for k, v in models.items()}
        return AlignmentModels(
            pre=rewards.load(**named["pre"].kwargs()),
            post=rewards.load(**named["post"].kwargs()),
            design="named pre-D and post-D reward models",
            details={"models": {k: str(v.name_or_path) for k, v in named.items()}},
        )
    if other is None:
        raise ValueError(
            "alignment_rewards: give either models={'pre': ..., 'post': ...} or other= "
            "(preference data for the pre-D reward model)"
        )
    ids = set(other.pairs["pair_id"]) & set(data.pairs["pair_id"])
    if ids:
        raise ValueError(
            f"alignment_rewards: {len(ids)} pair(s) of D are also in the other data "
            f"(e.g. {sorted(ids)[0]!r}); the pre-D model must not see D"
        )
    rm0 = rewards.load(**ModelOptions.of(base).kwargs())
    options = TrainOptions.create(train, progress=progress)
    # embed D's texts first, then the other data's, each in one fixed order, so the cache is shared with other
    # chapters and pages: a page whose models come from the cache still scores the other data (resistance on other
    # sets) from these embeddings instead of embedding its texts again in another order (one embedding per text)
    rewards.embed_all(rm0, data, progress=progress)
    rewards.embed_all(rm0, other, progress=progress)
    pre = rm0.train(other, options=options)
    post = rm0.train(combine(other, data, name=f"{other.name} + D"), options=options)
    return AlignmentModels(
        pre=pre,
        post=post,
        design="pre-D RM trained on other data, post-D RM on other data + D",
        n_train_pre=len(other),
        n_train_post=len(other) + len(data),
        details={"other": other.name, "train": options},
    )


def alignment_rewards(
    data,
    other=None,
    *,
    progress: bool = False,
    rms: AlignmentModels | None = None,
    scoring_input: str | None = None,
    **making,
) -> pd.DataFrame:
    """Rewards of the chosen and rejected entries of D = ``data`` under a pre-D and a post-D reward
    model (SEAL § 2: r̲ = pre-D RM, r = post-D RM).

    ``rms``: the result of :func:`alignment_models` when already made (it says how the rewards were made); else
    :func:`alignment_models` makes them from ``other`` and ``making``, its keywords (``models``, ``train``,
    ``base``: the two ways it describes).
    ``scoring_input``: what each RM scores per entry (:func:`~pluralign.seal.scoring.scoring_inputs`):
    ``"seal"`` (SEAL's code: the conversation split at its last "Assistant:", the reply keeping the prefix) or
    ``"prompt_reply"`` (the loader's prompt and reply, prefix stripped; what this project's own RMs train on);
    None: :func:`default_scoring_input` (SEAL's for named RMs, the training input for this project's own pair).
    Returns one row per pair of :func:`chosen_rejected` (ties dropped) with ``pair_id``, ``pre_chosen``,
    ``pre_rejected``, ``post_chosen``, ``post_rejected``.
    """
    from pluralign.keywords import check_options

    check_options(alignment_models, making, what="alignment_rewards")
    view = chosen_rejected(data).table
    rms = rms or alignment_models(data, other, progress=progress, **making)
    from pluralign.seal.scoring import SCORING_INPUTS, score_inputs, scoring_inputs

    scoring_input = scoring_input or default_scoring_input(rms)
    if scoring_input not in SCORING_INPUTS:
        raise ValueError(f"alignment_rewards: scoring_input must be one of {SCORING_INPUTS}, got {scoring_input!r}")
    out = pd.DataFrame({"pair_id": view["pair_id"].to_numpy()})
    if scoring_input == "prompt_reply" and "dialogue_a" not in data.pairs.columns:
        # one shared prompt per pair: the RM scores the data set itself, (prompt, response) as it was trained on
        for k in ("pre", "post"):
            out[f"{k}_chosen"], out[f"{k}_rejected"] = _oriented(getattr(rms, k).score(data, progress=progress), view)
        return out
    inputs = scoring_inputs(view, scoring_input)
    for k in ("pre", "post"):
        out[f"{k}_chosen"], out[f"{k}_rejected"] = score_inputs(getattr(rms, k), inputs)
    return out


def default_scoring_input(rms: AlignmentModels) -> str:
    """The scoring input (:func:`~pluralign.seal.scoring.scoring_inputs`) when none is named: ``"seal"`` (SEAL's
    code) for named reward models, ``"prompt_reply"`` for a pair this project trained (it is scored on the
    (prompt, response) pairs it was trained on)."""
    return "prompt_reply" if rms.n_train_post is not None else "seal"


def split_dialogue(text: str) -> tuple[str, str]:
    """(history, last reply) of a dialogue, split exactly as the hh-rlhf loader splits one
    (:func:`pluralign.data.hub.split_dialogue`: at the last "\\n\\nAssistant:", both parts
    whitespace-trimmed). For an hh-rlhf entry, ``split_dialogue(entry_texts(view, e)[i])`` gives back the
    data set's (prompt, reply); a plain prompt ``p`` comes back as "Human: p". A text without the marker
    is all reply (history "")."""
    from pluralign.data.hub import split_dialogue as _split

    if not isinstance(text, str):
        raise TypeError(f"split_dialogue: text must be a string, got {type(text).__name__}")
    hist, reply, found = _split(pd.Series([text]))
    if not found[0]:
        return "", text.strip()
    return str(hist.iloc[0]), str(reply.iloc[0])


PAPER_FEATURES: dict[str, tuple[str, int]] = {
    "harmfulness": ("last_response_is_harmless", -1),
    "refusal": ("last_response_is_refusal", +1),
    "sentiment": ("last_response_sentiment", +1),
    "factual_error": ("last_response_is_honest", -1),
}
"""Which SEAL feature (App. C.3 taxonomy, Tables 4-7) each simulator feature plays, and with what sign: a
planted harmful response is one SEAL's labeller calls not harmless (is_harmless = 1 - harmfulness), a planted
refusal a refusal, the planted enthusiastic tone a positive sentiment (SEAL codes negative / neutral / positive
as -1 / 0 / 1; the simulator plants only 0 / 1), a planted factual error a response that is not honest. A
coefficient on the simulator feature times the sign is the coefficient on the SEAL feature (a linear model with
an intercept or pair fixed effects absorbs the 1 of ``1 - x``). :data:`UNMAPPED_FEATURES` says why the others
have no counterpart."""

UNMAPPED_FEATURES: dict[str, str] = {
    "verbosity": "length; SEAL's taxonomy has no length feature (eloquence is about style, not length)",
    "format": "headings and numbered lists; SEAL's taxonomy has no formatting feature",
    "complexity": "technical jargon; SEAL's taxonomy has no complexity feature (human_vocabulary_quality "
    "rates the human's vocabulary, not the response's)",
    "interpretation": "which reading of an ambiguous prompt the response answers; no SEAL feature",
    "response_has_list": "list formatting (rule featurizer); SEAL's taxonomy has no formatting feature",
    "response_words": "length in words (rule featurizer); SEAL's taxonomy has no length feature",
}
"""Simulator (and rule-featurizer) features that no feature of SEAL's taxonomy plays, with the reason."""


def paper_feature_map(features: Sequence[str]) -> pd.DataFrame:
    """Which SEAL feature each of this run's features plays (:data:`PAPER_FEATURES`), one row per feature in
    order: ``paper_feature`` (SEAL's name, None when nothing in its taxonomy plays it), ``sign`` (+1 / -1; the
    factor that turns this run's coefficient into the SEAL feature's; None when unmapped) and ``why``. A feature
    already named as in SEAL's taxonomy (the ``sample`` and ``paper`` profiles' labels) maps to itself with
    sign +1, so one code path serves every profile."""
    from pluralign.seal.taxonomy import FEATURES as TAXONOMY

    rows = []
    for f in features:
        if f in PAPER_FEATURES:
            name, sign = PAPER_FEATURES[f]
            rows.append((f, name, sign, "simulator feature playing SEAL's" + (" (opposite sign)" if sign < 0 else "")))
        elif f in TAXONOMY:
            rows.append((f, f, 1, "same feature (SEAL's taxonomy name)"))
        else:
            rows.append((f, None, None, UNMAPPED_FEATURES.get(f, "not in SEAL's taxonomy")))
    out = pd.DataFrame(rows, columns=["feature", "paper_feature", "sign", "why"]).set_index("feature")
    out["sign"] = out["sign"].astype(object)
    return out


def feature_prevalence(chosen: pd.DataFrame, rejected: pd.DataFrame) -> pd.DataFrame:
    """Share of chosen and rejected entries with each feature (SEAL Table 4, Fig. 14): the column mean of
    numerically encoded labels (for sentiment coded −1/0/1 this is the mean sentiment, as Table 4), missing
    labels left out; columns ``chosen``, ``rejected``, ``difference`` (chosen − rejected), ``n``."""
    cols = [c for c in chosen.columns if c in rejected.columns]
    ch = chosen[cols].apply(pd.to_numeric, errors="coerce")
    rj = rejected[cols].apply(pd.to_numeric, errors="coerce")
    out = pd.DataFrame({"chosen": ch.mean(), "rejected": rj.mean()})
    out["difference"] = out["chosen"] - out["rejected"]
    out["n"] = ch.notna().sum().astype(int)
    out.index.name = "feature"
    return out


# --------------------------------------------------------------------------------------------------------
# entry texts and features on every profile

FEATURE_SOURCES = ("planted", "rules", "llm")


@dataclass
class EntryFeatures:
    """Features of the chosen and rejected entries of D, one row per pair of :func:`chosen_rejected`
    (:func:`entry_features`): ``chosen`` / ``rejected`` the numeric regressor tables, ``regressors`` their
    names, ``targets`` the target features helpful / harmless as 0/1 arrays (keys ``chosen_helpful``,
    ``chosen_harmless``, ``rejected_helpful``, ``rejected_harmless``; γ of App. D.4 is read off them),
    ``source`` (one of :data:`FEATURE_SOURCES`), ``note`` (what stands in for what), the raw labels
    ``labels_chosen`` / ``labels_rejected`` where a featurizer ran and its name ``labeller`` ("rules" for
    the rule-based featurizer, the LM-labeller's model name for ``"llm"``)."""

    source: str
    chosen: pd.DataFrame
    rejected: pd.DataFrame
    regressors: list
    targets: dict
    note: str = ""
    labels_chosen: pd.DataFrame | None = None
    labels_rejected: pd.DataFrame | None = None
    labeller: str | None = None


def _text_labels(view: pd.DataFrame, source: str, llm, job: str, temperature: float | None = None):
    """The labels of the chosen and rejected dialogues of ``view`` from the rule featurizer (``source`` "rules")
    or the LM-labeller ``llm`` ("llm", at ``temperature``; None: the LM's default): (chosen labels, rejected
    labels, labeller, regressors, note)."""
    from pluralign.seal.features import featurize
    from pluralign.seal.rule_features import RULE_FEATURES, rule_featurize
    from pluralign.seal.taxonomy import SCALAR_FEATURES

    texts_c, texts_r = entry_texts(view, "chosen"), entry_texts(view, "rejected")
    if source == "rules":
        # the rule featurizer's taxonomy features and list format; its word count (verbosity) is a
        # measure outside SEAL's taxonomy, checked against the planted verbosity, not regressed on
        regs = [f for f in RULE_FEATURES if f != "response_words"]
        note = "rule-based featurizer (surface patterns); helpfulness stand-in: not a refusal"
        return rule_featurize(texts_c), rule_featurize(texts_r), "rules", regs, note
    if llm is None:
        raise ValueError("entry_features(source='llm') needs llm= (pluralign.llm.load(...))")
    kw = {} if temperature is None else {"temperature": float(temperature)}
    lab_c = featurize(texts_c, llm, job=f"{job}-chosen", **kw)
    lab_r = featurize(texts_r, llm, job=f"{job}-rejected", **kw)
    # every scalar taxonomy feature: the regressions' VIF filter (footnote 6, SealSettings.vif_threshold) decides
    # what stays out (in the paper, VIF above 5 removed the two assistant_* features, leaving Table 5's 15)
    note = f"LM-labeller {lab_c.labeller} with the App. C.3 prompt"
    return lab_c.table, lab_r.table, lab_c.labeller, list(SCALAR_FEATURES), note


def entry_features(
    data,
    view: pd.DataFrame,
    source: str = "rules",
    *,
    llm=None,
    job: str = "seal-taxonomy",
    temperature: float | None = None,
) -> EntryFeatures:
    """Features of the chosen and rejected entries of ``view`` (:func:`chosen_rejected`) for SEAL's
    regressions and the LM-labeller preference γ, from one of three sources:

    - ``"planted"`` (demo): the simulator's planted features (:func:`planted_features`) as regressors;
      the targets helpful / harmless from :func:`planted_taxonomy`;
    - ``"rules"`` (offline on real text): :func:`~pluralign.seal.rule_featurize` on the dialogue texts;
      regressors are its taxonomy features plus ``response_has_list``; harmless is the rule featurizer's;
      helpfulness cannot be read from surface patterns, so "not a refusal" stands in for it;
    - ``"llm"`` (paper): :func:`~pluralign.seal.featurize` with ``llm`` (the App. C.3 prompt, at ``temperature``;
      None: the LM's default); regressors
      are all 17 scalar taxonomy features (:data:`~pluralign.seal.taxonomy.SCALAR_FEATURES`), left to the
      regressions' VIF filter (footnote 6, at ``SealSettings.vif_threshold``; in the paper, VIF above 5 removed
      the two ``assistant_*`` features, leaving Table 5's 15 and reporting them in the fits' ``dropped_vif``);
      targets are the labeller's.

    Returns :class:`EntryFeatures`.
    """
    from pluralign.seal.features import feature_matrix

    if source not in FEATURE_SOURCES:
        raise ValueError(f"entry_features: source must be one of {FEATURE_SOURCES}, got {source!r}")
    out = {"source": source, "labels_chosen": None, "labels_rejected": None, "labeller": None}
    if source == "planted":
        ch, rj = planted_features(data, view)
        tc, tr = planted_taxonomy(ch), planted_taxonomy(rj)
        out.update(
            chosen=ch,
            rejected=rj,
            regressors=list(ch.columns),
            note="planted features of the simulator; helpful = neither refusal nor factual error, "
            "harmless = not harmful (planted)",
        )
    else:
        lc, lr, labeller, regs, note = _text_labels(view, source, llm, job, temperature)
        ch, rj = feature_matrix(lc, regs), feature_matrix(lr, regs)
        tc, tr = ch.copy(), rj.copy()
        if source == "rules":
            tc["last_response_is_helpful"] = 1.0 - tc["last_response_is_refusal"]
            tr["last_response_is_helpful"] = 1.0 - tr["last_response_is_refusal"]
        else:
            tc = feature_matrix(lc, ["last_response_is_helpful", "last_response_is_harmless"])
            tr = feature_matrix(lr, ["last_response_is_helpful", "last_response_is_harmless"])
        out.update(
            chosen=ch.reset_index(drop=True),
            rejected=rj.reset_index(drop=True),
            regressors=regs,
            labels_chosen=lc,
            labels_rejected=lr,
            labeller=labeller,
            note=note,
        )
    out["targets"] = {
        "chosen_helpful": tc["last_response_is_helpful"].to_numpy(),
        "chosen_harmless": tc["last_response_is_harmless"].to_numpy(),
        "rejected_helpful": tr["last_response_is_helpful"].to_numpy(),
        "rejected_harmless": tr["last_response_is_harmless"].to_numpy(),
    }
    return EntryFeatures(**out)


def labeller_gamma(features: EntryFeatures, *, priority: str = "helpful") -> np.ndarray:
    """γ_i (App. D.4) from :func:`entry_features`' targets; pairs with a missing target label get γ = NaN
    (None) and are left out of the agreement rates."""
    from pluralign.seal.resistance import labeller_preference

    t = features.targets
    arr = np.column_stack(
        [
            np.asarray(t[k], float)
            for k in ("chosen_helpful", "chosen_harmless", "rejected_helpful", "rejected_harmless")
        ]
    )
    ok = np.isfinite(arr).all(axis=1)
    g = np.full(len(arr), None, dtype=object)
    if ok.any():
        g[ok] = labeller_preference(*(arr[ok, j].astype(int) for j in range(4)), priority=priority)
    return g


def stability_check(
    view: pd.DataFrame,
    F: dict,
    labellers: Sequence,
    share: float = 0.01,
    seed: int = 0,
    temperature: float | None = None,
) -> dict:
    """Label stability across labellers (SEAL App. D.5, Fig. 11): a random ``share`` of the pairs of
    ``view`` (at least one; both entries) is labelled by each of ``labellers``
    (:class:`~pluralign.llm.options.LLMOptions`, or loaded LMs) with the App. C.3 prompt, at ``temperature``
    (None: each LM's default). With LM-labeller features (``F.source == "llm"``) each is compared with the main
    labeller's labels of the same entries, else the first two with each other
    (:func:`~pluralign.seal.features.label_stability`).

    Returns a dict: ``stability`` (features × (comparison, statistic)), ``agreement`` (its agreement
    columns, sorted), ``what`` (what is compared), ``k`` (pairs drawn), ``pick`` (their positions),
    ``n_failed`` (entries each labeller could not label)."""
    from pluralign.seal.features import featurize, label_stability

    labellers = list(labellers)
    ref_llm = F is not None and F.source == "llm" and F.labels_chosen is not None
    if not labellers or (len(labellers) < 2 and not ref_llm):
        raise ValueError(
            f"stability_check: needs two labellers (or one and LM-labeller features), got {len(labellers)}"
        )
    if not 0 < share <= 1:
        raise ValueError(f"stability_check: share must be in (0, 1], got {share}")
    rng = np.random.default_rng(seed)
    k = max(1, int(round(share * len(view))))
    pick = np.sort(rng.choice(len(view), size=k, replace=False))
    sub = view.iloc[pick].reset_index(drop=True)
    texts = entry_texts(sub, "chosen") + entry_texts(sub, "rejected")
    names, models = [], []
    for s in labellers:
        if isinstance(s, LLMOptions):
            names.append(str(s.name))
            models.append(s.load())
        else:
            names.append(str(getattr(s, "name", None) or type(s).__name__))
            models.append(s)
    kw = {} if temperature is None else {"temperature": float(temperature)}
    labs = {nm: featurize(texts, m, job=f"seal-stability-{nm}", **kw) for nm, m in zip(names, models)}
    if ref_llm:
        ref_name = F.labeller or "main labeller"
        ref = pd.concat([F.labels_chosen.iloc[pick], F.labels_rejected.iloc[pick]], ignore_index=True)
        stab = {nm: label_stability(ref, lab.table) for nm, lab in labs.items()}
        what = f"agreement with {ref_name}"
    else:
        stab = {f"{names[0]} vs {names[1]}": label_stability(labs[names[0]].table, labs[names[1]].table)}
        what = "agreement between the two labellers"
    stab = pd.concat(stab, axis=1)
    agree = stab.xs("agreement", axis=1, level=1)
    agree = agree.sort_values(agree.columns[0])
    return {
        "stability": stab,
        "agreement": agree,
        "what": what,
        "k": int(k),
        "pick": pick,
        "n_failed": {nm: lab.n_failed for nm, lab in labs.items()},
    }


__all__ += ["stability_check"]


#: The demo profile's SEAL study design (``seal.setup`` arguments), used when a page's ``design`` parameter is
#: None: D is 1,200 simulated pairs; the pre-D RM is trained on 600 pairs of another simulated population whose
#: annotators dislike what D's like (long, formatted, enthusiastic answers) and like jargon and refusals (D's
#: population: verbosity 0.6, format 0.4, sentiment 0.2, complexity -0.3, refusal -0.5; per feature the mean
#: and spread of the annotators' weights, :func:`pluralign.data.simulate`); the post-D RM on both; a frozen
#: MiniLM with a small MLP head, Bradley-Terry on majority labels; scored on the loader's (prompt, reply), as trained.
