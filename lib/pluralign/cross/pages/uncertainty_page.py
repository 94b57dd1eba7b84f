"""Page "Reward-model uncertainty against the margin" (question 2): does the mean-variance reward model's σ_pair
(Diverging Preferences §4) track Beyond the Binary's margin (Eq. 3)? (:mod:`pluralign.cross.uncertainty`)"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.cross import plots
from pluralign.cross import training as q4
from pluralign.cross import uncertainty as q2
from pluralign.cross.common import no_estimate_reason
from pluralign.cross.studies import each_data_set
from pluralign.cross.study import Study
from pluralign.forest import forest_plot

__all__ = ["sigma_against_margin"]


@report.section("x_unc_margin", "x_unc_rho", "x_unc_verdict", "x_unc_div_rho", "x_unc_div_verdict")
@each_data_set
def sigma_against_margin(study: Study) -> report.Result:
    """Spearman ρ between the mean-variance RM's σ_pair and each margin per agreement class on the held-out pairs
    (95% CI; "too few" under 10 pairs), the planted spread's ρ beside on the demo, the verdict read against 0 and
    against it: short words in the table, the long reading in the note. Values for the first margin source (the
    synthetic one when there is a judge): ``x_unc_margin`` its name, ``x_unc_rho`` / ``x_unc_div_rho`` ρ with its
    CI over all pairs / on diverging pairs (text), ``x_unc_verdict`` / ``x_unc_div_verdict`` their long readings."""
    r = study.run
    name = next(k for k, v in q4.MODELS.items() if v[0] == "mean-variance")
    ids = r.heldout.pairs["pair_id"]
    sigma = q2.pair_sigma(r.models[name].predict(r.heldout, progress=False)).reindex(ids)
    margins = {k: v.reindex(ids).dropna() for k, v in study.margins.items()}
    truth = study.data.truth
    planted = q2.planted_spread(truth.reindex(ids)) if study.has_truth and "a_verbosity" in truth.columns else None
    corr = q2.sigma_margin_correlations(
        sigma, margins, study.classified, planted=planted, n_boot=study.n_boot, seed=study.seed
    )
    frame = pd.DataFrame(
        {
            "sigma_pair": sigma,
            "class": study.classified["agreement"].reindex(ids).to_numpy(),
            **{k: v.reindex(ids) for k, v in margins.items()},
        }
    )
    shown = q2.display(corr)
    lines = [
        f"- **{m}, {c}** ({n} pairs): {v}."
        for m, c, n, v in corr[["margin", "class", "pairs", "verdict"]].itertuples(index=False)
    ]
    forest = forest_plot(
        corr.set_index(["margin", "class"]).assign(why=lambda d: d["verdict"].map(no_estimate_reason)),
        "rho",
        "lo",
        "hi",
        planted="planted rho" if "planted rho" in corr else None,
        why="why",
        xlabel="Spearman ρ(σ, margin)",
    )
    first = next(iter(margins))

    def row(cls):
        hit = corr[(corr["margin"] == first) & (corr["class"] == cls)]
        if hit.empty:
            return "no estimate", f"no {cls} pairs among the held-out pairs"
        i = hit.index[0]
        ci = shown.loc[(first, cls), "Spearman ρ(σ, margin) [95% CI]"]
        return (ci if np.isfinite(hit.loc[i, "rho"]) else "no estimate"), str(hit.loc[i, "verdict"])

    (rho, verdict), (div_rho, div_verdict) = row("all"), row("diverging")
    planted_mark = " (cross: the planted spread's ρ on the same pairs)" if "planted rho" in corr else ""
    return report.Result(
        table=shown,
        forest=forest,
        forest_caption=f"Spearman ρ between the pair's σ and each margin, per agreement class, with its 95% CI"
        f"{planted_mark}.",
        figure=plots.sigma_vs_margin(frame, list(margins)),
        caption="The mean-variance reward model's σ for each held-out pair against its margin, one panel per margin "
        "source, coloured by agreement class (points spread a little along the margin, which takes few values).",
        note="\n".join(lines),
        values={
            "x_unc_margin": first,
            "x_unc_rho": rho,
            "x_unc_verdict": verdict,
            "x_unc_div_rho": div_rho,
            "x_unc_div_verdict": div_verdict,
        },
        data={"correlations": corr, "frame": frame},
    )
