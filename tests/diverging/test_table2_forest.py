"""Table 2's forest plot (pluralign.diverging.plots.table2_forest): one panel per reward model, one row per data set
and subset, the paper's value as a marker, a model the data set could not train named on its rows."""

import numpy as np
import pandas as pd

from pluralign.diverging import plots
from pluralign.diverging.reward_models import SUBSETS


def test_table2_forest_plots_each_estimate_and_names_the_untrained_model():
    rows = []
    for ds, trained in (("a", {"BT (Agg)"}), ("b", {"BT (Agg)", "MSE (Agg)"})):
        for m in ("BT (Agg)", "MSE (Agg)"):
            for k, s in enumerate(SUBSETS):
                ok = m in trained
                e = 0.6 + 0.01 * k if ok else np.nan
                rows.append(
                    {
                        "data set": ds,
                        "subset": s,
                        "model": m,
                        "estimate": e,
                        "lo": e - 0.02,
                        "hi": e + 0.02,
                        "paper": 0.7 if m.startswith("BT") else np.nan,
                        "planted": np.nan,
                        "why": None if ok else "not trained",
                    }  # fmt: skip
                )
    fig = plots.table2_forest(pd.DataFrame(rows))
    assert len(fig.axes) == 2
    est = [a for ax in fig.axes for a in ax.get_children() if a.get_gid() == "estimate"]
    assert [len(a.get_offsets()) for a in est] == [10, 5]
    notes = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_gid() == "no-estimate"]
    assert notes == ["not trained"] * 5
    assert fig.axes[0].get_yticklabels()[0].get_text() == "a · High-Agreement Prefs."
