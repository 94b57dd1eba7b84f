"""Page "Reward-model uncertainty against the margin" (question 2): does the mean-variance reward model's σ_pair
(Diverging Preferences §4) track Beyond the Binary's margin (Eq. 3)? (:mod:`pluralign.cross.uncertainty`)"""

from __future__ import annotations

import pandas as pd

from pluralign import report
from pluralign.cross import plots
from pluralign.cross import training as q4
from pluralign.cross import uncertainty as q2
from pluralign.cross.common import no_estimate_reason
from pluralign.cross.studies import each_data_set
from pluralign.cross.study import Study

__all__ = ["sigma_against_margin"]


@report.section()
@each_data_set
def sigma_against_margin(study: Study) -> report.Result:
    """Spearman ρ between the mean-variance RM's σ_pair and each margin per agreement class on the held-out pairs
    (95% CI, verdict; "too few" under 10 pairs), the planted spread's ρ beside on the demo."""
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
    lines = [
        f"- **{m}, {c}** (n = {n}): {v}"
        for m, c, n, v in corr[["margin", "class", "pairs", "verdict"]].itertuples(index=False)
    ]
    forest = report.forest_plot(
        corr.set_index(["margin", "class"]).assign(why=lambda d: d["verdict"].map(no_estimate_reason)),
        "rho",
        "lo",
        "hi",
        planted="planted rho" if "planted rho" in corr else None,
        why="why",
        xlabel="Spearman ρ(σ_pair, m)",
    )
    return report.Result(
        table=q2.display(corr),
        forest=forest,
        figure=plots.sigma_vs_margin(frame, list(margins)),
        note="\n".join(lines),
        data={"correlations": corr, "frame": frame},
    )
