"""The data chapter's label chart: its legend sits clear of every bar (it sat over a bar), the figure has a caption,
and its table shows shares as percentages with one decimal."""

from pluralign.data import summary
from pluralign.data.simulate import DEMO_DATASETS


def test_the_label_chart_legend_covers_no_bar_and_the_figure_has_a_caption():
    from pluralign.data import load

    page = summary.DataPage("demo", [load(spec) for spec in DEMO_DATASETS])
    r = page.label_shares()
    fig = r.figure
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    bars = [p.get_window_extent() for p in ax.patches if p.get_height() > 0]
    assert bars and not any(legend.overlaps(b) for b in bars)
    assert r.caption.startswith("The share of judgments with each preference label")
    assert all(str(v).endswith("%") and len(str(v).split(".")[-1]) == 2 for v in r.table.to_numpy().ravel())
