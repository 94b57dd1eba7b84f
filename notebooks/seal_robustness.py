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
# (seal-robustness)=
# # SEAL: alignment robustness
#
# SEAL's third tool (§ 2.3) asks how fragile the post-$\mathcal{D}$ RM's verdicts are. A random subset
# of pairs is rewritten by an LM instructed to change "only vocabulary and grammatical
# structure" (App. C.5), the rewrites are re-featurized, and each pair gets *label flips*
# $t_i^*(\tau) - \hat t_i^*(\tau)$: +1 when the rewrite lost feature $\tau$, −1 when it gained it. The
# *robustness scores* $\pi$ (Eq. 4) are the coefficients of a logistic regression of "aligned before
# rewriting, misaligned after" on those flips, entered as categories with "no flip" as the baseline.
# The paper found that rewriting a rejected entry to sound more positive, or a chosen one to sound less
# so, raised the odds of misalignment (its Table 8, at the end of this page).

# %% tags=["parameters"]
profile = "demo"
seed = 0
# the SEAL study design shared by the four Part II pages (params/<profile>/seal-study.yml; seal.setup
# arguments): the alignment data set D, other preference data for the pre-D RM, named pre-D / post-D reward
# models or their training and base model. None: seal.DEMO_STUDY, the simulator's design
design = None
# the LM-labeller that re-featurizes rewrites (pluralign.llm.load arguments; paper profile)
labeller = None
# rewriting: "simulator" (demo stand-in), pluralign.llm.load arguments (paper), or null (not run)
rewriter = "simulator"
# how many pairs to rewrite: n_rewrite pairs, or (n_rewrite null) a share of D's pairs (the paper: 1%)
n_rewrite = 200
rewrite_share = None
p_flip = 0.25
# similarity of original and rewritten texts (pluralign.embed; the paper: BAAI/bge-m3)
similarity_model = None

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from pluralign import report, seal
from pluralign.seal.plots import coefficient_plot
from IPython.display import Markdown, display

study = seal.setup(**(design or seal.DEMO_STUDY))
D, view, rms, R = study.D, study.view, study.rms, study.R
page_stand_ins = []
if rewriter == "simulator":
    page_stand_ins.append("the simulator's own rewrites with planted feature flips (seal.simulated_rewrite_pairs) in "
                          "place of LM rewrites, and the planted flips in place of re-featurization")
report.profile_note(profile, stand_ins=study.stand_ins + page_stand_ins)

# %% [markdown]
# ## Rewriting

# %% tags=["remove-input"]
RW = seal.PAPER["rewriting"]
display(Markdown(
    f"The paper rewrote a random {seal.PAPER['robustness']['share_rewritten']:.0%} of its pairs with "
    f"{RW['model']} ({RW['precision']}, temperature {RW['temperature']:g}) and measured the similarity of "
    f"original and rewrite with {seal.PAPER['models']['similarity']}."))

# %% [markdown]
# The `paper` profile rewrites with an instruction-tuned LM through `pluralign.llm` (the model and
# temperature above) and measures similarity with BGE-m3. A pair enters the
# analysis only when both of its rewrites pass SEAL's checks (not empty, not identical, "Human:" kept);
# the others are dropped and counted, never replaced by the original. Original and rewritten dialogues
# are scored by the post-$\mathcal{D}$ RM through the same function (`seal.aligned_before_after`), so the
# rewriting is the only difference between $\delta_i$ and $\hat\delta_i$. `demo` has no such
# LM: the **simulator's own rewrites** stand in (`seal.simulated_rewrite`): every response is
# paraphrased with the simulator's synonym swaps, and with probability `p_flip` per feature its
# enthusiastic sentiment, list format or elaboration is toggled. The flips are therefore *planted*: we
# know exactly which features changed, and Eq. 4 should find that the flips the RM cares about move it.
# `sample` has real text but neither an instruction-tuned LM nor planted flips, so rewriting is not run
# there; the code path it would take is shown.

# %% tags=["hide-input"]
rng = np.random.default_rng(seed)
n = min(int(n_rewrite) if n_rewrite is not None else max(1, int(round(float(rewrite_share) * len(view)))), len(view))
idx = np.sort(rng.choice(len(view), size=n, replace=False))
sub = view.iloc[idx].reset_index(drop=True)
rp = None
if rewriter == "simulator":
    rp = seal.simulated_rewrite_pairs(sub, seed=seed, p_flip=p_flip)
elif isinstance(rewriter, dict):
    # the paper's path: App. C.5 prompt through an LM on whole dialogues, both versions re-featurized with the
    # App. C.3 prompt (§ 2.3 features); a pair is kept only when both of its rewrites passed the checks
    from pluralign import llm as _llm
    rp = seal.rewrite_pairs(sub, _llm.load(**rewriter), _llm.load(**labeller))
ran = rp is not None
if ran:
    originals, rewritten, flips, kept, prompts = (rp[k] for k in ("originals", "rewritten", "flips", "kept", "prompts"))
    n_dropped = rp["n_dropped"]
    if n_dropped:
        display(rp["dropped"].rename_axis("rewrite status (chosen / rejected)").to_frame("pairs dropped"))
if ran:
    # originals and rewrites through the same scoring function, so that only the rewriting differs
    before, after = seal.aligned_before_after(rms["post"], originals, rewritten, prompts)
    display(pd.DataFrame({"this run": np.array([n, n_dropped, len(kept), round(float(before.mean()), 3),
                                                 round(float(after.mean()), 3)], dtype=object),
                          "paper": [f"{seal.PAPER['robustness']['share_rewritten']:.0%} of D", "—", "—", "—",
                                    seal.PAPER["robustness"]["a_plus_rewritten"]]},
                         index=["pairs drawn for rewriting", "dropped: a rewrite failed its checks",
                                "pairs kept", "post-D a₊ on them, original", "post-D a₊ after rewriting"]))
    if prompts is None:
        # the dialogues are re-split into (history, reply) for scoring; check this reproduces the data set's pairs
        same = seal.aligned(R["post_chosen"].to_numpy()[idx][kept], R["post_rejected"].to_numpy()[idx][kept])
        display(Markdown(f"Re-scoring the original dialogues gives the same δ as the data set's (history, reply) "
                         f"pairs on {np.mean(same == before):.3f} of the kept pairs."))
else:
    display(Markdown("**Rewriting is not run on this profile** (no instruction-tuned LM and no planted "
                     "flips). With an OpenAI-compatible endpoint, set the `rewriter` and `labeller` "
                     "parameters (`pluralign.llm.load` arguments) and the cell above runs "
                     "`seal.rewrite_pairs(pairs, rewriter, labeller)`: the App. C.5 prompt on both entries, "
                     "only pairs whose two rewrites pass the checks kept (the others counted), both versions "
                     "re-featurized with `keys=seal.REWRITE_FEATURES`, and `seal.label_flips`; then "
                     "`seal.aligned_before_after`, `embed.cosine_pairs`, `seal.similarity_by_flip` and "
                     "`seal.robustness_scores` as on the `demo` page."))

# %% [markdown]
# ## Label flips (Fig. 12) and similarity of the rewrites (Table 3)

# %% tags=["hide-input"]
if ran:
    from pluralign import embed
    shares = pd.concat({e: seal.flip_shares(flips[e]) for e in flips}, names=["entry"])
    fig, axes = plt.subplots(1, 2, figsize=(10, 3), sharey=True)
    for ax, e in zip(axes, flips):
        shares.loc[e][[-1, 0, 1]].plot.barh(stacked=True, ax=ax, color=["#e377c2", "#c7c7c7", "#2ca02c"])
        ax.set(title=f"{e} entries", xlabel="share of rewritten entries")
    plt.tight_layout()
    plt.show()
    cos = {e: embed.cosine_pairs(originals[e], rewritten[e], model=similarity_model) for e in flips}
    sim = pd.concat({e: seal.similarity_by_flip(cos[e], flips[e]) for e in flips}, names=["entry"])
    display(shares.round(3))
    display(sim.round(3))

# %% [markdown]
# The paper's rewrites stayed very close to the originals (BGE-m3 cosine similarity, Table 3) whatever
# the flip; the library's record of Table 3:

# %% tags=["hide-input"]
seal.paper_table("table3").unstack("flip").round(2)

# %% [markdown]
# ## Robustness scores (Eq. 4, Table 8, Fig. 5)

# %% tags=["hide-input"]
if ran:
    feats = [c for c in flips["chosen"].columns if c not in seal.TARGET_FEATURES]
    pi = seal.robustness_scores(before, after, flips["chosen"], flips["rejected"], feats,
                                unchanged=[u for u in seal.TARGET_FEATURES if u in flips["chosen"].columns])
    # a flip category whose pairs all stayed aligned (or all became misaligned) has no finite estimate
    # (complete separation): not plotted
    shown = pi[~pi["separated"]]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(shown) + 1.2))
    coefficient_plot(ax, {"π": shown}, xlabel="π: log-odds of becoming misaligned (vs no flip)",
                     labels={k: v for k, v in zip(shown.index, shown["name"])})
    ax.set_title("robustness scores, ±2 SE; filled = significant after Bonferroni")
    plt.tight_layout()
    plt.show()
    display(pi[["name", "n_flipped", "n_misaligned", "separated", "estimate", "std_error", "p_bonferroni", "odds_ratio"]].round(3))
    display(Markdown(f"{pi.attrs['n_pairs']} pairs enter the regression; "
                     f"{pi.attrs['misalignment_rate']:.3f} of them went from aligned to misaligned. "
                     f"{len(pi) - len(shown)} flip categor{'y has' if len(pi) - len(shown) == 1 else 'ies have'} "
                     "no misaligned pair, or only misaligned ones (complete separation: no finite estimate; not plotted"
                     + ("; the fit's maximum likelihood did not converge for that reason" if not pi.attrs["converged"] else "")
                     + "). With a "
                     "few hundred rewritten pairs the estimates are wide; their signs can be read against the "
                     "post-D imprints of the planted features on the {ref}`feature-imprint page <seal-imprint>`."))

# %% [markdown]
# The paper's estimates (Table 8, raw p-values), where only sentiment mattered:

# %% tags=["hide-input"]
seal.paper_table("table8").round(4)
