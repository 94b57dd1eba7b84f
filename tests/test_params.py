"""Parameter files: common.yml deep-merged under includes and the page's own keys; undeclared keys refused."""

from pathlib import Path

import pytest
import yaml

from pluralign import params as P
from pluralign.book import errors, execution, manifest_plan
from pluralign.credentials import looks_like_secret

ROOT = Path(__file__).resolve().parents[1]

NOTEBOOK = """# %% tags=["parameters"]
profile = "demo"
seed = 0
design = {"n": 1, "model": {"lr": 0.1, "epochs": 2}}
columns = {}

# %%
print(design)
"""


def _write(folder: Path, **files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name.replace("__", ".")).write_text(yaml.safe_dump(content) if isinstance(content, dict) else content)


def test_common_include_and_page_deep_merge_in_that_order(tmp_path):
    _write(
        tmp_path,
        common__yml={"profile": "sample", "seed": 3, "design": {"n": 5, "model": {"lr": 1.0}}},
        **{"shared__yml": {"design": {"model": {"epochs": 9}}}},
        page__yml={"include": "shared.yml", "design": {"n": 7}},
    )
    got = P.read_params(tmp_path / "page.yml")
    assert got == {"profile": "sample", "seed": 3, "design": {"n": 7, "model": {"lr": 1.0, "epochs": 9}}}


def test_an_undeclared_key_names_the_file_the_key_and_the_nearest_name(tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text(NOTEBOOK)
    _write(tmp_path, **{"shared__yml": {"colums": {"a": "b"}}}, page__yml={"include": "shared.yml", "seed": 1})
    with pytest.raises(P.ParamsError) as e:
        P.read_params(tmp_path / "page.yml", nb)
    msg = str(e.value)
    assert str(tmp_path / "shared.yml") in msg and "'colums'" in msg and "did you mean 'columns'" in msg


def test_common_keys_reach_only_the_notebooks_that_declare_them(tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text(NOTEBOOK)
    _write(
        tmp_path,
        common__yml={"profile": "paper", "seed": 0, "models": {"rm": {"name_or_path": "x/y"}}},
        page__yml={"seed": 2},
    )
    got = P.read_params(tmp_path / "page.yml", nb)
    assert got == {"profile": "paper", "seed": 2}


def test_a_yaml_error_names_the_file(tmp_path):
    (tmp_path / "bad.yml").write_text("a: [1, 2\n")
    with pytest.raises(P.ParamsError, match="bad.yml: not valid YAML"):
        P.read_params(tmp_path / "bad.yml")


def test_a_secret_value_is_refused_and_a_key_variable_name_is_not(tmp_path):
    _write(tmp_path, page__yml={"llm": {"api_key": "sk-abc"}})
    with pytest.raises(P.ParamsError, match="secret"):
        P.read_params(tmp_path / "page.yml")
    _write(tmp_path, page__yml={"llm": {"api_key_env": "OPENAI_API_KEY"}})
    assert P.read_params(tmp_path / "page.yml")["llm"]["api_key_env"] == "OPENAI_API_KEY"


@pytest.mark.parametrize("profile", manifest_plan.PROFILES)
def test_every_page_of_every_profile_has_only_declared_keys(profile):
    for r in manifest_plan.runs(profile):
        params = P.read_params(ROOT / r.params, r.source)
        assert params["profile"] == profile, f"{r.params}: profile {params['profile']!r}"


def _includes(f: Path) -> list[Path]:
    inc = (yaml.safe_load(f.read_text()) or {}).get("include") or []
    return [(f.parent / g).resolve() for g in ([inc] if isinstance(inc, str) else inc)]


def test_every_parameter_file_is_read_by_the_manifest_an_include_or_as_common():
    m = manifest_plan.manifest()
    todo = [(ROOT / f).resolve() for runs in m["profiles"].values() for files in runs.values() for f in files]
    reached = set(todo) | {p.resolve() for p in (ROOT / "params").glob("*/common.yml")}
    while todo:
        for g in _includes(todo.pop()):
            if g not in reached:
                reached.add(g)
                todo.append(g)
    unread = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "params").rglob("*.yml") if p.resolve() not in reached)
    assert unread == [], f"parameter files no page reads: {unread}"


def test_a_run_with_an_unknown_key_fails_naming_file_and_key(tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "nb.py").write_text(NOTEBOOK)
    _write(root / "params" / "demo", common__yml={"profile": "demo", "seed": 0}, nb__yml={"sed": 1})
    monkeypatch.setattr(manifest_plan, "ROOT", root)
    with pytest.raises(errors.BookError, match=r"nb\.yml: unknown parameter 'sed'.*did you mean 'seed'"):
        execution.execute(manifest_plan.Run("nb", "params/demo/nb.yml", "demo"))


@pytest.mark.parametrize("profile", manifest_plan.PROFILES)
def test_every_common_key_is_declared_by_a_notebook_of_its_profile(profile):
    common = yaml.safe_load((ROOT / "params" / profile / "common.yml").read_text())
    declared = set().union(
        *[set(P.page_cell(ROOT / "notebooks" / f"{r.notebook}.py").declared) for r in manifest_plan.runs(profile)]
    )
    assert sorted(set(common) - declared) == [], f"params/{profile}/common.yml holds keys no notebook declares"


@pytest.mark.parametrize(
    "value", ["sk-proj-abcdefghijklmnopqrstu", "hf_abcdefghijklmnopqrstuvwxyz", "a8Fk29XkqLmZ02PqTr7vYw3NbC5dEe1GhJ"]
)
def test_a_secret_looking_value_under_any_key_is_refused_naming_the_key(tmp_path, value):
    _write(tmp_path, page__yml={"judge": {"settings": {"whatever": value}}})
    with pytest.raises(P.ParamsError) as e:
        P.read_params(tmp_path / "page.yml")
    assert "judge.settings.whatever" in str(e.value) and "environment" in str(e.value) and value not in str(e.value)


def test_a_number_under_a_key_that_names_a_secret_word_is_no_secret(tmp_path):
    """A reward model's ``token_budget`` (tokens per scoring batch) is a number, not a token: it is accepted, while
    text under a key that names a secret is still refused."""
    nb = ROOT / "notebooks" / "diverging_rewards.py"
    (tmp_path / "page.yml").write_text("reward_model: {token_budget: 4096}\n")
    assert P.read_params(tmp_path / "page.yml", nb)["reward_model"] == {"token_budget": 4096}
    (tmp_path / "page.yml").write_text("reward_model: {hf_token: abc}\n")
    with pytest.raises(P.ParamsError, match="reward_model.hf_token' looks like a secret"):
        P.read_params(tmp_path / "page.yml", nb)


@pytest.mark.parametrize("key", ["tokenizer", "tokens_per_batch", "secretary", "passwordless_mode"])
def test_text_under_a_key_that_only_contains_a_secret_word_is_no_secret(tmp_path, key):
    """A key names a secret when the secret word is a word of it (``hf_token``, ``API_KEY``), not a part of another
    word: a tokenizer's name is text under ``tokenizer``, and is accepted."""
    (tmp_path / "page.yml").write_text(f"judge: {{{key}: meta-llama/Meta-Llama-3-8B}}\n")
    assert P.read_params(tmp_path / "page.yml")["judge"] == {key: "meta-llama/Meta-Llama-3-8B"}
    for secret in ("hf_token", "API_KEY", "openai-api-key", "db_password", "secrets", "token"):
        (tmp_path / "page.yml").write_text(f"judge: {{{secret}: abc}}\n")
        with pytest.raises(P.ParamsError, match=f"judge.{secret}' looks like a secret"):
            P.read_params(tmp_path / "page.yml")


@pytest.mark.parametrize(
    "value",
    [
        "meta-llama/Meta-Llama-3-70B-Instruct",
        "https://api.openai.com/v1",
        "0123456789abcdef0123456789abcdef",
        "btb-margins-paper",
    ],
)
def test_ids_urls_and_hashes_are_not_taken_for_secrets(value):
    assert not looks_like_secret(value)


def test_an_include_outside_the_parameter_files_folder_is_refused(tmp_path):
    (tmp_path / "outside.yml").write_text("seed: 1\n")
    _write(tmp_path / "conf", page__yml={"include": "../outside.yml"})
    with pytest.raises(P.ParamsError, match="lies outside"):
        P.read_params(tmp_path / "conf" / "page.yml")


def test_a_value_of_the_wrong_type_names_file_key_and_expected_type(tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text(NOTEBOOK)
    _write(tmp_path, page__yml={"seed": "zero"})
    with pytest.raises(P.ParamsError, match=r"page\.yml: parameter 'seed' is str 'zero', but the notebook expects int"):
        P.read_params(tmp_path / "page.yml", nb)
    _write(tmp_path, page__yml={"design": {"n": 2}, "seed": 3})
    assert P.read_params(tmp_path / "page.yml", nb)["seed"] == 3


@pytest.mark.parametrize("value,ok", [(3, True), (True, False), (2.5, False), ("3", False)])
def test_an_int_parameter_takes_an_int_and_no_bool(tmp_path, value, ok):
    nb = tmp_path / "nb.py"
    nb.write_text(NOTEBOOK)
    _write(tmp_path, page__yml={"seed": value})
    call = lambda: P.read_params(tmp_path / "page.yml", nb)  # noqa: E731
    if ok:
        assert call()["seed"] == value
    else:
        with pytest.raises(P.ParamsError, match="expects int"):
            call()


def test_the_parameters_beside_the_settings_are_typed_once():
    """Every parameter a notebook's cell declares beside ``settings`` is a field of
    :class:`pluralign.params.Parameters`, so each is typed (a page of a part: profile, seed and models)."""
    for nb in (ROOT / "notebooks").glob("*.py"):
        beside = {p.name for p in P.cell_parameters(nb)} - {P.SETTINGS}
        assert beside <= set(P.Parameters.model_fields), nb.name


def test_a_misspelt_reward_model_keyword_is_refused_when_the_file_is_read(tmp_path):
    """A reward model is load keywords (pluralign.model_options.ModelOptions): a typo in one is an error naming the
    parameter file and the nearest keyword, before any page runs."""
    (tmp_path / "page.yml").write_text("reward_model: {heda: mlp}\n")
    nb = ROOT / "notebooks" / "diverging_rewards.py"
    with pytest.raises(
        P.ParamsError, match=r"page\.yml: .*reward_model: unknown key\(s\) \['heda'\]; did you mean 'head'"
    ):
        P.read_params(tmp_path / "page.yml", notebook=nb)
    (tmp_path / "page.yml").write_text("reward_model: {head: mlp}\n")
    assert P.read_params(tmp_path / "page.yml", notebook=nb)["reward_model"] == {"head": "mlp"}
