"""The book's figure style: column-wide figures and the same bytes on every build."""

import io

import numpy as np
import pandas as pd


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    return buf.getvalue()


def test_a_strip_plot_draws_the_same_bytes_twice_and_leaves_numpy_state_alone():
    from pluralign.btb import plots

    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "margin": rng.choice([0.0, 0.5, 1.0], 200),
            "population agreement |2p*-1|": rng.uniform(0, 1, 200),
            "category": rng.choice(["a", "b"], 200),
        }
    )
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    first = _png(plots.margin_distribution(frame, n=200, source="hand"))
    np.random.seed(7)  # another global state: the jitter must not depend on it
    second = _png(plots.margin_distribution(frame, n=200, source="hand"))
    assert first == second
    np.random.seed(123)
    plots.margin_distribution(frame, n=200, source="hand")
    assert np.array_equal(np.random.get_state()[1], before)


def test_figures_are_drawn_at_the_column_width():
    import matplotlib.pyplot as plt

    from pluralign import plotstyle

    plotstyle.use()
    fig, _ = plt.subplots(figsize=(7, 3))
    assert fig.dpi * 7 >= 1000  # the text column is about 1,080 px wide at a 1366 px window
    plt.close(fig)
