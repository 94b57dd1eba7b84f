"""The demo table: every check of :mod:`pluralign.recovery` wired to the demo profile's studies, built as the book's
pages build them (``part.setup(**page_params(notebook, profile))``, the same settings and cache), the page's
:class:`~pluralign.report.Result` and the command line ``pluralign recovery``. Only public members of the parts'
studies are read (DESIGN: nothing reaches into another module's private members)."""

from __future__ import annotations

import functools

import pandas as pd

from pluralign import report
from pluralign.recovery import btb_checks as B
from pluralign.recovery import diverging_checks as D
from pluralign.recovery import imprint_checks as I
from pluralign.recovery import robustness_checks as Rb
from pluralign.recovery import seal_checks as S
from pluralign.recovery.context import RecoveryContext, book_seed, part_study
from pluralign.recovery.rows import ALPHA, COLUMNS, FAMILY_ALPHA, HIGH_AGREEMENT, KINDS, REQUIRED, is_method
from pluralign.recovery.study import TARGET, method_context, method_rows

__all__ = [
    "recovery_context",
    "difficulty",
    "sweep_result",
    "diverging_rows",
    "seal_rows",
    "btb_rows",
    "training_curves",
    "recovery_table",
    "WHY",
    "result",
    "main",
    "commit_seed",
    "mutation_result",
    "planning_result",
]


def diverging_rows(s) -> tuple[list[dict], tuple]:
    """Part I's stand-in and claim rows from its study ``s`` (public: ``data``, ``diverging_ids``, ``mv_runs``,
    ``seed``; its method rows are :func:`pluralign.recovery.study.method_rows`), and the demo RM's rewards on all
    pairs of its first data set ``(rewards_a, rewards_b, data)``, which Part II's checks read the trained RM's noise
    from."""
    data = s.data[0]
    name = data.name
    rows = [D.cause_agreement(data, s.diverging_ids[name], seed=s.seed)]
    mvr = s.mv_runs[name]
    rows.append(D.meanvar_auroc_diverging(mvr.mv, data.truth, s.seed))
    rm = mvr.run.models["BT (All)"]
    held = rm.score(mvr.run.heldout, progress=False).set_index("pair_id")
    gap = held["reward_a"] - held["reward_b"]
    rows += [D.rm_accuracy_high_agreement(gap, data.truth, s.seed), D.rm_utility_correlation(gap, data.truth, s.seed)]
    rows += [
        D.claim_mv_identifies_diverging(mvr.summary),
        D.claim_bt_decisive_on_diverging(mvr.run.p_a["BT (All)"], mvr.run.classified, s.seed),
    ]
    # the imprint of the same demo RM on all of its data set's pairs (SEAL Eq. 1 against the planted weights)
    sc = rm.score(data, progress=False).set_index("pair_id").reindex(data.pairs["pair_id"])
    return rows, (sc["reward_a"].to_numpy(), sc["reward_b"].to_numpy(), data)


def seal_rows(s, demo_rm) -> list[dict]:
    """Part II's stand-in and claim rows (its method rows are :func:`pluralign.recovery.study.method_rows`): the
    demo RM's imprint (``demo_rm``, from :func:`diverging_rows`), and from SEAL's study ``s`` (public: ``D``,
    ``other_parts``, ``rewards_of``, ``robustness_scores``) the post-D RM's robustness signs and the reward
    shift."""
    from pluralign.seal.planted import mixed_weights
    from pluralign.seal.simulated_rewrites import PLANTED_FLIP_NAMES

    ra, rb, data = demo_rm
    rows = [S.imprint_rm(ra, rb, data, data.pairs["pair_id"])]
    # the trained post-D RM's scores on the page's rewrites, against the weights it was trained on (other data + D)
    parts = [(q.meta["weights"]["mean"], len(q)) for q in s.other_parts] + [(s.D.meta["weights"]["mean"], len(s.D))]
    w_post = mixed_weights([w for w, _ in parts], [n for _, n in parts]).rename(PLANTED_FLIP_NAMES)
    rm = S.robustness_sign(
        s.robustness_scores.table,
        w_post,
        what=" of the demo's trained post-D RM on the page's rewrites (weights: the mix it was trained on)",
    )
    rows.append({**rm, "quantity": "robustness_rm_sign", "kind": "stand-in"})
    pre, post = s.rewards_of("pre"), s.rewards_of("post")
    rows.append(S.claim_seal_alignment_shift((pre[0] > pre[1]).astype(float), (post[0] > post[1]).astype(float)))
    return rows


def btb_rows(s) -> list[dict]:
    """Part III's stand-in and claim rows from its study ``s`` (public: ``data``, ``categories``,
    ``category_source``, ``comparison``, ``seed``; its method row is :func:`pluralign.recovery.study.method_rows`)."""
    truth = s.data.truth
    kind, _ = s.categories
    rows = [B.subjectivity_category_accuracy(kind, truth, str(s.category_source), s.seed)]
    c = s.comparison
    rows.append(B.claim_margin_improves_pstar(c.p_star, c.p_baseline, c.p_regularized, s.seed))
    return rows


def training_curves(profile: str = "demo"):
    """The demo reward models' evaluation loss during training (every 0.25 epoch on the validation pairs, the
    best checkpoint kept; Diverging Preferences App. A) for BT (All) and the mean-variance RM of the first Part I
    data set: the curves behind ``rm_accuracy_high_agreement`` and ``meanvar_auroc_diverging``."""
    import matplotlib.pyplot as plt

    if profile != "demo":
        return report.Result(table=None, note="Training curves of the demo reward models: demo profile only.")
    s = recovery_context(profile).diverging  # the study the table read (built once per process)
    run = s.mv_runs[s.data[0].name].run
    curves = {name: pd.DataFrame([h for h in m.history if "eval_loss" in h]) for name, m in run.models.items()}
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for name, c in curves.items():
        ax.plot(c["epoch"], c["eval_loss"], marker=".", label=name)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation loss (the model's objective)")
    ax.legend()
    plt.close(fig)
    table = pd.DataFrame(
        {
            name: {
                "evaluations": len(c),
                "first loss": c["eval_loss"].iloc[0],
                "best loss": c["eval_loss"].min(),
                "best at epoch": c.loc[c["eval_loss"].idxmin(), "epoch"],
                "last loss": c["eval_loss"].iloc[-1],
            }
            for name, c in curves.items()
        }
    ).T
    table = table.round(3).astype({"evaluations": int})
    caption = (
        f"Validation loss of the demo reward models on {s.data[0].name} during training, one point per evaluation "
        "(every quarter epoch); the best checkpoint is kept."
    )
    return report.Result(table=table, figure=fig, caption=caption, data={"curves": curves})


def recovery_context(profile: str = "demo", seed: int | None = None) -> RecoveryContext:
    """Every recovery check on ``profile``'s studies (:func:`part_study`; ``seed`` None: the pages'), computed
    once per (profile, seed) in a process — the page's table and its sweeps read the same studies. At another seed
    than the pages' only the method rows run, on a population drawn without training
    (:func:`pluralign.recovery.study.method_context`)."""
    if seed is not None and int(seed) != book_seed(profile):
        return method_context(int(seed), str(profile))
    return _context(str(profile), None)


@functools.lru_cache(maxsize=4)
def _context(profile: str, seed: int | None) -> RecoveryContext:
    """:func:`recovery_context` with its arguments normalised, so that every call of the same (profile, seed)
    hits one cache entry (``lru_cache`` keys ``f("demo")`` and ``f("demo", None)`` apart)."""
    if profile != "demo":
        raise ValueError(f"recovery checks need planted truth: only the 'demo' profile has it, not {profile!r}")
    div_s, seal_s, btb_s = (part_study(p, profile, seed) for p in ("diverging", "seal", "btb"))
    div, demo_rm = diverging_rows(div_s)
    ra, rb, data = demo_rm
    noise = S.residual_sd(ra, rb, data, data.pairs["pair_id"])  # the trained RM's noise, on the utility scale
    ctx = RecoveryContext(div_s, seal_s, btb_s, demo_rm, noise, None)
    m = dict(zip(REQUIRED, method_rows(ctx, REQUIRED)))  # the method rows, as the study and other seeds run them
    rows = [m["diverging_share"], m["diverging_taste_driven"], *div]
    rows += [m["imprint_weights"], m["imprint_text_weights"], m["resistance_regimes"], m["robustness_scores"]]
    rows += seal_rows(seal_s, demo_rm) + [m["margin_pstar_correlation"], *btb_rows(btb_s)]
    table = pd.DataFrame(rows, columns=COLUMNS)
    missing = [q for q in REQUIRED if q not in set(table.loc[table["kind"] == "method", "quantity"])]
    if missing:
        raise ValueError(f"the recovery table lacks the required method rows {missing}")
    return RecoveryContext(div_s, seal_s, btb_s, demo_rm, noise, table)


def recovery_table(profile: str = "demo", seed: int | None = None) -> pd.DataFrame:
    """Every recovery check on ``profile``'s studies (the demo: planted truth known), as one tidy table with
    columns :data:`COLUMNS`, in the order Part I, II, III; ``seed`` (default: the pages') draws a fresh
    simulated population (:func:`part_study`)."""
    return recovery_context(profile, seed).table.copy()


#: what is known about why a method row can fail on the demo (shown only for the rows that do)
WHY = {
    "diverging_share": "a class, the substantial flag or the majority differs from its probability given who judged "
    "each pair (their planted weights, the judgment noise the only chance left) beyond that noise: a change to the "
    "agreement rule (a threshold, A and B read the wrong way round), or a simulator whose recorded annotators do not "
    "give its votes.",
    "diverging_taste_driven": "as for diverging_share, on the diverging class and the pairs planted taste-driven.",
    "imprint_weights": "the reward is the planted utility plus a prompt effect and noise on the planted features, so "
    "the planted weights are the truth and a miss is the estimator's: a prompt effect the pair fixed effects did not "
    "absorb or an imprint read with the wrong sign or under another feature's name (bias), or intervals too narrow "
    "or too wide for the spread of the imprints over resampled pairs (pair-clustered SEs).",
    "imprint_text_weights": "as imprint_weights, on the featurizer's readings, against Eq. 1's pseudo-true value under "
    "them (the projection over a large population of the same simulator): where the readings differ from the "
    "planted features, the truth is not the planted weight (a finding about the featurizer), so a miss is the "
    "estimator's or the population's (a simulator whose recorded options do not reproduce the demo's data set).",
    "resistance_regimes": "Eq. 3's coefficients are biased or their intervals mis-sized against the exact logit "
    "truth, or the regimes of Table 1 are labelled from the wrong indicators (pre and post swapped).",
    "robustness_scores": "the scores are biased against their planted projection (flips or sides wired the wrong "
    "way round) or their clustered intervals are too narrow or too wide for resampled pairs and rewrites.",
    "margin_pstar_correlation": "Eq. 3's margin or its side is computed differently from its definition: mis-scaled "
    "(slope ≠ 1) or one-sided (intercept ≠ 0) against what the definition gives under this judge.",
}


#: how each kind of row is read on the page
KIND_NOTES = {
    "method": "a method of the library against what was planted; these gate: the project's recovery check, and its "
    "CI, fail when one fails",
    "stand-in": "one of the demo's stand-in models (small trained RMs, the rule labeller) against the planted truth; "
    "reported, a finding about the stand-in",
    "claim": "one of the papers' claims, its verdict from the CI: whether it holds on this simulated population",
    "plumbing": "a planted quantity wired through unchanged; not counted as a check",
}


def _by_kind(t: pd.DataFrame) -> dict:
    """The rows of a recovery table by kind (:data:`~pluralign.recovery.rows.KINDS`)."""
    return {k: t[t["kind"] == k] for k in KINDS}


def _note(t: pd.DataFrame) -> str:
    """The counts per kind, how each kind is read, and the folded details: what each row measures, its criterion,
    and why a method row that failed can fail."""
    from pluralign.recovery import reading

    k = _by_kind(t)
    m, c, s = k["method"], k["claim"], k["stand-in"]
    note = (
        f"**{int(m['recovered'].sum())} of {len(m)} method checks pass**; {int(s['recovered'].sum())} of {len(s)} "
        f"stand-in models reach their bars; {int(c['recovered'].sum())} of {len(c)} of the papers' claims hold on "
        f"this simulated population; plumbing rows ({len(k['plumbing'])}) are shown, not counted. *truth*: what "
        "the simulator planted, where the row checks against it; *what the verdict reads*: the intervals or bands "
        "the verdict reads, at the criterion's own level (a method row's verdict uses a family-wise "
        f"{100 * ALPHA:.2g} % error, so its intervals are wider than the 95 % interval beside them).\n\n"
        + "\n".join(f"- **{kind}**: {KIND_NOTES[kind]}." for kind in KINDS)
    )
    note += "\n\n" + reading.details(t)
    failed = m.loc[~m["recovered"], "quantity"]
    if len(failed):
        note += "\n\nWhy a method row can fail:\n\n" + "".join(
            f"- {reading.name(q)}: {reading.readable(WHY[q])}\n" for q in failed if q in WHY
        )
    return note


@report.section(
    "high_agreement_pct",
    "n_methods",
    "n_recovered",
    "n_standins",
    "n_standins_pass",
    "n_claims",
    "n_claims_hold",
    "alpha_pct",
    "family_alpha_pct",
    "target_pct",
    "imprint_population_multiple",
    "eq4_population_rounds",
    "reading_diverging",
    "reading_seal",
    "reading_btb",
)
def result(table: pd.DataFrame | None = None, profile: str = "demo") -> report.Result:
    """The recovery table as a :class:`pluralign.report.Result` for the book's page (each row's display name, its
    truth beside the estimate, what the verdict reads, the verdict in words), what each part can be trusted for
    (:func:`~pluralign.recovery.reading.part_reading`); on a profile without planted truth, a note saying so."""
    from pluralign.recovery import reading

    t = pd.DataFrame(columns=COLUMNS) if table is None and profile != "demo" else table
    t = recovery_table(profile) if t is None else t
    kinds = _by_kind(t)
    methods, claims, stand = kinds["method"], kinds["claim"], kinds["stand-in"]
    n_ok = int(methods["recovered"].sum())
    values = {
        "high_agreement_pct": round(100 * HIGH_AGREEMENT),
        "n_methods": len(methods),
        "n_recovered": n_ok,
        "n_standins": len(stand),
        "n_standins_pass": int(stand["recovered"].sum()),
        "n_claims": len(claims),
        "n_claims_hold": int(claims["recovered"].sum()),
        "alpha_pct": f"{100 * ALPHA:.2g}",
        "family_alpha_pct": f"{100 * FAMILY_ALPHA:g}",
        "target_pct": f"{100 * TARGET:g}",
        "imprint_population_multiple": I.POPULATION_MULTIPLE,
        "eq4_population_rounds": Rb.POPULATION_ROUNDS,
        **{f"reading_{p}": reading.part_reading(t, p) for p in reading.PARTS},
    }
    if not len(t):
        note = (
            f"The '{profile}' profile's data carry no planted truth, so there is nothing to "
            "recover here: these checks run on the demo profile."
        )
        values.update({f"reading_{p}": "not checked on this profile." for p in reading.PARTS})
        return report.Result(table=None, note=note, values=values)
    return report.Result(table=reading.shown_table(t), note=_note(t), values=values, data={"table": t})


def commit_seed(rev: str = "HEAD") -> int:
    """A seed that changes with every commit: the first 8 hex digits of the commit's id, modulo 10⁶ (the
    recovery at a seed nobody chose; printed by ``pluralign recovery --seed commit``)."""
    import subprocess

    from pluralign.book.manifest_plan import ROOT

    sha = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return int(sha.strip()[:8], 16) % 1_000_000


def main(argv: list[str] | None = None) -> int:
    """``pluralign recovery [--profile demo] [--seed N|commit] [--out FILE.csv] [--no-mutations]``: compute the
    recovery table (cached steps are reused; another seed draws a fresh simulated population) and the mutation
    table (:mod:`pluralign.recovery.mutations`), print them, optionally write the table as CSV (the mutation
    table beside it, ``…-mutations.csv``); exit status 1 when a method row is not recovered or a broken variant of
    a method passes its row, unless :data:`pluralign.recovery.mutations.MISSED_WHY` states why that variant cannot
    be caught (printed, and shown on the page beside the miss)."""
    import argparse
    import sys

    from pluralign.recovery import mutations as M

    ap = argparse.ArgumentParser(
        prog="pluralign recovery",
        description="every method checked against the simulator's planted truth (the demo profile)",
    )
    ap.add_argument("--profile", default="demo", choices=["demo"])
    ap.add_argument("--seed", default=None, help="the simulated population's seed, or 'commit' (default: the book's)")
    ap.add_argument("--out", help="write the table to this CSV file")
    ap.add_argument("--no-mutations", action="store_true", help="skip the broken variants of the methods")
    a = ap.parse_args(argv)
    seed = commit_seed() if a.seed == "commit" else (None if a.seed is None else int(a.seed))
    print(f"recovery at seed {seed if seed is not None else 'of the book (0)'}")
    if seed is not None and seed != book_seed(a.profile):
        print("another seed than the book's: the method rows only, nothing retrained (the stand-in and claim rows read")
        print("the trained models of the book's seed)")
    t = recovery_table(a.profile, seed)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 48):
        print(t.drop(columns=["description"]).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    missed = pd.DataFrame(columns=["row", "variant"])
    if not a.no_mutations:
        m = M.mutation_table(recovery_context(a.profile, seed))
        print(m.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
        missed = m[~m["caught"]]
        if a.out:
            m.to_csv(str(a.out).removesuffix(".csv") + "-mutations.csv", index=False)
    if a.out:
        t.to_csv(a.out, index=False)
        print(f"wrote {a.out} ({len(t)} rows)")
    failed = t[~t["recovered"] & is_method(t["kind"]).to_numpy()]
    if len(failed):
        print("not recovered: " + ", ".join(failed["quantity"]), file=sys.stderr)
    known = missed["variant"].isin(list(M.MISSED_WHY))  # a miss reported with its reason (the page shows it)
    if known.any():
        print(
            "broken variants not caught, each for its stated reason (mutations.MISSED_WHY): "
            + ", ".join(f"{r}/{v}" for r, v in zip(missed.loc[known, "row"], missed.loc[known, "variant"])),
            file=sys.stderr,
        )
    missed = missed[~known]
    if len(missed):
        print(
            "broken variants not caught: " + ", ".join(f"{r}/{v}" for r, v in zip(missed["row"], missed["variant"])),
            file=sys.stderr,
        )
    return 1 if len(failed) or len(missed) else 0


@report.section("n_variants", "n_caught", "n_caught_tests")
def mutation_result(profile: str = "demo") -> report.Result:
    """The mutation table as the page shows it (:func:`pluralign.recovery.mutations.shown`, each method row by
    its display name), the counts the page's summary quotes, and what each variant does (folded)."""
    from pluralign.recovery import mutations as M

    if profile != "demo":
        values = {"n_variants": 0, "n_caught": 0, "n_caught_tests": 0}
        return report.Result(table=None, note="Mutations need planted truth: demo profile only.", values=values)
    m = M.mutation_table(recovery_context(profile))
    n, k = len(m), int(m["caught"].sum())
    t = int((m["by"] == "tests").sum())
    values = {"n_variants": n, "n_caught": k, "n_caught_tests": t}
    note = (
        f"**{k} of {n} broken variants caught**, {t} of them by the rows' statistical tests (yes: a statistical "
        "test of the row fails on the broken method; def.: only the check of the method's output against its "
        "definition fails it, the agreement classes on each pair's own votes or Eq. 1 on the demo's own pairs).\n\n"
        ":::{dropdown} What each broken variant does\n"
        "- *sign*: the estimate and its interval negated;\n"
        "- *zero*: the estimate 0 with the method's interval width;\n"
        "- *noise* and *constant*: an estimate unrelated to the truth, with plausible intervals;\n"
        "- *se×3* and *se÷3*: the intervals three times too wide or too narrow;\n"
        "- *own mistakes*: the row's typical mistakes: pair fixed effects dropped, the signs of the imprints of "
        "every weight smaller than 1 in size flipped, the row's first two feature columns swapped, or plain OLS "
        "standard errors in place of the pair-clustered ones (Eq. 1); the regimes read with pre and post swapped, "
        "or the chosen and rejected responses swapped (Eq. 3 and Table 1); the entries' flips swapped (Eq. 4); votes "
        "shuffled across pairs, votes for A read as votes for B, or one class's own threshold off by one (agreement "
        "classes); a mis-scaled or one-sided margin, or the judge's n and k swapped (Beyond the Binary's Eq. 3).\n\n"
        "A method without intervals has no se×3 or se÷3 variant ('·'). Each variant reuses the fits of the row "
        "it breaks (the same draws, only the method's output differs), so it costs no refit.\n:::"
    )
    missed = m.loc[~m["caught"], "variant"].drop_duplicates()
    known = [f"- *{v}*: {M.MISSED_WHY[v]}\n" for v in missed if v in M.MISSED_WHY]
    if known:
        note += "\n\nWhy a variant is not caught:\n\n" + "".join(known)
    shown = M.shown(m).rename(index=reading_name).rename_axis(index="method row")
    return report.Result(table=shown, note=note, values=values, data={"table": m})


def reading_name(key: str) -> str:
    """A row's display name (:func:`pluralign.recovery.reading.name`)."""
    from pluralign.recovery.reading import name

    return name(key)


def difficulty() -> report.Result:
    """The demo's difficulty settings with their sources (:mod:`pluralign.data.difficulty`), for the page."""
    from pluralign.data import difficulty as knobs

    t = knobs.table()
    t["sets"] = t["sets"].str.replace(r"^\w+\(\w*\):\s*", "", regex=True)  # the function's name: not for the page
    return report.Result(table=t.set_index("setting"))


def sweep_result(profile: str = "demo") -> report.Result:
    """The method rows along their knobs (:mod:`pluralign.recovery.sweeps`) on the demo's studies; off the demo,
    a note."""
    from pluralign.recovery import sweeps as sw

    if profile != "demo":
        return report.Result(
            table=None, note="Sweeps need planted truth: demo profile only.", values=dict.fromkeys(sw.result.quotes, 0)
        )
    return sw.result(recovery_context(profile))


def planning_result(profile: str = "demo") -> report.Result:
    """The sweeps that end where a named decision is lost, as a planning table
    (:mod:`pluralign.recovery.planning`) on the demo's studies; off the demo, a note."""
    from pluralign.recovery import planning

    if profile != "demo":
        return report.Result(table=None, note="Planning sweeps need planted truth: demo profile only.")
    return planning.result(recovery_context(profile))
