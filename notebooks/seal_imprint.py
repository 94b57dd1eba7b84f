# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---


# %% [markdown]
# (seal-imprint)=
# # SEAL: feature imprint
#
# Which features of a text does a reward model reward? SEAL's *feature imprint* (§ 2.1, Eq. 1)
# regresses the reward of every entry, chosen and rejected alike, on the entry's feature indicators,
# with a fixed effect per pair:
#
# $$r(t_i^*) = \alpha_i + \sum_\tau \beta_\tau\, t_i^*(\tau) + \varepsilon_i .$$
#
# $\beta_\tau$ is the reward difference between an entry with feature $\tau$ and one without, all else
# equal. The paper labels the 321,600 entries of hh-rlhf with gpt-4-turbo (the App. C.3 taxonomy: 2
# target features, helpfulness and harmlessness, and 17 spoiler features), drops features whose VIF
# exceeds 5, corrects p-values with Bonferroni, and compares the imprints of the pre-$\mathcal{D}$ and
# post-$\mathcal{D}$ reward models ({ref}`seal-rewards`). The same regression here runs through
# pyfixest with pair fixed effects and pair-clustered standard errors.

# %% tags=["parameters"]
profile = "demo"
seed = 0
# the alignment data set D (pluralign.data.spec.from_spec)
data = {"simulate": {"n_pairs": 1200, "seed": 0}}
# preference data for the pre-D RM (a list of specs, concatenated); null when reward_models are given
other_data = [{"simulate": {"n_pairs": 600, "seed": 1, "name": "simulated-other",
                            "weights": {"verbosity": [-0.6, 1.0], "format": [-0.4, 0.9], "sentiment": [-0.5, 1.0],
                                        "complexity": [0.3, 0.9], "refusal": [0.3, 1.0]}}}]
# named pre-D / post-D reward models (pluralign.rewards.load arguments); null: train them as above
reward_models = None
# training of the pre-D / post-D RMs (RewardModel.train arguments) and their base (rewards.load arguments)
train = {"objective": "bt", "labels": "aggregate"}
base_model = {"head": "mlp"}
# where the features come from: "planted" (simulator), "rules" (rule-based featurizer), "llm" (LM-labeller)
features = "planted"
# the LM-labeller (pluralign.llm.load arguments) when features == "llm"
labeller = None

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import pandas as pd
from myst_nb import glue

from pluralign import report, seal
from pluralign.data import spec
from pluralign.seal.plots import coefficient_plot
from IPython.display import Markdown, display

stand_ins = []
if reward_models is None:
    stand_ins.append("pre-D and post-D reward models trained by this project (pre-D on other preference data, "
                     "post-D on that data plus D) in place of the OpenAssistant DeBERTa-v3 pair")
if features == "planted":
    stand_ins.append("the simulator's planted features in place of the LM-labeller's taxonomy; the rule-based "
                     "featurizer is checked against them")
elif features == "rules":
    stand_ins.append("the rule-based featurizer in place of the LM-labeller (surface patterns; no helpfulness, "
                     "honesty, coherence or eloquence)")
report.profile_note(profile, stand_ins=stand_ins)

# %% tags=["remove-input"]
D = spec.from_spec(data)
other_parts = [spec.from_spec(s) for s in other_data] if other_data else []
other = seal.combine(*other_parts, name="other data") if other_parts else None
view = seal.chosen_rejected(D)
R = seal.alignment_rewards(D, other, models=reward_models, train=train, base=base_model)
llm = None
if features == "llm":
    from pluralign import llm as _llm
    llm = _llm.load(**labeller)
F = seal.entry_features(D, view, features, llm=llm)

# %% [markdown]
# ## Featurization
#
# On the `paper` profile an LM-labeller answers the App. C.3 prompt for every entry (validated JSON,
# resumable). Offline there is no instruction-tuned LM, so `demo` regresses on the simulator's
# **planted** features, which are the ground truth, and `sample` uses the **rule-based featurizer**
# (refusal phrases, a sentiment lexicon, word lists for insults and explicit content, privacy
# patterns, harmful-topic cues). On `demo` the rule-based featurizer is checked against the planted
# labels, feature by feature, on the chosen and rejected entries together (this is also the
# label-stability check of App. D.5 / Fig. 11, with the planted labels as the second labeller):

# %% tags=["hide-input"]
if features == "planted":
    rules = pd.concat([seal.rule_featurize(seal.entry_texts(view, e)) for e in ("chosen", "rejected")],
                      ignore_index=True)
    planted = pd.concat([seal.planted_taxonomy(F["chosen"]), seal.planted_taxonomy(F["rejected"])],
                        ignore_index=True)
    agreement = seal.featurizer_agreement(rules, planted)
    for f in ("last_response_is_refusal", "last_response_sentiment", "response_has_list"):
        glue(f"agree_{f}", float(agreement.loc[f, "agreement"]), display=False)
    glue("auroc_words", float(agreement.loc["response_words ~ verbosity", "auroc"]), display=False)
    display(agreement.round(3))
else:
    display(pd.DataFrame({"feature source": [F["note"]], "entries labelled": [2 * len(view)]}))

# %% [markdown] tags=["remove-cell"]
# (cells below quote the demo agreement only on the demo profile)

# %% tags=["hide-input"]
if features == "planted":
    display(Markdown(
        f"The rule-based featurizer agrees with the planted refusal label on "
        f"{agreement.loc['last_response_is_refusal', 'agreement']:.3f} of the entries, with the planted "
        f"(enthusiastic) sentiment on {agreement.loc['last_response_sentiment', 'agreement']:.3f} and with list "
        f"formatting on {agreement.loc['response_has_list', 'agreement']:.3f}; its word count separates verbose "
        f"from short entries with AUROC {agreement.loc['response_words ~ verbosity', 'auroc']:.3f}. It has no "
        f"helpfulness label at all (NaN row): that judgement needs the LM-labeller. The paper's labels "
        f"came from {seal.PAPER['models']['labeller']}, cross-checked on 1% of the entries against "
        f"{' and '.join(seal.PAPER['models']['stability_labellers'])}."))

# %% [markdown]
# ## Feature prevalence in chosen and rejected entries (Table 4, Fig. 14)

# %% tags=["hide-input"]
prev = seal.feature_prevalence(F["chosen"], F["rejected"])
paper4 = seal.paper_table("table4").rename(columns={"chosen": "paper chosen", "rejected": "paper rejected"})
table4 = prev.join(paper4, how="left") if prev.index.isin(paper4.index).any() else prev
fig, ax = plt.subplots(figsize=(7, 0.35 * len(prev) + 1))
prev[["chosen", "rejected"]].plot.barh(ax=ax)
ax.set(xlabel="share of entries with the feature (sentiment: mean of -1/0/1)", ylabel="")
ax.invert_yaxis()
plt.tight_layout()
plt.show()
table4.round(3)

# %% [markdown]
# The paper's shares (Table 4, hh-rlhf train, gpt-4-turbo labels) are shown where a feature has the
# same name here.
#
# ## Imprints of the pre-$\mathcal{D}$ and post-$\mathcal{D}$ reward models (Eq. 1, Table 5, Fig. 3 left)

# %% tags=["hide-input"]
table = seal.imprint_table(R["pair_id"], F["chosen"], F["rejected"], pre=(R["pre_chosen"], R["pre_rejected"]),
                           post=(R["post_chosen"], R["post_rejected"]))
imprint = {k: seal.feature_imprint(table, k, F["regressors"]) for k in ("pre", "post")}
fig, ax = plt.subplots(figsize=(7, 0.45 * len(F["regressors"]) + 1.2))
coefficient_plot(ax, {"pre-D": imprint["pre"], "post-D": imprint["post"]}, xlabel="feature imprint β (reward points)")
ax.set_title("feature imprints, ±2 SE; filled = significant after Bonferroni")
plt.tight_layout()
plt.show()
cols = ["estimate", "std_error", "p_bonferroni"]
t5 = pd.concat({"pre-D": imprint["pre"][cols], "post-D": imprint["post"][cols]}, axis=1)
paper5 = seal.paper_table("table5")[["pre_estimate", "post_estimate"]]
paper5.columns = pd.MultiIndex.from_tuples([("paper", "pre-D estimate"), ("paper", "post-D estimate")])
overlap5 = t5.index.isin(paper5.index).any()
t5 = t5.join(paper5, how="left") if overlap5 else t5
if not overlap5:
    display(Markdown("The paper's Table 5 (its 15 LM-labelled features; no feature name in common with this run):"))
    display(seal.paper_table("table5")[["pre_estimate", "pre_std_error", "post_estimate", "post_std_error"]].round(3))
dropped = {k: v.attrs["dropped_vif"] for k, v in imprint.items()}
glue("paper_harmless_pre", seal.PAPER["table5"]["last_response_is_harmless"]["pre_estimate"], display=False)
glue("paper_harmless_post", seal.PAPER["table5"]["last_response_is_harmless"]["post_estimate"], display=False)
glue("n_imprint_obs", imprint["post"].attrs["n_obs"], display=False)
t5.round(3)

# %% [markdown]
# Each regression uses {glue:text}`n_imprint_obs` entries (two per pair). Features dropped by the
# VIF > 5 filter are listed below (the paper dropped `assistant_is_anthropomorphic` and
# `assistant_is_coherent`); features without variation are dropped too.

# %% tags=["hide-input"]
pd.DataFrame({"dropped (VIF > 5 or constant)": {k: ", ".join(v) or "none" for k, v in dropped.items()}})

# %% [markdown]
# The paper's imprints (Table 5, right-hand columns) are on the OpenAssistant RMs' reward scale and
# its 15 LM-labelled features; they are shown where our feature has the same name. In the paper,
# training on hh-rlhf turned harmlessness from a penalised feature (β = {glue:text}`paper_harmless_pre:.2f`
# pre-$\mathcal{D}$) into the most rewarded one (β = {glue:text}`paper_harmless_post:.2f` post-$\mathcal{D}$).

# %% tags=["hide-input"]
if features == "planted":
    w_D = D.meta["weights"]["mean"]
    w_other = other_parts[0].meta["weights"]["mean"] if other_parts and "weights" in other_parts[0].meta else None
    rec_post = seal.imprint_recovery(imprint["post"], w_D)
    parts = {"post-D vs D's weights": rec_post}
    if w_other is not None:
        parts["pre-D vs the other data's weights"] = seal.imprint_recovery(imprint["pre"], w_other)
    glue("rec_post_r", rec_post.attrs["pearson_r"], display=False)
    glue("rec_post_sign", rec_post.attrs["sign_agreement"], display=False)
    display(Markdown("## Recovery of the planted weights (demo)\n\nThe simulator's annotators weigh each "
                     "planted feature with a known population weight. A Bradley–Terry RM trained on their "
                     "majority labels should imprint features in the same direction and roughly in "
                     "proportion (its scale is its own, so the weights are also shown rescaled by the "
                     "least-squares factor)."))
    display(pd.concat(parts, axis=0).round(3))
    display(pd.DataFrame({k: {"Pearson r (imprint vs weight)": v.attrs["pearson_r"],
                              "sign agreement": v.attrs["sign_agreement"], "scale": v.attrs["scale"],
                              "rescaled weight inside the 95% CI": v["covered"].mean()}
                          for k, v in parts.items()}).round(3))

# %% [markdown]
# ## Reward shifts regressed on features (Eq. 2, Table 6, Fig. 3 centre)
#
# Which chosen and rejected features go with a large reward shift $\theta_i$ between the two RMs?

# %% tags=["hide-input"]
theta = seal.reward_shift(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
t6 = seal.reward_shift_regression(theta, F["chosen"], F["rejected"], F["regressors"])
fig, ax = plt.subplots(figsize=(7, 0.45 * len(F["regressors"]) + 1.2))
coefficient_plot(ax, {"chosen (c)": t6.xs("c"), "rejected (r)": t6.xs("r")}, xlabel="effect on θ (degrees)")
ax.set_title("reward shift on features, ±2 SE")
plt.tight_layout()
plt.show()
paper6 = seal.paper_table("table6")[["c_estimate", "r_estimate"]]
t6w = t6["estimate"].unstack(0).rename(columns={"c": "chosen", "r": "rejected"})
if t6w.index.isin(paper6.index).any():
    t6w = t6w.join(paper6.rename(columns={"c_estimate": "paper chosen", "r_estimate": "paper rejected"}), how="left")
glue("t6_r2", t6.attrs["r2"], display=False)
t6w.round(3)

# %% [markdown]
# The regression explains R² = {glue:text}`t6_r2:.3f` of the variation in $\theta_i$ (OLS with an
# intercept, as SEAL's `angle.R`; Bonferroni over the coefficients). In the paper, a harmless or
# refusing chosen entry and a harmful rejected one went with large positive shifts.
