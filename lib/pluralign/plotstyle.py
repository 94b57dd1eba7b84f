"""One figure style for every page: figures at the column width, legible fonts, identical bytes across
builds.

Every part's ``plots`` module calls :func:`use` when imported: figures are drawn at 150 dpi, so a figure 7
inches wide is 1,050 pixels — the width of the book's text column, where the browser shows it at full width
instead of shrinking the column around a 700-pixel image — with fonts sized for that scale. Seaborn's strip
plots jitter their points with NumPy's global random state; :func:`fixed_jitter` seeds it for the plot and
puts it back, so two builds draw the same points."""

from __future__ import annotations

import contextlib

import matplotlib as mpl
import numpy as np

STYLE = {
    "figure.dpi": 150,
    "savefig.dpi": 150,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "pluralign",
    "path.simplify": True,
}


def use() -> None:
    """Set the book's figure style (:data:`STYLE`) in matplotlib's rcParams."""
    mpl.rcParams.update(STYLE)


@contextlib.contextmanager
def fixed_jitter(seed: int = 0):
    """Draw with NumPy's global random state seeded (seaborn's jitter reads it), then restore the state."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def ci_points(ax, estimate, y, low, high, label: str, **kw):
    """Each ``estimate`` as a point at height ``y`` with its confidence interval [``low``, ``high``] as a
    horizontal error bar (the parts' figures of estimates with 95% CIs); ``kw`` goes to ``ax.errorbar``."""
    return ax.errorbar(estimate, y, xerr=[estimate - low, high - estimate], fmt="o", capsize=3, label=label, **kw)
