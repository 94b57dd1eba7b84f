"""``pluralign score``: score a preference data set with any reward model, no notebook needed.

    pluralign score [--model NAME_OR_PATH] --data NAME [--source PATH] [--option KEY=VALUE ...]
                    --out FILE.parquet [--batch-size N] [--max-length N] [--truncation-side left|right]

No ``--model``: the embedded default (all-MiniLM-L6-v2 frozen encoder + head). ``--data simulate``
scores the project's simulator (``--option n_pairs=200 --option seed=0``). Scores are computed in
chunks cached by :mod:`pluralign.cache`: a killed run loses only its current chunk, and a re-run
recomputes nothing. The output has one row per pair: ``pair_id, reward_a, reward_b, p_a`` (and
``sigma_a, sigma_b`` for a mean-variance RM).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import yaml


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pluralign score", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=None, help="Hub id or local folder (default: the embedded MiniLM model)")
    p.add_argument("--kind", default=None, help="force a backend: seq-cls, causal, frozen-encoder, finetune")
    p.add_argument("--data", required=True, help="registered data set name (see pluralign.data), or 'simulate'")
    p.add_argument("--source", default=None, help="local file or folder instead of the Hub")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="loader option (value parsed as YAML), repeatable")
    p.add_argument("--out", required=True, help="output .parquet file")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-length", type=int, default=512)
    p.add_argument("--truncation-side", default="left", choices=["left", "right"])
    p.add_argument("--trust-remote-code", action="store_true", help="allow the model's own code (off by default)")
    p.add_argument("--load-in-8bit", action="store_true", help="8-bit weights (bitsandbytes, CUDA GPU only)")
    p.add_argument("--device", default=None)
    p.add_argument("--no-progress", action="store_true")
    return p


def _options(items: list[str]) -> dict:
    out = {}
    for it in items:
        if "=" not in it:
            raise SystemExit(f"pluralign score: --option {it!r} must be KEY=VALUE")
        k, v = it.split("=", 1)
        out[k.strip()] = yaml.safe_load(v)
    return out


def load_data(name: str, source=None, **options):
    """``simulate`` → :func:`pluralign.data.simulate`; anything else → :func:`pluralign.data.load`."""
    import pluralign.data as data
    if name == "simulate":
        return data.simulate(**options)
    return data.load(name, source=source, **options)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    out = Path(args.out)
    if out.suffix != ".parquet":
        print(f"pluralign score: --out must end in .parquet, got {out}", file=sys.stderr)
        return 2
    from pluralign.rewards import load
    t0 = time.perf_counter()
    try:
        data = load_data(args.data, args.source, **_options(args.option))
    except (ValueError, OSError, KeyError) as e:
        print(f"pluralign score: cannot load data {args.data!r}: {e}", file=sys.stderr)
        return 2
    try:
        rm = load(args.model, kind=args.kind, max_length=args.max_length, truncation_side=args.truncation_side,
                  trust_remote_code=args.trust_remote_code, load_in_8bit=args.load_in_8bit, device=args.device,
                  batch_size=args.batch_size)
    except (ValueError, OSError, RuntimeError) as e:
        print(f"pluralign score: cannot load model {args.model or '(embedded default)'!r}: {e}", file=sys.stderr)
        return 2
    progress = not args.no_progress
    if rm.n_outputs == 2:
        df = rm.predict(data, batch_size=args.batch_size, progress=progress).rename(
            columns={"mu_a": "reward_a", "mu_b": "reward_b"})
    else:
        df = rm.score(data, batch_size=args.batch_size, progress=progress)
        from pluralign.rewards.objectives import logistic
        df["p_a"] = logistic(df["reward_a"] - df["reward_b"])
    df.attrs = {}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, out)
    print(f"pluralign score: {len(df)} pairs ({data.name}) scored with {rm.identity} -> {out} "
          f"in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
