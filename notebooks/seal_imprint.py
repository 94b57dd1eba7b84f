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
# equal. The paper labels every entry of hh-rlhf with an LM-labeller (the App. C.3 taxonomy of target
# features, helpfulness and harmlessness, and spoiler features; the numbers are below), drops features
# whose VIF exceeds 5, corrects p-values with Bonferroni, and compares the imprints of the
# pre-$\mathcal{D}$ and post-$\mathcal{D}$ reward models ({ref}`seal-rewards`). The same regression here
# runs through pyfixest with pair fixed effects and pair-clustered standard errors.

# %% tags=["parameters"]
profile = "demo"
seed = 0
# the SEAL study design shared by the four Part II pages (params/<profile>/seal-study.yml; seal.setup
# arguments): the alignment data set D, other preference data for the pre-D RM, named pre-D / post-D reward
# models or their training and base model. None: seal.DEMO_STUDY, the simulator's design
design = None
# where the features come from: "planted" (simulator), "rules" (rule-based featurizer), "llm" (LM-labeller)
features = "planted"
# the LM-labeller (pluralign.llm.load arguments) when features == "llm"
labeller = None
# label stability (App. D.5, Fig. 11): two more labellers (a list of pluralign.llm.load argument dicts) that
# label a random share of the pairs (both entries); null: not run
stability_labellers = None
stability_share = 0.01

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import pandas as pd
from myst_nb import glue

from pluralign import report, seal
from pluralign.seal.plots import coefficient_plot
from IPython.display import Markdown, display

study = seal.setup(**(design or seal.DEMO_STUDY), features=features, labeller=labeller)
D, view, R, F = study.D, study.view, study.R, study.F
page_stand_ins = {"planted": ["the rule-based featurizer checked against the planted features"],
                  "rules": ["no helpfulness, honesty, coherence or eloquence labels (surface patterns only)"]}
report.profile_note(profile, stand_ins=study.stand_ins + page_stand_ins.get(features, []))

# %% tags=["remove-input"]
P = seal.PAPER
display(Markdown(
    f"The paper labels the {P['dataset']['n_entries']:,} entries of {P['dataset']['name']} with "
    f"{P['models']['labeller']} ({P['n_features']} features: {P['n_target_features']} target features, "
    f"helpfulness and harmlessness, and {P['n_spoiler_features']} spoiler features)."))

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
        f"came from {seal.PAPER['models']['labeller']}, cross-checked on {seal.PAPER['stability']['share']:.0%} "
        f"of the entries against {' and '.join(seal.PAPER['models']['stability_labellers'])}."))

# %% [markdown]
# ## Label stability across labellers (App. D.5, Fig. 11)

# %% tags=["remove-input"]
display(Markdown(
    f"The paper re-labelled a random {P['stability']['share']:.0%} of $\\mathcal{{D}}$ with two open models "
    f"({' and '.join(P['models']['stability_labellers'])}, temperature {P['stability']['temperature']:g}, "
    f"JSON mode) and showed, per feature, how often they agreed with {P['models']['labeller']}: high on "
    "harmlessness and coherence, lower on helpfulness, close to chance on sentiment and eloquence."))

# %% tags=["hide-input"]
if stability_labellers:
    st = seal.stability_check(view, F, stability_labellers, share=stability_share, seed=seed)
    agree, k = st["agreement"], st["k"]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(agree) + 1.2))
    agree.plot.barh(ax=ax)
    ax.set(xlabel=f"share of entries with the same label ({st['what']})", ylabel="", xlim=(0, 1))
    ax.set_title(f"label stability on {k} pairs ({2 * k} entries; Fig. 11)")
    plt.tight_layout()
    plt.show()
    display(Markdown(f"Entries a labeller could not label are left out of its agreement (`n`): {st['n_failed']}."))
    display(st["stability"].round(3))
else:
    display(Markdown("**Label stability is not run on this profile.** It needs instruction-tuned LM-labellers "
                     "behind an endpoint (set `stability_labellers` to a list of `pluralign.llm.load` "
                     "arguments, as the `paper` profile does for "
                     + " and ".join(P["models"]["stability_labellers"]) + "); "
                     + ("on `demo` the rule-based featurizer's agreement with the planted labels above "
                        "plays that role." if features == "planted" else
                        "this profile's features come from the rule-based featurizer, a single deterministic "
                        "labeller.")))

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
    display(Markdown(f"The paper's Table 5 (its {len(seal.PAPER['table5'])} LM-labelled features; no feature name "
                     "in common with this run):"))
    display(seal.paper_table("table5")[["pre_estimate", "pre_std_error", "post_estimate", "post_std_error"]].round(3))
dropped = {k: v.attrs["dropped_vif"] for k, v in imprint.items()}
glue("paper_harmless_pre", seal.PAPER["table5"]["last_response_is_harmless"]["pre_estimate"], display=False)
glue("paper_harmless_post", seal.PAPER["table5"]["last_response_is_harmless"]["post_estimate"], display=False)
glue("n_imprint_obs", imprint["post"].attrs["n_obs"], display=False)
glue("n_imprint_missing", table.attrs["n_pairs_dropped_missing"], display=False)
glue("paper_n_t5", len(seal.PAPER["table5"]), display=False)
glue("paper_vif_dropped", " and ".join(seal.PAPER["vif_dropped"]), display=False)
t5.round(3)

# %% [markdown]
# Each regression uses {glue:text}`n_imprint_obs` entries (two per pair); {glue:text}`n_imprint_missing`
# pairs with a missing label on either entry (an entry the labeller could not label) were dropped
# before the regression, both entries together. Features dropped by the
# VIF > 5 filter are listed below (the paper dropped {glue:text}`paper_vif_dropped`); features without
# variation are dropped too.

# %% tags=["hide-input"]
pd.DataFrame({"dropped (VIF > 5 or constant)": {k: ", ".join(v) or "none" for k, v in dropped.items()}})

# %% [markdown]
# The paper's imprints (Table 5, right-hand columns) are on the OpenAssistant RMs' reward scale and
# its {glue:text}`paper_n_t5` LM-labelled features; they are shown where our feature has the same name. In the paper,
# training on hh-rlhf turned harmlessness from a penalised feature (β = {glue:text}`paper_harmless_pre:.2f`
# pre-$\mathcal{D}$) into the most rewarded one (β = {glue:text}`paper_harmless_post:.2f` post-$\mathcal{D}$).

# %% tags=["hide-input"]
if features == "planted":
    display(Markdown("## Recovery of the planted weights (demo)\n\nThe simulator's annotators weigh each "
                     "planted feature with a known population weight, and their utility for an entry is that "
                     "weighted sum plus judgment noise. Two checks, of two different things:"))
    wr = seal.weight_recovery(study, imprint)
    rec_u, err_u, parts, summary = wr["utility"], wr["utility_error"], wr["parts"], wr["summary"]
    display(summary.round(3))

    def _said(v):
        cov = list(v.index[v["covered"]])
        sign = list(v.index[v["same_sign"] == 1])
        return (f"{int(v['covered'].sum())} of {len(v)} rescaled weights fall inside the imprint's 95% interval "
                f"({', '.join(cov) or 'none'}) and {int((v['same_sign'] == 1).sum())} of "
                f"{int(v['same_sign'].notna().sum())} signs agree ({', '.join(sign) or 'none'})")

    text = [f"**The method** — an imprint of the population's mean utility itself — gives back all "
            f"{len(rec_u)} planted weights (largest error {err_u:.1e}): the regression of Eq. 1 with pair "
            "fixed effects and the VIF filter recovers a linear reward exactly (its residuals, and so its "
            "standard errors, are zero, so the interval column does not apply to it)."]
    n_train = wr["n_train"]
    for k, v in parts.items():
        which = "pre" if k.startswith("pre") else "post"
        text.append(f"**The {k.split(' vs ')[0]}** (this project's small reward model trained on "
                    f"{n_train[which]} pairs of {'the other data' if which == 'pre' else 'the other data plus D'}): "
                    f"{_said(v)}.")
    if wr["reproduced"]:
        text.append("The trained RMs reproduce the planted weights within their intervals.")
    else:
        text.append("So the trained RMs do *not* reproduce the planted weights: they learn some features and "
                    "miss or invert others, and their imprints mix what the frozen encoder makes easy to see "
                    "with what the annotators rewarded. This is a check of the small models, not of the "
                    "method: the imprints above describe these models and should not be read as the "
                    "populations' preferences.")
    display(Markdown("\n\n".join(text)))
    display(wr["table"].round(3))

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
