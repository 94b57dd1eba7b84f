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
# (btb-margins)=
# # Synthetic judgments and preference margins
#
# Re-annotating a preference data set with many people per pair would give the "gold standard"
# strength of a preference; *Beyond the Binary* {cite}`padmakumar2024beyond` settles for a "silver
# version" (§2): ask an LLM for $n$ = 10 judgments $j'_1 \dots j'_n \in \{0, 1\}$ per pair with the
# Appendix A prompt, sampled with nucleus sampling (top-p 0.9) "to mimic the variability of a group
# of annotators" (§3.3), and turn them into a margin (Eq. 3):
#
# $$m_{x, y_0, y_1} = \Big|\sum_{i=1}^n j'_i - \frac{n}{2}\Big| \Big/ \frac{n}{2}.$$
#
# $m = 1$ when the judgments are unanimous and $m = 0$ when they split evenly. The margin is
# symmetric in A and B, and it does not look at the direction of the human label: the regularized
# loss of Eq. 4 asks the reward model to separate the chosen and rejected answer by at least $m$.
# This page computes the synthetic judgments and margins and checks them against the population's
# own agreement $|2p^* - 1|$ ({ref}`btb-subjectivity`).

# %% tags=["parameters"]
profile = "demo"
seed = 0
data = [{"simulate": {"n_pairs": 1200, "seed": 0}}]
p_star_from = "truth"           # "truth" (simulator) | "annotators" (several real annotators) | "none"
n_judgments = 10                # n in Eq. 3 (§3.3: 10)
top_p = 0.9                     # §3.3: nucleus sampling, top-p 0.9
# the judge for every pair: "simulated" = the offline stand-in (noisy population judge, demo only),
# "llm" = `judge` through pluralign.llm with `judge_method` ("sample": n sampled 'Choice: A/B'
# completions, as the paper; "logprob": n draws from the model's P(A))
judge_for_all = "simulated"
simulated_judge_noise = 1.0     # log-odds noise of the simulated judge
judge = None                    # pluralign.llm.load arguments, e.g. {"name": "gemma3-270m"}
judge_method = "logprob"
judge_job = "btb-margins"
# the embedded base model (Gemma 3 270M) on a handful of pairs, to show the real LLM path (0 = skip)
embedded_pairs = 8
show_prompt = True

# %% tags=["remove-input"]
from pluralign import report

report.profile_note(profile, stand_ins={
    "demo": [f"The synthetic judgments for all pairs come from a **simulated judge**, not Llama-3-70B-Instruct: "
             f"its P(A) is the planted population share p* distorted by Gaussian log-odds noise "
             f"(sd {simulated_judge_noise:g}), and n = {n_judgments} judgments are drawn from it. Its quality is "
             "measured below. The embedded Gemma 3 270M base model judges only "
             f"{embedded_pairs} pairs (from its next-token log-probabilities of ' A' / ' B'), to show the real path."],
    "sample": ["Margins come from PandaLM's three real annotators (the paper's 'gold standard', §2) and, for a "
               f"handful of pairs, from the embedded Gemma 3 270M base model ({embedded_pairs} pairs, "
               "log-probability judgments), not from Llama-3-70B-Instruct.",
               "The sample's single-label sets (the HH-RLHF harmless test split, LLMBar) are not used here: Eq. 3 "
               "over one annotator gives the margin 1 for every pair. They are evaluation data on "
               "{ref}`btb-subjectivity` and {ref}`btb-rewards`."],
}.get(profile, []))

# %% tags=["remove-input"]
import contextlib
import io
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display
from myst_nb import glue

from pluralign import margins as M
from pluralign import subjectivity as S
from pluralign.data.spec import load_specs

# %% [markdown]
# ## The judgment prompt (Appendix A)

# %% tags=["hide-input"]
d, parts = load_specs(data)
pairs = d.pairs.set_index("pair_id")
ids = pairs.index
if show_prompt:
    ex = pairs.iloc[0]
    display(Markdown("```text\n" + M.judgment_prompt(ex["prompt"][:300], ex["response_a"][:300],
                                                     ex["response_b"][:300]) + "\n```"))
p_star = S.p_star_from(p_star_from, d, ids)

# %% [markdown]
# ## Synthetic judgments for every pair

# %% tags=["hide-input"]
sj = M.judgments_from(judge_for_all, d, n=n_judgments, seed=seed, p_star=p_star, noise=simulated_judge_noise,
                      judge=judge, method=judge_method, top_p=top_p, job=judge_job)
source = {"simulated": f"simulated judge (log-odds noise {simulated_judge_noise:g})",
          "llm": f"{(judge or {}).get('name')} ({judge_method})",
          "annotators": "the data set's own annotators"}[judge_for_all]
sj = sj.set_index("pair_id")
display(sj.drop(columns=[c for c in ("verdicts", "judgments") if c in sj.columns]).head(6).round(3))

# %% [markdown]
# ## How good is the judge?
#
# A judge is useful for Eq. 3 if its votes split where the population splits. Two checks against
# p\*: how often the judge's P(A) sides with the population majority (pairs with p\* = ½ have no
# majority and are left out), and the correlation and mean L1 distance between the judge's share of
# A votes and p\* — the statistics of Tables 1–2, with 95% bootstrap intervals.

# %% tags=["hide-input"]
if p_star is not None and judge_for_all != "annotators":
    judge_p = (sj["p_a"] if sj.get("p_a") is not None and sj["p_a"].notna().all() else sj["share_a"]).astype(float)
    side = M.side_agreement(p_star, judge_p.reindex(ids), seed=seed)
    ev = M.evaluate(p_star, sj["share_a"].reindex(ids), seed=seed)
    glue("btb_judge_side", side["value"], display=False)
    glue("btb_judge_side_lo", side["lo"], display=False)
    glue("btb_judge_side_hi", side["hi"], display=False)
    glue("btb_judge_side_n", side["n"], display=False)
    r = ev[ev.metric == "pearson"].iloc[0]
    glue("btb_judge_r", float(r["value"]), display=False)
    glue("btb_judge_r_lo", float(r["lo"]), display=False)
    glue("btb_judge_r_hi", float(r["hi"]), display=False)
    display(pd.DataFrame([{"judge": source, "sides with the population": f"{side['value']:.3f} "
                           f"[{side['lo']:.3f}, {side['hi']:.3f}] (n={side['n']})",
                           **{f"{m} (share of A votes vs p*)": f"{v:.3f} [{lo:.3f}, {hi:.3f}]"
                              for m, v, lo, hi in zip(ev["metric"], ev["value"], ev["lo"], ev["hi"])}}]))
    display(Markdown(
        f"The judge sides with the population on {side['value']:.3f} of the {side['n']} pairs that have a "
        f"majority (95% CI {side['lo']:.3f}–{side['hi']:.3f}); its share of A votes correlates with p\\* at "
        f"r = {r['value']:.3f} ({r['lo']:.3f}–{r['hi']:.3f}). The paper does not report its judge's accuracy; "
        "it is the first thing to measure before trusting margins from any LLM."))
elif judge_for_all == "annotators":
    display(Markdown("Here the margins come from the data set's own annotators (the paper's gold standard), and "
                     "p\\* is their share: there is no separate judge to check."))
else:
    display(Markdown("No p\\* for these data: the judge's quality cannot be measured here."))

# %% [markdown]
# ## The margin distribution

# %% tags=["hide-input"]
frame = pd.DataFrame({"margin": sj["margin"].reindex(ids)})
if p_star is not None:
    frame["population agreement |2p*-1|"] = (2 * p_star - 1).abs()
if d.truth is not None and "kind" in d.truth:
    frame["category"] = d.truth["kind"].reindex(ids).map({"single": "Single Correct", "multiple": "Multiple Correct"})
fig, axes = plt.subplots(1, 2 if p_star is not None else 1, figsize=(10 if p_star is not None else 5, 3.4),
                         squeeze=False)
ax = axes[0, 0]
sns.histplot(frame, x="margin", hue="category" if "category" in frame else None, bins=np.linspace(-0.05, 1.05, 12),
             stat="probability", common_norm=False, multiple="dodge", shrink=0.8, ax=ax)
ax.set_title(f"Eq. 3 margins, n = {n_judgments} judgments ({source})", fontsize=9)
if p_star is not None:
    ax = axes[0, 1]
    sns.stripplot(frame, x="margin", y="population agreement |2p*-1|", hue="category" if "category" in frame else None,
                  native_scale=True, jitter=0.015, alpha=0.4, size=3, ax=ax)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set_title("margin vs the population's agreement", fontsize=9)
plt.tight_layout()
plt.show()

# %% tags=["remove-input"]
_vals = sorted({round(float(M.margin_from_counts(k, n_judgments)), 6) for k in range(n_judgments + 1)})
_k = n_judgments // 2 + 1  # the closest split to an even one that is not even
_shown = ", ".join(f"{v:g}" for v in _vals) if len(_vals) <= 4 else \
    f"{_vals[0]:g}, {_vals[1]:.3g}, …, {_vals[-1]:g}"
display(Markdown(f"With n = {n_judgments} judgments the margin takes {len(_vals)} values ({_shown}). Eq. 3 is "
                 f"coarse by design: a {_k}–{n_judgments - _k} split already gives "
                 f"m = {float(M.margin_from_counts(_k, n_judgments)):.3g}."))
glue("btb_n_judgments", int(n_judgments), display=False)

# %% [markdown]
# ## The embedded LLM on a handful of pairs
#
# The profile's own language model is Gemma 3 270M, a **base** model: it cannot follow the
# instruction, but after the Appendix A prompt plus `"\nChoice:"` its next-token probabilities of
# " A" and " B" are a judgment. Sampling n = {glue:text}`btb_n_judgments` judgments from that P(A) is the log-probability
# equivalent of the paper's nucleus sampling. A few pairs only: on a 2-core CPU each judgment of a
# long prompt takes seconds.

# %% tags=["hide-input"]
if embedded_pairs:
    from pluralign import llm as L
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):  # the model's conversion / loading progress bars
        gemma = L.load(None)
    t_load = time.perf_counter() - t0
    few = d.subset(list(ids[:embedded_pairs]), reason=f"first {embedded_pairs} pairs for the embedded LLM")
    t0 = time.perf_counter()
    gj = M.synthetic_judgments(gemma, few, n=n_judgments, method="logprob", seed=seed, job=f"{judge_job}-embedded")
    t_judge = time.perf_counter() - t0
    gj = gj.set_index("pair_id")
    show = pd.DataFrame({"Gemma P(A)": gj["p_a"], "A votes of 10": gj["n_a"], "Gemma margin": gj["margin"]})
    if p_star is not None:
        show["p*"] = p_star.reindex(gj.index)
        show["|2p*-1|"] = (2 * show["p*"] - 1).abs()
    show[f"{source.split(' (')[0]} margin"] = sj["margin"].reindex(gj.index)
    display(show.round(3))
    glue("btb_gemma_mean_pa", float(gj["p_a"].mean()), display=False)
    glue("btb_gemma_secs", float(t_judge / max(len(gj), 1)), display=False)
    glue("btb_gemma_load", float(t_load), display=False)
    sided = ""
    if p_star is not None:
        gside = M.side_agreement(p_star.reindex(gj.index), gj["p_a"], seed=seed)
        glue("btb_gemma_side", gside["value"], display=False)
        sided = (f" It sides with the population majority on {gside['value']:.2f} of {gside['n']} pairs here "
                 f"(95% CI {gside['lo']:.2f}–{gside['hi']:.2f}).")
    display(Markdown(
        f"The base model's mean P(A) is {gj['p_a'].mean():.2f}. A value far from ½ means it leans towards one "
        "position whatever the texts (a position bias): its ten votes are then mostly unanimous and its margins "
        f"say little about the population.{sided} It took {t_load:.0f} s to load and "
        f"{t_judge / max(len(gj), 1):.1f} s per pair on this machine."))
else:
    display(Markdown("The embedded model was not run on this profile (`embedded_pairs = 0`): on two busy CPU "
                     "cores loading it takes minutes, and a judgment of a long prompt seconds. The `sample` profile "
                     "runs it on a handful of real pairs."))

# %% [markdown]
# This is why the demo uses the simulated judge for every pair and the `paper` profile an
# instruction-tuned 70B model behind an OpenAI-compatible endpoint.
