"""Every Hub id a profile's pages use: ``pluralign mirror list`` prints them as download commands for a local mirror
(:mod:`pluralign.mirror`); ``pluralign mirror rehearsal DIR`` writes a rehearsal mirror of them
(:mod:`pluralign.book.rehearsal`)."""

from __future__ import annotations

from pathlib import Path

from pluralign.mirror import is_hub_id, mirror_dir

__all__ = ["profile_ids", "main"]


def profile_ids(profile: str = "paper") -> dict[str, list[str]]:
    """Every Hub id a profile's pages name: ``{"models": [...], "datasets": [...], "endpoints": [...]}``; models
    served behind an OpenAI-compatible endpoint are listed under ``endpoints`` (the server needs them, not
    pluralign)."""
    from pluralign.book import manifest_plan
    from pluralign.data.registry import resolve as resolve_dataset
    from pluralign.params import read_params

    models, datasets, endpoints = set(), set(), set()

    def walk(o):
        if isinstance(o, dict):
            served = "base_url" in o or o.get("backend") == "openai" or str(o.get("name", "")).startswith("openai:")
            for k, v in o.items():
                if k in ("name_or_path", "similarity_model") and is_hub_id(v):  # RMs, LLMs; SEAL's BGE-m3
                    models.add(str(v))
                elif k == "name" and isinstance(v, str):
                    if served:
                        endpoints.add(v.removeprefix("openai:"))
                    elif is_hub_id(v):
                        models.add(v)
                    else:
                        try:
                            hub = resolve_dataset(v).hub_id
                        except Exception:  # noqa: BLE001 - not a data set name
                            hub = None
                        if hub:
                            datasets.add(hub)
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    for r in manifest_plan.runs(profile):
        walk(read_params(manifest_plan.ROOT / r.params, r.source))
    return {"models": sorted(models), "datasets": sorted(datasets), "endpoints": sorted(endpoints)}


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="pluralign mirror", description="the Hub ids a profile needs, for a local mirror")
    sub = p.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list", help="print every model and data set id a profile uses")
    ls.add_argument("--profile", default="paper")
    sub.add_parser(
        "rehearsal",
        add_help=False,
        help="write a rehearsal mirror: tiny random-weight models and small data sets under every id",
    )
    argv = sys.argv[1:] if argv is None else argv
    a = p.parse_args(argv)  # ``rehearsal`` is dispatched to pluralign.book.rehearsal.main by the command line
    ids = profile_ids(a.profile)
    root = mirror_dir() or Path("$PLURALIGN_MIRROR")
    print(f"# Hub ids the '{a.profile}' profile uses; download each into {root}/<id>:")
    for m in ids["models"]:
        print(f"huggingface-cli download {m} --local-dir {root}/{m}")
    for d in ids["datasets"]:
        print(f"huggingface-cli download {d} --repo-type dataset --local-dir {root}/{d}")
    if ids["endpoints"]:
        print("# served behind OpenAI-compatible endpoints (the server needs them, not pluralign):")
        for e in ids["endpoints"]:
            print(f"#   {e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
