"""The rehearsal mirror: every id of the paper profile gets a folder that the project's own
loaders read offline — models of the real architecture class with tiny random weights, data sets in their Hub
layout — deterministically, and an id without a recipe is refused by name."""

import gzip
import json
import math
from pathlib import Path

import pytest
import yaml

import pluralign
from pluralign.book import rehearsal as RH
from pluralign.book import rehearsal_datasets as RD
from pluralign.book.hub_ids import profile_ids

ROOT = Path(__file__).resolve().parents[2]
ROWS = 30
# the mirror of the whole paper profile (a tiny model of every architecture, every data set) and each test that
# builds or runs real-architecture models: about 27 s of a quiet 2-core make test (their share of a timed run), so
# they run in make test-slow; make rehearse in CI builds and uses the same mirror end to end
SLOW = pytest.mark.slow
TEXTS = [
    ("\n\nHuman: What is the capital of France?", "Paris is the capital of France."),
    ("\n\nHuman: Tell me a joke.", "I am sorry, I cannot help with that."),
    ("Summarize: the cat sat on the mat.", "A cat sat."),
    ("Hi", "Hello! How can I help you today? Here is a long and detailed answer with many words."),
]


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    root = tmp_path_factory.mktemp("rehearsal")
    out = RH.build_mirror(root, "paper", rows=ROWS, seed=0)
    return root, out


@pytest.fixture
def offline(mirror, monkeypatch, tmp_path):
    root, _ = mirror
    monkeypatch.setenv("PLURALIGN_MIRROR", str(root))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty HF cache: only the mirror can answer
    return root


def paper_models() -> dict:
    return yaml.safe_load((ROOT / "params" / "paper" / "common.yml").read_text())["models"]


@SLOW
def test_every_id_of_the_paper_profile_gets_a_folder_marked_as_rehearsal(mirror):
    root, out = mirror
    ids = profile_ids("paper")
    assert sorted(out["models"]) == ids["models"] and sorted(out["datasets"]) == ids["datasets"]
    assert json.loads((root / "REHEARSAL.json").read_text())["models"] == out["models"]
    for hub_id in ids["models"] + ids["datasets"]:
        side = json.loads((root / hub_id / RH.SIDECAR).read_text())
        assert side["rehearsal"] is True and side["id"] == hub_id and "meaningless" in side["note"]
    for hub_id in ids["models"]:
        folder, arch = root / hub_id, RH.MODELS[hub_id]
        assert (folder / "model.safetensors").exists() and not list(folder.glob("*.bin"))
        cfg = json.loads((folder / "config.json").read_text())
        assert cfg["model_type"] == arch.model_type and cfg["hidden_size"] == 32
        assert cfg.get("architectures") == (list(arch.architectures) if arch.architectures else None)
    # the settings that change code paths are the real ones: DeBERTa-v3 has relative positions only
    v3 = json.loads((root / "OpenAssistant/reward-model-deberta-v3-large-v2/config.json").read_text())
    assert v3["position_biased_input"] is False and v3["relative_attention"] is True and len(v3["id2label"]) == 1
    # microsoft/deberta-v3-large ships spm.model only: transformers converts it on load (as with the real one)
    assert sorted(
        p.name for p in (root / "microsoft/deberta-v3-large").iterdir() if "token" in p.name or "spm" in p.name
    ) == ["special_tokens_map.json", "spm.model", "tokenizer_config.json"]


@SLOW
def test_the_paper_reward_models_load_through_the_project_loader_and_score_on_cpu(offline):
    import pluralign.rewards as R

    seen = set()
    for key, kw in paper_models().items():
        if "name_or_path" not in kw:
            continue  # an LLM endpoint
        kw = dict(kw)
        rm = R.load(**kw)  # the paper's 8-bit Llama loads in 8-bit on the CPU too (bitsandbytes' CPU backend)
        if kw.get("load_in_8bit"):
            assert "8-bit weights" in R.describe_loading(rm), key
        assert Path(rm.name_or_path).is_relative_to(offline), key  # read from the mirror, not the Hub
        if kw["name_or_path"].startswith("OpenAssistant/reward-model-deberta") and kw.get("max_length", 0) is None:
            assert rm.max_length is None  # relative positions only: no truncation, as SEAL scored them
        s = [float(x) for x in rm.score(TEXTS)]
        assert all(math.isfinite(x) for x in s) and max(s) - min(s) > 1e-3, (key, s)  # not a constant
        seen.add(kw["name_or_path"])
    assert {
        "OpenAssistant/reward-model-deberta-v3-large",
        "OpenAssistant/reward-model-deberta-v3-large-v2",
        "microsoft/deberta-v3-large",
        "meta-llama/Meta-Llama-3-8B-Instruct",
    } <= seen


@SLOW
def test_the_other_reward_models_of_the_profile_load_and_score(offline):
    import pluralign.rewards as R

    for hub_id in (
        "OpenAssistant/reward-model-electra-large-discriminator",
        "OpenAssistant/reward-model-deberta-v3-base",
    ):
        rm = R.load(hub_id, kind="seq-cls", max_length=512)
        assert type(rm).__name__ == "SequenceClassificationRM"
        s = [float(x) for x in rm.score(TEXTS)]
        assert max(s) - min(s) > 1e-3, (hub_id, s)


@SLOW
def test_the_llama_stand_in_generates_and_judges_with_the_llama3_tokenizer_family(offline):
    from transformers import AutoTokenizer

    folder = offline / "meta-llama/Meta-Llama-3-8B-Instruct"
    tok = AutoTokenizer.from_pretrained(folder)
    assert tok.pad_token is None and tok.eos_token == "<|eot_id|>" and tok.bos_token == "<|begin_of_text|>"
    chat = tok.apply_chat_template([{"role": "user", "content": "Hi"}], tokenize=False, add_generation_prompt=True)
    assert (
        chat == "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    llm = pluralign.llm.load("meta-llama/Meta-Llama-3-8B-Instruct")
    assert llm.path == str(folder)
    out = llm.generate(
        ["Which answer is better?", "Hi", "Label the causes as JSON."], max_tokens=5, temperature=1.0, n=8, seed=0
    )  # sampled: greedy answers of the stand-in mostly end at once (EOS lift)
    assert all(isinstance(t, str) for o in out for t in o) and any(t for o in out for t in o)
    p = llm.judge_ab("Which is better?", "Paris.", "London.")
    assert 0.0 < p < 1.0


@SLOW
def test_each_data_set_loads_from_the_mirror_with_the_canonical_columns(offline):
    for hub_id, (_, (name, calls)) in RD.DATASETS.items():
        for kw in calls:
            d = pluralign.load(name, **kw)
            assert {"pair_id", "dataset", "split", "prompt", "response_a", "response_b"} <= set(d.pairs.columns)
            assert len(d.pairs) >= ROWS // 2 and len(d.annotations) >= len(d.pairs), (hub_id, kw)
            assert d.pairs["pair_id"].is_unique
            assert d.meta["source"] == f"hf://datasets/{hub_id}", (hub_id, d.meta["source"])
            if "split" in kw:
                assert set(d.pairs["split"]) == {kw["split"]}, (hub_id, kw)
    multi = pluralign.load("multipref")
    assert set(multi.annotations["annotator_group"]) == {"normal", "expert"}
    hs = pluralign.load("helpsteer2", subset="disagreements")
    assert hs.annotations.groupby("pair_id").size().eq(3).all()  # every annotator's score is kept
    # the paper profile holds out 500 test + 500 validation pairs of each (params/paper/diverging-study.yml)
    from pluralign.data.spec import split

    for d in (multi, hs):
        train, _ = split(split(d, 500)[0], 500)
        assert len(train.pairs) >= 100


@SLOW
def test_hh_rlhf_test_rows_are_the_real_shared_rows(offline, shared_data):
    real = gzip.decompress((shared_data / "hh-rlhf" / "harmless-base-test.jsonl.gz").read_bytes()).decode().split("\n")
    written = gzip.decompress((offline / "Anthropic/hh-rlhf/harmless-base/test.jsonl.gz").read_bytes()).decode()
    assert written.split("\n")[:ROWS] == [json.dumps(json.loads(s), ensure_ascii=False) for s in real[:ROWS]]
    d = pluralign.load("hh-rlhf", data_dir="harmless-base", split="test")
    assert len(d.pairs) == max(ROWS, RD.MIN_ROWS.get("Anthropic/hh-rlhf", 0))  # the profile's minimum where larger


@SLOW
def test_the_generator_is_deterministic(tmp_path):
    for hub_id in ("OpenAssistant/reward-model-deberta-v3-large-v2", "meta-llama/Meta-Llama-3-8B-Instruct"):
        a, b = RH.build_model(hub_id, tmp_path / "a"), RH.build_model(hub_id, tmp_path / "b")
        for f in sorted(p.name for p in a.iterdir()):
            assert (a / f).read_bytes() == (b / f).read_bytes(), (hub_id, f)
        c = RH.build_model(hub_id, tmp_path / "c", seed=1)
        assert (c / "model.safetensors").read_bytes() != (a / "model.safetensors").read_bytes()
    for hub_id in ("allenai/multipref", "Anthropic/hh-rlhf"):
        a, b = RD.build_dataset(hub_id, tmp_path / "a", rows=10), RD.build_dataset(hub_id, tmp_path / "b", rows=10)
        files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
        assert files and files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
        assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files), hub_id


def test_an_unknown_id_is_refused_by_name_before_anything_is_written(tmp_path):
    with pytest.raises(RH.RehearsalError, match="'acme/mystery-7b'.*MODELS"):
        RH.build_model("acme/mystery-7b", tmp_path)
    with pytest.raises(RH.RehearsalError, match="'acme/mystery-data'.*DATASETS"):
        RD.build_dataset("acme/mystery-data", tmp_path)
    with pytest.raises(RH.RehearsalError, match="'acme/mystery-7b'"):
        RH.build_mirror(
            tmp_path / "m",
            ids={"models": ["OpenAssistant/reward-model-deberta-v3-base", "acme/mystery-7b"], "datasets": []},
        )
    assert not (tmp_path / "m").exists()


def test_the_command_writes_the_mirror_and_says_how_to_use_it(tmp_path, monkeypatch, capsys):
    from pluralign.book import cli

    monkeypatch.setattr(
        "pluralign.book.hub_ids.profile_ids",
        lambda profile: {"models": [], "datasets": ["Dahoas/synthetic-instruct-gptj-pairwise"], "endpoints": []},
    )
    assert cli.main(["mirror", "rehearsal", str(tmp_path / "m"), "--rows", "5"]) == 0
    out = capsys.readouterr().out
    assert f"PLURALIGN_MIRROR={tmp_path / 'm'}" in out and "Dahoas/synthetic-instruct-gptj-pairwise" in out
    assert (tmp_path / "m/Dahoas/synthetic-instruct-gptj-pairwise/data/train-00000-of-00001.parquet").exists()
    monkeypatch.setattr(
        "pluralign.book.hub_ids.profile_ids",
        lambda profile: {"models": ["acme/mystery-7b"], "datasets": [], "endpoints": []},
    )
    assert cli.main(["mirror", "rehearsal", str(tmp_path / "n")]) == 1
    assert "'acme/mystery-7b'" in capsys.readouterr().err


@SLOW
def test_the_llama_stand_in_ends_its_answers_like_a_chat_model(offline):
    """A random Llama never samples <|eot_id|>: every request would run to max_tokens. The stand-in's end tokens
    get a constant logit lift, so most answers end well before the limit (greedy and sampled)."""
    llm = pluralign.llm.load("meta-llama/Meta-Llama-3-8B-Instruct")
    prompts = [TEXTS[i % 4][0] * (1 + i) for i in range(8)]
    comps = [c for p in prompts for t in (0.0, 1.0) for c in llm.complete(p, max_tokens=128, temperature=t, seed=1)]
    ended = [c.finish_reason == "stop" for c in comps]
    assert sum(ended) >= 0.75 * len(comps), [len(c.tokens) for c in comps]


@SLOW
def test_pages_computed_on_a_rehearsal_mirror_carry_the_banner_decided_from_the_data(mirror, tmp_path):
    """The rule: the mirror in use (PLURALIGN_MIRROR) holds REHEARSAL.json or a rehearsal sidecar -> banner after
    the page title; a real mirror, or none, -> no banner."""
    import nbformat

    from pluralign.book import page_notes

    root, _ = mirror
    assert page_notes.rehearsal_mirror(root)
    assert not page_notes.rehearsal_mirror(None) and not page_notes.rehearsal_mirror(tmp_path)
    real = tmp_path / "real"
    (real / "meta-llama" / "Meta-Llama-3-8B-Instruct").mkdir(parents=True)
    (real / "meta-llama" / "Meta-Llama-3-8B-Instruct" / "config.json").write_text("{}")
    assert not page_notes.rehearsal_mirror(real)  # a downloaded mirror: no banner
    side = tmp_path / "sidecar-only" / "allenai" / "multipref"
    side.mkdir(parents=True)
    (side / RH.SIDECAR).write_text("{}")
    assert page_notes.rehearsal_mirror(tmp_path / "sidecar-only")  # the index deleted: the sidecars still tell

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("x = 1"),
            nbformat.v4.new_markdown_cell("(label)=\n# The title\n\nProse."),
            nbformat.v4.new_code_cell("study"),
        ]
    )
    assert page_notes.insert_rehearsal_banner(nb, "paper")
    banner = nb.cells[2]
    assert banner.cell_type == "markdown" and banner.source.startswith(":::{warning}")
    assert "Paper profile — rehearsal on random-weight models; numbers are meaningless" in banner.source
    assert not page_notes.insert_rehearsal_banner(nb, "paper") and len(nb.cells) == 4  # once


@SLOW
def test_the_runner_inserts_the_banner_when_the_mirror_in_use_is_a_rehearsal(mirror, tmp_path, monkeypatch):
    """Through execution.execute on a one-cell notebook: with PLURALIGN_MIRROR at the rehearsal mirror the executed
    page has the banner (and says so in its metadata), without it none."""
    import nbformat

    from pluralign.book import execution, manifest_plan

    root, _ = mirror
    src = tmp_path / "page.py"
    src.write_text('# %% tags=["parameters"]\nprofile = "paper"\n\n# %% [markdown]\n# # A page\n\n# %%\nprint(1)\n')
    params = tmp_path / "page.yml"
    params.write_text("profile: paper\n")
    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path / "cache"))
    for mirror_dir, expect in ((root, True), (None, False)):
        if mirror_dir is None:
            monkeypatch.delenv("PLURALIGN_MIRROR", raising=False)
        else:
            monkeypatch.setenv("PLURALIGN_MIRROR", str(mirror_dir))
        out = tmp_path / f"out-{expect}.ipynb"
        execution.execute(
            manifest_plan.Run("page", str(params), "paper", path=str(src)), output=out, cwd=tmp_path, book_cache=False
        )
        nb = nbformat.read(out, as_version=4)
        has = [c for c in nb.cells if "pluralign-rehearsal" in c.metadata.get("tags", [])]
        assert bool(has) is expect and nb.metadata["pluralign"]["rehearsal"] is expect
        if expect:
            assert nb.cells.index(has[0]) == 1 + next(
                i for i, c in enumerate(nb.cells) if c.source.startswith("# A page")
            )


def test_out_dir_places_pages_toc_and_html_apart_from_the_profiles_own(tmp_path):
    from pluralign.book import contents, errors, manifest_plan

    rs = manifest_plan.runs(
        "paper", "intro", out_dir=manifest_plan.out_folder(manifest_plan.ROOT / "book/_executed/rehearsal")
    )
    assert rs[0].output == manifest_plan.ROOT / "book/_executed/rehearsal/intro.ipynb"
    assert rs[0].docname == "book/_executed/rehearsal/intro"
    toc = contents.toc("paper", out_dir="book/_executed/rehearsal")
    assert toc["root"] == "book/_executed/rehearsal/intro"
    assert all(
        c["file"].startswith(("book/_executed/rehearsal/", "book/")) for p in toc["parts"] for c in p["chapters"]
    )
    assert not any("_executed/paper" in c["file"] for p in toc["parts"] for c in p["chapters"])
    with pytest.raises(errors.BookError, match="inside the project"):
        manifest_plan.out_folder(tmp_path)


@SLOW
def test_seal_similarity_model_bge_m3_is_listed_and_embeds_from_the_mirror(offline):
    """SEAL App. D.7's BGE-m3 (the paper profile's similarity_model) is an id of the profile and, from the mirror,
    a sentence-transformers model (CLS pooling, normalized) that pluralign.embed loads offline."""
    from pluralign import embed

    assert "BAAI/bge-m3" in profile_ids("paper")["models"]
    assert embed.resolve_model("BAAI/bge-m3") == str(offline / "BAAI/bge-m3")
    cos = embed.cosine_pairs(
        ["a cat sat on the mat", "hello"], ["a cat sat on the mat", "goodbye"], model="BAAI/bge-m3"
    )
    assert cos[0] == pytest.approx(1.0, abs=1e-5) and -1.0 <= cos[1] < 1.0
