"""Shared fixtures.

``shared_data``: the real files of ``../shared/data`` (or ``$PLURALIGN_SHARED_DATA``). Missing →
the test is skipped on a developer machine but *fails* in CI (``CI=true``), as the brief requires.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# No test reaches the Hub. huggingface_hub and datasets read their offline switches once, when imported — for some
# test modules that is at collection, before any fixture runs — so they are set here as well as per test below
# (without this, a Hub lookup after collection waits for network timeouts: 24 s per test, measured).
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
os.environ.update(OFFLINE)


def shared_data_dir() -> Path:
    return Path(os.environ.get("PLURALIGN_SHARED_DATA", ROOT.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if not (path / "README.md").exists():
        msg = f"real data folder {path} is missing (set PLURALIGN_SHARED_DATA)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own cache folder unless it sets PLURALIGN_CACHE itself."""
    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path_factory.mktemp("cache")))
    for key, value in OFFLINE.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def validations(monkeypatch):
    """``validations(cls)``: a list that grows by one each time the settings class ``cls`` validates a value
    (``model_validate``), for the tests that a page's settings are built once."""

    def count(cls) -> list:
        built: list = []
        real = cls.model_validate.__func__
        monkeypatch.setattr(cls, "model_validate", classmethod(lambda c, *a, **k: built.append(1) or real(c, *a, **k)))
        return built

    return count
