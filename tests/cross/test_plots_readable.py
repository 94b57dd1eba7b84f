"""Part IV's figures are drawn at the text column's width with the style's fonts, so no label shrinks below what a
reader can read when the browser fits the figure to the column (cross-margins' figure was drawn 10 inches wide with
7-point legends: about 6-pixel labels on the page)."""

import numpy as np
import pandas as pd
from matplotlib.text import Text

from pluralign.cross import plots

MIN_POINTS = 9  # the style's smallest size (pluralign.plotstyle: ticks and legends)


def _smallest_font(fig) -> float:
    return min(t.get_fontsize() for t in fig.findobj(Text) if t.get_text().strip())


def _separation():
    return pd.DataFrame(
        {"AUROC": [0.70, 0.83], "lo": [0.66, 0.80], "hi": [0.74, 0.86], "planted AUROC (|2p*−1|)": [0.72, 0.72]},
        index=pd.Index(["synthetic (n = 10)", "gold (the pair's own votes)"], name="margin"),
    )


def test_the_margins_figure_fits_the_column_with_legible_labels():
    rng = np.random.default_rng(0)
    classes = ["high-agreement-pref", "high-agreement-tie", "diverging", "other"]
    long = pd.DataFrame(
        {
            "margin source": np.repeat(["synthetic (n = 10)", "gold (the pair's own votes)"], 200),
            "m": rng.uniform(0, 1, 400),
            "class": np.tile(np.repeat(classes, 50), 2),
        }
    )
    fig = plots.margins_by_class(long, _separation())
    assert fig.get_figwidth() <= plots.WIDTH
    assert _smallest_font(fig) >= MIN_POINTS


def test_the_other_part_iv_figures_fit_the_column_with_legible_labels():
    table = pd.DataFrame(
        {
            "pairs": [40, 30],
            "a- post": [0.2, 0.4],
            "lo": [0.1, 0.3],
            "hi": [0.3, 0.5],
            "planted a-": [0.1, 0.5],
            "became-aligned": [0.25] * 2,
            "stayed-aligned": [0.25] * 2,
            "stayed-misaligned": [0.25] * 2,
            "reversed": [0.25] * 2,
        },
        index=["high-agreement-pref", "diverging"],
    )
    frame = pd.DataFrame({"sigma_pair": [1.0, 2.0, 1.5], "class": ["diverging"] * 3, "m": [0.2, 0.4, 1.0]})
    measure = pd.DataFrame(
        {
            "model": ["BT (majority)"] * 2,
            "class": ["high-agreement-pref", "diverging"],
            "measure": ["P(chosen ≻ rejected)"] * 2,
            "value": [0.8, 0.7],
            "lo": [0.75, 0.65],
            "hi": [0.85, 0.75],
            "planted": [0.9, 0.7],
        }
    )
    for fig in (plots.regimes_by_class(table), plots.sigma_vs_margin(frame, ["m"]), plots.training_measures(measure)):
        assert fig.get_figwidth() <= plots.WIDTH
        assert _smallest_font(fig) >= MIN_POINTS
