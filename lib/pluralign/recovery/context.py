"""What the recovery's checks are computed from: the book pages whose studies each part's checks read
(:data:`PAGES`), a page's resolved parameters, a part's study as its page builds it, and the
:class:`RecoveryContext` that holds them (:func:`pluralign.recovery.demo.recovery_context` at the book's seed,
:func:`pluralign.recovery.study.population` at another)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

__all__ = ["PAGES", "page_params", "part_study", "book_seed", "RecoveryContext"]

#: the book page whose study each part's checks read (its parameters, its cache)
PAGES = {"diverging": "diverging_know", "seal": "seal_robustness", "btb": "btb_rewards"}


def page_params(notebook: str, profile: str = "demo") -> dict:
    """The resolved parameters of a book page (its first parameter file in ``manifest.yml`` for ``profile``)."""
    import yaml

    from pluralign.book.manifest_plan import ROOT
    from pluralign.params import read_params

    manifest = yaml.safe_load((Path(ROOT) / "manifest.yml").read_text())
    files = manifest["profiles"][profile].get(notebook)
    if not files:
        raise ValueError(f"manifest.yml has no parameter file for {notebook!r} on profile {profile!r}")
    return read_params(Path(ROOT) / files[0], Path(ROOT) / "notebooks" / f"{notebook}.py")


def part_study(part: str, profile: str = "demo", seed: int | None = None):
    """The study of ``part`` (diverging / seal / btb) as its page :data:`PAGES`\\ ``[part]`` builds it: every
    page parameter is a setting of the part's one ``setup`` signature; ``seed`` (default: the page's) draws
    another simulated population (:func:`pluralign.data.spec.reseeded`) and every seeded step with it."""
    params = page_params(PAGES[part], profile)
    if seed is not None:
        params["seed"] = int(seed)
    return importlib.import_module(f"pluralign.{part}").setup(**params)


@dataclass(frozen=True, eq=False)
class RecoveryContext:
    """What the demo table is computed from: the three parts' studies as their pages build them, the demo RM's
    rewards on its data set (``demo_rm``: rewards A, rewards B, data), its residual sd on the utility scale
    (``noise_sd``: the noisy oracle's noise) and the ``table`` itself."""

    diverging: object
    seal: object
    btb: object
    demo_rm: tuple
    noise_sd: float
    table: pd.DataFrame


def book_seed(profile: str = "demo") -> int:
    """The population seed of the book's pages (their parameter files' ``seed``)."""
    return int(page_params(PAGES["diverging"], profile)["seed"])
