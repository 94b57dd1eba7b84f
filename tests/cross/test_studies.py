"""A section computed on several data sets apart shows every data set's figure, under its name."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from IPython import display as ipd  # noqa: E402

from pluralign import report  # noqa: E402
from pluralign.cross.studies import join  # noqa: E402


def _result(name):
    fig, ax = plt.subplots()
    ax.set_title(f"gap per class on {name}")
    plt.close(fig)
    return report.Result(pd.DataFrame({"gap": [0.1]}), figure=fig, note=f"Reward models on {name}.", caption="Gap.")


def test_every_data_sets_figure_is_shown_with_a_caption_naming_it(monkeypatch):
    shown = []
    monkeypatch.setattr(ipd, "display", lambda obj, **kw: shown.append(obj))
    joined = join({"multipref": _result("multipref"), "helpsteer2": _result("helpsteer2")})
    joined._ipython_display_()
    figures = [o for o in shown if isinstance(o, matplotlib.figure.Figure)]
    texts = [o.data for o in shown if isinstance(o, ipd.Markdown)]
    assert len(figures) == 2 and [f.axes[0].get_title() for f in figures] == [
        "gap per class on multipref",
        "gap per class on helpsteer2",
    ]
    assert any(t.endswith("Gap (multipref).") for t in texts) and any(t.endswith("Gap (helpsteer2).") for t in texts)
    assert texts.index("**multipref**") < texts.index("Reward models on multipref.") < texts.index("**helpsteer2**")
    assert not any("data[" in t for t in texts)  # no code speak for where the other figures are
    single = join({"multipref": _result("multipref")})
    assert single.parts == {} and single.figure is not None
