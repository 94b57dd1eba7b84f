"""Data from a parameter file, and deterministic held-out splits.

A notebook's data parameter is a plain dict, so papermill / YAML can carry it:

- ``{"simulate": {"n_pairs": 2000, "seed": 0, "annotation_format": "multipref"}}`` → :func:`simulate`;
- ``{"name": "pandalm"}``, ``{"name": "hh-rlhf", "source": "path/to/test.jsonl.gz", "limit": 500}``
  (a source starting ``shared:`` is relative to the shared data folder, ``$PLURALIGN_SHARED_DATA`` or
  ``../shared/data``),
  ``{"name": "local", "source": ..., "columns": {...}, "labels": {...}}`` → :func:`load`.
"""

from __future__ import annotations

import hashlib
from typing import Literal

import numpy as np
from pydantic import ConfigDict, Field, model_validator

from pluralign.data.core import PreferenceData
from pluralign.settings import Arguments, setting


class SimulateOptions(Arguments):
    """The keywords of :func:`pluralign.data.simulate` a simulator spec gives (None: the simulator's default)."""

    n_pairs: int | None = setting(None, "pairs", gt=0)
    seed: int | None = setting(None, "the population's seed")
    annotation_format: Literal["multipref", "helpsteer2"] | None = setting(None, "A/B labels or Likert scores")
    n_annotators: int | None = setting(None, "annotators per pair", gt=0)
    n_pool: int | None = setting(None, "annotators in the pool", gt=0)
    mix: dict[str, float] | None = setting(None, "share of pairs per plan")
    weights: dict[str, list[float]] | None = setting(None, "{feature: [mean, sd]} of the population's weights")
    detect: float | None = setting(None, "how often an annotator notices a feature")
    noise: float | None = setting(None, "annotators' utility noise", ge=0)
    tie: float | None = setting(None, "the utility gap read as a tie", ge=0)
    significant: float | None = setting(None, "the gap read as a significant preference", ge=0)
    likert_center: float | None = setting(None, "the Likert scale's centre")
    likert_scale: float | None = setting(None, "the Likert scale's spread", gt=0)
    likert_noise: float | None = setting(None, "the Likert scores' noise", ge=0)
    n_monte_carlo: int | None = setting(None, "draws of the population share", gt=0)
    split: str | None = setting(None, "the split name recorded")
    name: str | None = setting(None, "the data set's name")
    match_pool: bool | None = setting(None, "moment-match the pool to the population")


class DataSpec(Arguments):
    """One data set as a parameter file names it (:func:`pluralign.data.load`): a registered name, Hub id or
    ``local`` with its ``source`` and the loader's options, or a simulator spec (``simulate``). The loader's own
    options beyond those named here are checked by the loader, naming the nearest valid one."""

    model_config = ConfigDict(extra="allow")

    name: str | None = setting(None, "a registered data set, a Hub id, or 'local'")
    source: str | None = setting(None, "a local file or folder (shared:... under the shared data folder)")
    simulate: SimulateOptions | None = setting(None, "simulator options (pluralign.data.simulate)")
    limit: int | None = setting(None, "the first n pairs only", gt=0)
    on_invalid: Literal["error", "drop"] | None = setting(None, "a malformed row: an error, or dropped (recorded)")

    @model_validator(mode="after")
    def _one_source(self):
        if (self.name is None) == (self.simulate is None):
            raise ValueError("a data spec needs exactly one of 'name' (a data set) and 'simulate' (simulator options)")
        return self


class OodBy(Arguments):
    """Pairs held out as out-of-domain by a truth (or pairs) column: those whose ``column`` takes one of
    ``values`` (Beyond the Binary Tables 1-2's out-of-domain data sets, in a simulated population)."""

    column: str = Field(description="the truth or pairs column")
    values: list[str | int | float] = Field(min_length=1, description="the values that make a pair out-of-domain")


def as_spec(spec) -> dict:
    """A data spec as the plain mapping :func:`pluralign.data.load` takes (a :class:`DataSpec` dumped)."""
    return spec.model_dump() if isinstance(spec, DataSpec) else spec


def population_seed(spec_seed: int, seed: int) -> int:
    """The simulator seed a ``{"simulate": {..., "seed": spec_seed}}`` spec draws with in a study of seed ``seed``:
    seed 0 keeps the spec's own seed (the book's population); any other seed gives a fresh population, derived
    from both (``numpy.random.SeedSequence([spec_seed, seed])``), so two specs of one study stay distinct and the
    same spec in two parts of one study (Part IV reusing Part I's pairs) stays the same."""
    if not int(seed):
        return int(spec_seed)
    return int(np.random.SeedSequence([int(spec_seed), int(seed)]).generate_state(1)[0])


def reseeded(spec: dict, seed: int) -> dict:
    """``spec`` with its simulator seed replaced by :func:`population_seed` (a spec that does not simulate is
    returned as it is)."""
    spec = as_spec(spec)
    if not isinstance(spec, dict) or "simulate" not in spec or not int(seed):
        return spec
    sim = dict(spec["simulate"] or {})
    return {**spec, "simulate": {**sim, "seed": population_seed(sim.get("seed", 0), seed)}}


def from_spec(spec: dict, seed: int = 0) -> PreferenceData:
    """Load or simulate the data a parameter dict describes (:func:`pluralign.data.load`); a simulator spec draws
    the population of study seed ``seed`` (:func:`reseeded`)."""
    from pluralign.data import load

    return load(dict(reseeded(spec, seed)))


def split(data: PreferenceData, test: int | float, seed: int = 0) -> tuple[PreferenceData, PreferenceData]:
    """(train, held-out) by pair, deterministic in ``seed`` and the pair ids (a pair's side does
    not depend on which other pairs are present). ``test``: a count (500 in Diverging Preferences)
    or a share. Both filters are recorded in ``meta['filters']``."""
    ids = data.pairs["pair_id"].astype(str).to_numpy()
    u = np.array(
        [int.from_bytes(hashlib.sha256(f"{seed}:{i}".encode()).digest()[:8], "big") for i in ids], dtype=np.uint64
    )
    order = np.argsort(u, kind="stable")
    n_test = int(round(test * len(ids))) if isinstance(test, float) and test < 1 else int(test)
    if not 0 < n_test < len(ids):
        raise ValueError(f"held-out size {test!r} must leave both sides non-empty ({len(ids)} pairs)")
    held = set(ids[order[:n_test]])
    train_ids = [i for i in ids if i not in held]
    return (
        data.subset(train_ids, reason=f"training split (seed {seed})"),
        data.subset([i for i in ids if i in held], reason=f"held-out split of {n_test} (seed {seed})"),
    )


def load_specs(specs, per_dataset: int | dict = 0, seed: int = 0):
    """Load every spec (:func:`from_spec`) and combine them: ``(combined, parts)``.

    A simulator spec draws the population of ``seed`` (:func:`reseeded`). ``per_dataset``: 0 = every pair; an
    int ``n`` = a random ``n`` pairs of each data set (the held-out side of :func:`split` with ``seed``, so
    deterministic); a dict = such a count per data set name (a name absent or 0 = every pair). A data set with at
    most ``n`` pairs is kept whole. One spec gives ``combined`` = that data set; none gives ``(None, [])``."""
    from pluralign.data import combine

    if isinstance(specs, (dict, DataSpec)):
        specs = [specs]
    parts = [from_spec(spec, seed) for spec in specs]
    if per_dataset:
        ns = [per_dataset.get(x.name, 0) if isinstance(per_dataset, dict) else per_dataset for x in parts]
        parts = [split(x, n, seed)[1] if n and len(x) > n else x for x, n in zip(parts, ns)]
    if not parts:
        return None, []
    return (combine(*parts) if len(parts) > 1 else parts[0]), parts
