"""The apparatus every page shares: numbered figure captions and the "Reproduce this page" box."""

import matplotlib

matplotlib.use("agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from pluralign import report  # noqa: E402


def _shown(result, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append(obj))
    result._ipython_display_()
    return [getattr(o, "data", o) for o in shown]


def test_every_figure_gets_a_numbered_caption_in_page_order(monkeypatch):
    monkeypatch.setattr(report, "_FIGURES", [0])
    fig, ax = plt.subplots()
    ax.set_title("Reward shift by regime")
    plt.close(fig)
    first = _shown(report.Result(pd.DataFrame({"a": [1]}), figure=fig), monkeypatch)
    second = _shown(report.Result(pd.DataFrame({"a": [1]}), figure=fig, caption="θ per pair."), monkeypatch)
    assert first[-2] == "**Figure 1.** Reward shift by regime"  # the figure's own title when no caption is given
    assert second[-2] == "**Figure 2.** θ per pair."


def test_a_figures_texts_go_under_it_hidden_for_the_site_check():
    fig, ax = plt.subplots()
    ax.barh(["last_response_is_honest", "Harmless"], [1, 2], label="post-D RM")
    ax.set_xlabel("coefficient")
    ax.legend()
    plt.close(fig)
    html = report.figure_labels_html(fig)
    assert html.startswith('<span class="pluralign-figure-labels" hidden>')
    assert "last_response_is_honest" in html and "coefficient" in html and "post-D RM" in html


def test_the_reproduce_box_names_the_pages_parameter_file_and_both_commands():
    box = report.reproduce("seal_imprint", "pluralign.seal.imprint", profile_name="demo").data
    assert "Reproduce this page" in box and ":class: seealso dropdown" in box
    assert "pluralign run seal_imprint -f params/demo/seal-imprint.yml" in box
    assert "papermill seal_imprint.ipynb out.ipynb -f resolved.yml" in box
    assert "`pluralign.seal.imprint`" in box
    paper = report.reproduce("seal_imprint", profile_name="paper").data
    assert "-f params/paper/seal-imprint.yml" in paper


def test_on_pluralign_run_of_ones_own_file_the_reproduce_box_names_that_file(monkeypatch):
    monkeypatch.setenv("PLURALIGN_RUN_PARAMS", "mine.yml")
    box = report.reproduce("seal_imprint", profile_name="demo").data
    assert "pluralign run seal_imprint -f mine.yml" in box and "params/demo" not in box
    assert "from the parameter file's folder" in box
