"""The book pipeline: manifest ↔ _toc.yml, failures named, no secrets in the output."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pluralign import params as P
from pluralign.book import contents, errors, fingerprints, kernels, manifest_plan, page_notes

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "pluralign.book.cli"]


def test_toc_is_generated_from_manifest():
    assert (ROOT / "_toc.yml").read_text() == contents.toc_text("demo"), "run `pluralign toc --write`"


def test_every_profile_runs_every_notebook_it_lists():
    m = manifest_plan.manifest()
    chapters = {c["run"] for p in m["parts"] for c in p["chapters"] if "run" in c}
    for prof in manifest_plan.PROFILES:
        assert set(m["profiles"][prof]) <= chapters, f"{prof} lists a notebook that is in no part"
        assert manifest_plan.runs(prof), prof


def test_secret_looking_parameter_is_refused(tmp_path):
    p = tmp_path / "p.yml"
    p.write_text("llm:\n  api_key: sk-abc\n")
    with pytest.raises(P.ParamsError, match="secret"):
        P.read_params(p)
    p.write_text("llm:\n  api_key_env: OPENAI_API_KEY\n")
    assert P.read_params(p)["llm"]["api_key_env"] == "OPENAI_API_KEY"


MINI_INTRO = """# %% [markdown]
# (intro)=
# # A mini book

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %% tags=["remove-input"]
from pluralign import report

report.profile_note(profile)
report.summary()
"""


def _mini_root(tmp_path: Path, notebooks: dict[str, str]) -> Path:
    """A book root with the project's frame and the given extra notebooks (name -> code)."""
    root = tmp_path / "root"
    for d in ("book",):
        shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("_executed"))
    (root / "notebooks").mkdir()
    (root / "params" / "demo").mkdir(parents=True)
    for f in ("_config.yml", "references.bib"):
        shutil.copy(ROOT / f, root / f)
    chapters = [{"run": "intro"}, {"run": "build_report"}]
    table = {"intro": ["params/demo/intro.yml"], "build_report": ["params/demo/build_report.yml"]}
    for nb in ("intro", "build_report"):
        shutil.copy(ROOT / "params" / "demo" / f"{nb}.yml", root / "params" / "demo" / f"{nb}.yml")
    shutil.copy(ROOT / "notebooks" / "build_report.py", root / "notebooks" / "build_report.py")
    # the book's introduction links every page of the book; this one links none (the mini book has two pages)
    (root / "notebooks" / "intro.py").write_text(MINI_INTRO)
    for name, code in notebooks.items():
        (root / "notebooks" / f"{name}.py").write_text(code)
        (root / "params" / "demo" / f"{name}.yml").write_text("profile: demo\nseed: 0\n")
        chapters.append({"run": name})
        table[name] = [f"params/demo/{name}.yml"]
    chapters.append({"page": "book/bibliography"})
    (root / "manifest.yml").write_text(
        yaml.safe_dump({"parts": [{"caption": "Test", "chapters": chapters}], "profiles": {"demo": table}})
    )
    return root


def _pluralign(root: Path, *args, env=None):
    e = {**os.environ, "PLURALIGN_ROOT": str(root), **(env or {})}
    return subprocess.run(CLI + list(args), cwd=root, env=e, capture_output=True, text=True, timeout=600)


FAILING = """# %% tags=["parameters"]
profile = "demo"
seed = 0

# %%
x = 1

# %%
raise ValueError("planted failure 42")
"""


@pytest.mark.slow
def test_failing_notebook_stops_the_build_with_its_name_params_and_error(tmp_path):
    root = _mini_root(tmp_path, {"broken": FAILING})
    proc = _pluralign(root, "book", "--no-html")
    assert proc.returncode != 0
    err = proc.stderr
    assert "notebooks/broken.py" in err and "params/demo/broken.yml" in err
    assert "ValueError: planted failure 42" in err
    assert "broken" in proc.stdout and "failed" in proc.stdout


SHARED_ENTRY = """# %% tags=["parameters"]
profile = "demo"
seed = 0

# %%
import os, time
from pathlib import Path
from pluralign import cache

here = Path(os.environ["SHARED_DIR"])
(here / "started-NAME").touch()


def compute():
    for _ in range(1200):  # both pages must be running while the entry is computed (at most 120 s)
        if len(list(here.glob("started-*"))) == 2:
            break
        time.sleep(0.1)
    else:
        raise RuntimeError("the other page never started beside this one")
    with open(here / "computed.txt", "a") as f:
        f.write("NAME\\n")
    return {"by": "NAME"}


value = cache.Entry("test/shared", inputs="both pages").get_or_compute(compute)
value
"""


@pytest.mark.slow
def test_two_pages_executing_side_by_side_compute_the_entry_both_need_once(tmp_path):
    """``--jobs 2``: the pages run at the same time; the one that comes second waits for the first's entry."""
    root = _mini_root(
        tmp_path, {"left": SHARED_ENTRY.replace("NAME", "left"), "right": SHARED_ENTRY.replace("NAME", "right")}
    )
    shared = tmp_path / "shared"
    shared.mkdir()
    env = {"SHARED_DIR": str(shared), "PLURALIGN_CACHE": str(tmp_path / "c")}
    proc = _pluralign(root, "book", "--no-html", "--jobs", "2", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "up to 2 at a time" in proc.stdout
    assert len((shared / "computed.txt").read_text().split()) == 1  # computed by one page, read by the other


LEAKY_ENV_READER = """# %% [markdown]
# # Environment reader

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %%
import os
from pluralign import report
report.environment(), report.parameters(profile), sorted(k for k in os.environ if k.startswith("PLURALIGN"))
"""


@pytest.mark.slow
def test_fake_api_key_appears_in_no_executed_notebook_and_no_html_page(tmp_path):
    secret = "sk-FAKE-d41d8cd98f00b204e9800998ecf8427e"
    root = _mini_root(tmp_path, {"env_reader": LEAKY_ENV_READER})
    proc = _pluralign(root, "book", env={"OPENAI_API_KEY": secret, "PLURALIGN_CACHE": str(tmp_path / "c")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    produced = list((root / "book" / "_executed").rglob("*.ipynb")) + list((root / "_build").rglob("*.html"))
    assert len(produced) >= 6
    for f in produced:
        assert secret not in f.read_text(errors="replace"), f"{f} leaks the key"
    # a second build reuses the executed notebooks
    again = _pluralign(
        root, "book", "--no-html", env={"OPENAI_API_KEY": secret, "PLURALIGN_CACHE": str(tmp_path / "c")}
    )
    assert again.returncode == 0 and again.stdout.count("cached") == 3, again.stdout


def test_only_selects_a_part_by_its_manifest_name():
    part1 = [r.notebook for r in manifest_plan.runs("sample", "diverging")]
    assert part1 == ["diverging_agreement", "diverging_causes", "diverging_rewards", "diverging_know"]
    assert [r.notebook for r in manifest_plan.runs("demo", "seal_imprint")] == ["seal_imprint"]
    # the LLM cause classifier page is the paper profile's only (no instruction-following LLM on demo / sample)
    assert "diverging_causes_llm" in [r.notebook for r in manifest_plan.runs("paper", "diverging")]
    assert "diverging_causes_llm" not in [r.notebook for r in manifest_plan.runs("demo")]
    with pytest.raises(errors.BookError, match="matches no part.*diverging"):
        manifest_plan.runs("demo", "no-such-part")


def test_partial_toc_leaves_out_pages_not_executed(tmp_path, monkeypatch):
    m = manifest_plan.manifest()
    monkeypatch.setattr(manifest_plan, "ROOT", tmp_path)  # nothing executed under this root: only prose pages exist
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "reproduce.md").write_text("# r\n")
    (tmp_path / "book" / "bibliography.md").write_text("# b\n")
    t = contents.toc("sample", m, present_only=True)
    files = contents._toc_files(t)
    assert files == ["book/reproduce", "book/bibliography"]
    assert len(contents._toc_files(contents.toc("sample", m))) > len(files)


def test_included_parameters_are_read_first_and_overridden(tmp_path):
    (tmp_path / "shared.yml").write_text("data: {name: hh-rlhf}\ntrain: {objective: bt}\n")
    (tmp_path / "page.yml").write_text("include: shared.yml\ntrain: {objective: mse}\nseed: 3\n")
    assert P.read_params(tmp_path / "page.yml") == {
        "data": {"name": "hh-rlhf"},
        "train": {"objective": "mse"},
        "seed": 3,
    }
    (tmp_path / "shared.yml").write_text("include: page.yml\n")
    with pytest.raises(P.ParamsError, match="include cycle"):
        P.read_params(tmp_path / "page.yml")
    (tmp_path / "page.yml").write_text("include: nowhere.yml\n")
    with pytest.raises(P.ParamsError, match="nowhere.yml.*does not exist"):
        P.read_params(tmp_path / "page.yml")
    (tmp_path / "shared.yml").write_text("llm: {api_key: sk-abc}\n")
    (tmp_path / "page.yml").write_text("include: shared.yml\n")
    with pytest.raises(P.ParamsError, match="secret"):
        P.read_params(tmp_path / "page.yml")


def test_every_seal_page_reads_the_profiles_shared_study(monkeypatch, tmp_path):
    for prof in manifest_plan.PROFILES:
        pages = [r for r in manifest_plan.runs(prof, "seal")]
        study = P.read_params(ROOT / "params" / prof / "seal-study.yml")
        for r in pages:
            p = P.read_params(ROOT / r.params)
            assert {k: p[k] for k in study} == study, r.params
    # the run's fingerprint follows the included file, so editing the shared study re-executes the pages
    root = tmp_path / "root"
    shutil.copytree(ROOT / "params", root / "params")
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    shutil.copy(ROOT / "manifest.yml", root / "manifest.yml")
    monkeypatch.setattr(manifest_plan, "ROOT", root)
    r = manifest_plan.runs("sample", "seal_imprint")[0]
    before = fingerprints.run_fingerprint(r, "lib")
    study = root / "params" / "sample" / "seal-study.yml"
    study.write_text(study.read_text() + "# a comment changes no parameter\n")
    assert fingerprints.run_fingerprint(r, "lib") == before
    study.write_text(study.read_text().replace("- {name: hhh}", "- {name: llmbar}"))
    assert fingerprints.run_fingerprint(r, "lib") != before


def test_a_page_fingerprint_follows_the_data_files_it_reads(tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    (root / "params" / "demo").mkdir(parents=True)
    (root / "notebooks" / "nb.py").write_text('# %% tags=["parameters"]\nprofile = "demo"\ndata = {}\n')
    (root / "mine.jsonl").write_text('{"a": 1}\n')
    (root / "params" / "demo" / "nb.yml").write_text("data: {name: local, source: mine.jsonl}\n")
    monkeypatch.setattr(manifest_plan, "ROOT", root)
    r = manifest_plan.Run("nb", "params/demo/nb.yml", "demo")
    before = fingerprints.run_fingerprint(r, lib_hash="x")
    assert fingerprints.run_fingerprint(r, lib_hash="x") == before
    with open(root / "mine.jsonl", "a") as f:
        f.write('{"a": 2}\n')
    assert fingerprints.run_fingerprint(r, lib_hash="x") != before


def test_the_build_report_executes_after_every_other_page():
    """It shows the cache the other pages filled (not an empty cache)."""
    m = manifest_plan.manifest()
    order = [r.notebook for r in manifest_plan.execution_order(manifest_plan.runs("demo", m=m), m)]
    assert order[-1] == "build_report" and order.count("build_report") == 1
    toc_order = [r.notebook for r in manifest_plan.runs("demo", m=m)]
    assert toc_order.index("build_report") > toc_order.index("cross_training")  # in the appendix, after the parts


def test_each_kernel_gets_its_own_socket_folder():
    """Two builds started in one folder must not share IPC socket files (they then read each other's messages:
    "Invalid Signature")."""
    import asyncio
    import warnings

    cls = kernels.ipc_kernel_manager()
    a, b = cls(kernel_name="python3"), cls(kernel_name="python3")
    try:
        assert a.transport == b.transport == "ipc" and a.ip != b.ip
        assert Path(a.ip).parent.is_dir() and Path(a.ip).parent != Path(b.ip).parent
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "coroutine ... was never awaited" in the build log
            for m in (a, b):
                asyncio.run(m.cleanup_resources())
    assert not Path(a.ip).parent.exists() and not Path(b.ip).parent.exists()


def test_a_section_that_does_not_run_is_left_off_the_page():
    """A section whose Result is ``skipped`` is hidden from its heading to the next heading of
    the same level (the notebook keeps it, tagged remove-cell); the page title and other sections stay."""
    import nbformat

    from pluralign.book.page_notes import SKIPPED_SECTION

    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    skipped_out = nbformat.v4.new_output(
        "display_data", data={"text/markdown": "*Not run on this profile:* x"}, metadata={SKIPPED_SECTION: True}
    )
    nb = nbformat.v4.new_notebook(
        cells=[
            md("(page)=\n# Title\n\nintro"),
            code("study = setup()"),
            md("## Runs\n\ntext"),
            code("study.a()"),
            md("## Does not run here\n\nwhy it matters"),
            code("study.b()"),
            md("prose about b"),
            md("### a sub-section of b"),
            code("study.c()"),
            md("## Runs again"),
            code("study.d()"),
        ]
    )
    nb.cells[5].outputs = [skipped_out]
    hidden = page_notes.hide_skipped_sections(nb)
    removed = [i for i, c in enumerate(nb.cells) if "remove-cell" in c.metadata.get("tags", [])]
    assert removed == [4, 5, 6, 7, 8] and hidden == ["Does not run here"]


def test_a_section_with_no_estimate_stays_and_a_left_out_one_is_named_at_the_top():
    """Of a page with one section that does not apply to the profile and one that ran and has no estimate, the
    first is tagged out and named with its reason in one line of a note after the title; the second keeps its
    heading, prose and warning box, and is listed as failed in the run's record."""
    import nbformat

    from pluralign.book.page_notes import FAILED_SECTION, SKIPPED_SECTION

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

    def shown(text, key, why):
        return nbformat.v4.new_output("display_data", data={"text/markdown": text}, metadata={key: why})

    nb = nbformat.v4.new_notebook(
        cells=[
            md("(page)=\n# Title\n\nintro"),
            code("study = setup()"),
            md("## Not here\n\nwhy it matters"),
            code("study.a()"),
            md("## Failed\n\nprose quoting —"),
            code("study.b()"),
            md("## Runs"),
            code("study.c()"),
        ]
    )
    nb.cells[3].outputs = [shown("*Not run on this profile:* no judge here.", SKIPPED_SECTION, "no judge here.")]
    box = ":::{warning}\n**No estimate.** 4 of 4 LM labels failed.\n:::"
    nb.cells[5].outputs = [shown(box, FAILED_SECTION, "4 of 4 LM labels failed.")]
    assert page_notes.hide_skipped_sections(nb) == ["Not here"]
    assert page_notes.insert_left_out_note(nb, "paper") == ["- *Not here* — no judge here."]
    assert page_notes.insert_left_out_note(nb, "paper") == []  # once
    note = nb.cells[1]
    assert note.source.startswith(":::{admonition} Not run on the paper profile\n") and "*Not here*" in note.source
    kept = [c for c in nb.cells if "remove-cell" not in c.metadata.get("tags", [])]
    assert [c.source.splitlines()[0] for c in kept if c.cell_type == "markdown"][2:] == ["## Failed", "## Runs"]
    assert any(o["data"]["text/markdown"] == box for c in kept for o in c.get("outputs", []))
    assert page_notes.failed_sections(nb) == ["Failed"]


def test_an_old_page_whose_skipped_outputs_carry_no_reason_still_names_the_section():
    import nbformat

    from pluralign.book.page_notes import SKIPPED_SECTION

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# T"),
            nbformat.v4.new_markdown_cell("## S"),
            nbformat.v4.new_code_cell(""),
        ]
    )
    nb.cells[2].outputs = [
        nbformat.v4.new_output("display_data", data={"text/markdown": "x"}, metadata={SKIPPED_SECTION: True})
    ]
    assert page_notes.hide_skipped_sections(nb) == ["S"] and page_notes.insert_left_out_note(nb) == ["- *S*"]


def test_a_heading_inside_a_prose_cell_starts_the_section_that_is_left_out():
    """The imprint page's layout: a section that does not run starts with a heading in the middle of the previous
    section's prose cell, and the next section's heading follows prose in its cell. Only the section that does not
    run is left out: the prose before its heading and the next section stay."""
    import nbformat

    from pluralign.book.page_notes import FAILED_SECTION, SKIPPED_SECTION

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

    def shown(key):
        return nbformat.v4.new_output("display_data", data={"text/markdown": "x"}, metadata={key: "why"})

    nb = nbformat.v4.new_notebook(
        cells=[
            md("# Title"),
            md("## Imprints"),
            code("study.imprints()", outputs=[shown(FAILED_SECTION)]),
            md("prose on the imprints\n\n(recovery)=\n## Recovery (demo)\n\nwhy it matters"),
            code("study.recovery()", outputs=[shown(SKIPPED_SECTION)]),
            md("what it showed\n\n## Shifts\n\nnext"),
            code("study.shifts()"),
        ]
    )
    assert page_notes.hide_skipped_sections(nb) == ["Recovery (demo)"]
    kept = "\n".join(c.source for c in nb.cells if "remove-cell" not in c.metadata.get("tags", []))
    assert "prose on the imprints" in kept and "## Shifts" in kept and "study.shifts()" in kept
    assert "Recovery" not in kept and "what it showed" not in kept and "(recovery)=" not in kept
    assert page_notes.failed_sections(nb) == ["Imprints"]
    fenced = nbformat.v4.new_notebook(cells=[md("text\n\n```bash\n# a comment, not a heading\n```")])
    assert page_notes.split_at_headings(fenced) == 0 and len(fenced.cells) == 1


def test_a_formatted_glue_reference_to_a_missing_value_shows_the_dash():
    """A section with no estimate glues "—"; its prose's ``{glue:text}`t6_r2:.3f``` would format "—" as a number
    and show nothing, so the format is dropped for that name only."""
    import nbformat

    def glued(name, text):
        return nbformat.v4.new_output(
            "display_data",
            data={"application/papermill.record/text/plain": text},
            metadata={"scrapbook": {"name": name, "mime_prefix": "application/papermill.record/"}},
        )

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("r.glue()", outputs=[glued("t6_r2", "'—'"), glued("n", "12")]),
            nbformat.v4.new_markdown_cell("R² = {glue:text}`t6_r2:.3f` on {glue:text}`n:,` pairs"),
        ]
    )
    assert page_notes.unformat_missing_glue(nb) == ["t6_r2"]
    assert nb.cells[1].source == "R² = {glue:text}`t6_r2` on {glue:text}`n:,` pairs"


def _settings_root(tmp_path: Path, page_file: str, pages=("page",)) -> Path:
    """A book root of ``pages`` (notebook names), each a page of Part I's settings run by the demo profile with its
    own parameter file holding ``page_file``."""
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    (root / "params" / "demo").mkdir(parents=True)
    cell = '# %% tags=["parameters"]\nprofile = "demo"\nseed = 0\n'
    cell += "settings = {}  # pluralign.diverging.DivergingSettings\n"
    for name in pages:
        (root / "notebooks" / f"{name}.py").write_text(cell)
        (root / "params" / "demo" / f"{name}.yml").write_text(page_file)
    chapters = [{"run": name} for name in pages]
    table = {"demo": {name: [f"params/demo/{name}.yml"] for name in pages}}
    (root / "manifest.yml").write_text(
        yaml.safe_dump({"parts": [{"caption": "T", "chapters": chapters}], "profiles": table})
    )
    return root


def test_a_build_validates_each_pages_settings_once(tmp_path, monkeypatch, validations):
    """A build reads a page's parameter file once: the freshness check and the execution share its settings, which
    the part's settings class builds once per page (not once for the fingerprint and again for papermill)."""
    import io

    import nbformat

    from pluralign import diverging
    from pluralign.book import execution

    root = _settings_root(tmp_path, "n_boot: 300\n")
    monkeypatch.setattr(manifest_plan, "ROOT", root)
    injected = []

    def run_notebook(nb, output, params, **kw):  # papermill's part: the parameters it is given, an executed page
        injected.append(params)
        nbformat.write(nbformat.v4.new_notebook(), output)

    monkeypatch.setattr(kernels, "run_notebook", run_notebook)
    built = validations(diverging.DivergingSettings)
    execution.build("demo", html=False, out=io.StringIO(), jobs=1)
    assert len(built) == 1
    assert injected[0]["settings"]["n_boot"] == 300 and (root / "book" / "_executed" / "demo" / "page.ipynb").exists()


@pytest.mark.parametrize("refresh", [[], ["--refresh"]])
def test_a_refused_parameter_file_stops_the_build_before_any_page_runs(tmp_path, monkeypatch, capsys, refresh):
    from pluralign.book import cli

    monkeypatch.setattr(manifest_plan, "ROOT", _settings_root(tmp_path, "n_boot: -1\n"))
    monkeypatch.setattr(kernels, "run_notebook", lambda *a, **k: pytest.fail("a page ran"))
    assert cli.main(["book", "--no-html", *refresh]) == 1
    assert "params/demo/page.yml: " in capsys.readouterr().err


def test_the_warm_server_starts_before_the_pages_are_read_on_a_cold_build_after_on_a_stale_one(tmp_path, monkeypatch):
    """On a cold build (four or more outputs missing) the warm server's imports run beside the reading of the pages,
    not after it; a rebuild whose pages are all fresh starts no server at all; one whose outputs are there but stale
    starts it once the pages are read (their freshness needs them)."""
    import contextlib
    import io

    import nbformat

    from pluralign.book import execution

    names = [f"page{i}" for i in range(execution.WARM_FROM)]
    root = _settings_root(tmp_path, "n_boot: 300\n", names)
    monkeypatch.setattr(manifest_plan, "ROOT", root)
    events = []

    @contextlib.contextmanager
    def server(profile):
        events.append("server")
        yield

    read = execution._read_page
    monkeypatch.setattr(execution, "_warm_kernels", server)
    monkeypatch.setattr(execution, "_read_page", lambda *a: events.append("read") or read(*a))
    monkeypatch.setattr(
        kernels, "run_notebook", lambda nb, output, *a, **k: nbformat.write(nbformat.v4.new_notebook(), output)
    )
    execution.build("demo", html=False, out=io.StringIO(), jobs=1)
    assert events[0] == "server" and events.count("read") == execution.WARM_FROM
    events.clear()
    execution.build("demo", html=False, out=io.StringIO(), jobs=1)  # every page fresh: nothing to fork
    assert events == ["read"] * execution.WARM_FROM
    events.clear()
    for name in names:  # outputs there, every page stale: the server starts once the pages are read
        (root / "params" / "demo" / f"{name}.yml").write_text("n_boot: 400\n")
    execution.build("demo", html=False, out=io.StringIO(), jobs=1)
    assert events == ["read"] * execution.WARM_FROM + ["server"]
