"""Page "Alignment regimes by agreement class" (question 3): does a reward model "resist" (SEAL's a₋) mostly where
people disagree? (:mod:`pluralign.cross.regimes`)"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import paper, report
from pluralign.cross import margins_by_class as q1
from pluralign.cross import plots
from pluralign.cross import regimes as q3
from pluralign.cross.studies import each_data_set
from pluralign.cross.study import Study
from pluralign.forest import forest_plot

__all__ = ["by_class", "resistance_gap"]


#: SEAL's post-D alignment resistance on Anthropic HH (§2.2), the paper's number beside this run's.
SEAL_A_MINUS = ("seal", "§2.2", "post-D RM", "a₋")


@report.section("x_res_all", "x_seal_a_minus")
@each_data_set
def by_class(study: Study) -> report.Result:
    """SEAL's a₊ / a₋ and four regimes (Table 1) per agreement class (the planted population a₋ beside on the
    demo); the note names the reward models and counts the pairs without a chosen entry. Values ``x_res_all`` (the
    post-D a₋ over all pairs with its CI as percentages, the planted one beside on the demo) and ``x_seal_a_minus``
    (SEAL's §2.2 a₋ as printed)."""
    R, rms, _ = study.seal_rewards
    table = q3.regimes_by_class(R, study.classified, population=study.population, n_boot=study.n_boot, seed=study.seed)
    n_ties = len(study.data.pairs) - len(R)
    note = (
        f"Reward models: {rms.design}. SEAL's chosen entry is the majority label; {n_ties} pairs whose "
        "majority is a tie have none and are left out (so high-agreement ties barely appear)."
    )
    forest = forest_plot(
        table, "a- post", "lo", "hi", planted="planted a-" if "planted a-" in table else None, null=None,
        xlabel="post-D reward model's resistance a₋ (share of pairs)",
    )  # fmt: skip
    a = table.loc["all"]
    shown = q3.display(table).loc["all", "a₋ post-D [95% CI]"] if np.isfinite(a["a- post"]) else "no estimate"
    if "planted a-" in table:
        shown += f" (a model that knew the population: {100 * a['planted a-']:.1f}%)"
    planted = " (cross: the population's own a₋)" if "planted a-" in table else ""
    return report.Result(
        table=q3.display(table),
        forest=forest,
        forest_caption=f"The post-D reward model's resistance a₋ per agreement class with its 95% CI{planted}.",
        figure=plots.regimes_by_class(table),
        caption=(
            "Left: the share of each agreement class's pairs in SEAL's four regimes (Table 1). Right: the post-D "
            f"reward model's resistance a₋ with its 95% CI{planted}."
        ),
        note=note,
        values={"x_res_all": shown, "x_seal_a_minus": paper.printed(*SEAL_A_MINUS)},
        data={"regimes": table},
    )


@report.section("x_res_delta", "x_res_lo", "x_res_hi", "x_res_verdict", "x_res_pre_verdict")
@each_data_set
def resistance_gap(study: Study) -> report.Result:
    """a₋(diverging) − a₋(high-agreement prefs.) for the pre-D and post-D RM with 95% CIs, the planted population
    difference beside on the demo, and the verdict read against 0 and against it
    (:func:`pluralign.cross.regimes.resistance_difference`): short words in the table, the long reading in the
    note; the post-D one's values ``x_res_*`` (``x_res_verdict`` the long reading, ``x_res_pre_verdict`` the
    pre-D model's)."""
    R, _, _ = study.seal_rewards
    kw = {"population": study.population, "n_boot": study.n_boot, "seed": study.seed}
    rows = {w: q3.resistance_difference(R, study.classified, which=w, **kw) for w in ("pre", "post")}
    planted = study.population is not None
    shown, planted_shown = q1.intervals(
        [[d["delta"], d["lo"], d["hi"]] for d in rows.values()], [d.get("planted", float("nan")) for d in rows.values()]
    )
    table = pd.DataFrame(
        {
            f"{w}-D RM": {
                "diverging pairs": d["n_diverging"],
                "high-agreement pairs": d["n_high_agreement"],
                "a₋(diverging) − a₋(high-agreement) [95% CI]": shown[k],
                **({"planted (population)": planted_shown[k]} if planted else {}),
                "verdict": d["short"],
            }
            for k, (w, d) in enumerate(rows.items())
        }
    ).T
    post = rows["post"]
    forest = forest_plot(
        pd.DataFrame(rows)
        .T.rename(index=lambda w: f"{w}-D RM")
        .astype({k: float for k in ("delta", "lo", "hi", "planted")}),
        "delta",
        "lo",
        "hi",
        planted="planted" if planted else None,
        xlabel="a₋(diverging) − a₋(high-agreement)",
    )
    note = "\n".join(f"- **{w}-D reward model**: {shown[k]}: {d['verdict']}." for k, (w, d) in enumerate(rows.items()))
    return report.Result(
        table=table,
        forest=forest,
        forest_caption=(
            "The difference of the resistance a₋ between diverging and high-agreement pairs with its 95% CI, for "
            "the reward model before and after training on D"
            + (" (cross: the population's own difference)." if planted else ".")
        ),
        note=note,
        values={
            "x_res_delta": float(post["delta"]),
            "x_res_lo": float(post["lo"]),
            "x_res_hi": float(post["hi"]),
            "x_res_verdict": post["verdict"],
            "x_res_pre_verdict": rows["pre"]["verdict"],
        },
        data={"differences": rows},
    )
