"""``pluralign score``: score preference data with a trained reward model, no notebook needed.

    pluralign score --model NAME_OR_PATH --data SOURCE [--source PATH] [--option KEY=VALUE ...]
                    --out FILE.parquet|.csv|.jsonl [--batch-size N] [--max-length N] [--truncation-side left|right]

``--model`` names a trained reward model: a Hub id (``OpenAssistant/reward-model-deberta-v3-large-v2``), a
local folder of a sequence-classification RM, or a folder written by ``RewardModel.train(..., output_dir=...)``.
``--data`` is anything :func:`pluralign.load` reads: a registered data set (``pandalm``, ``hh-rlhf`` with
``--source``), a Hub id, one's own file or folder (column mapping with ``--option columns={...}``), or
``simulate`` (``--option n_pairs=200``). Scores are computed in chunks cached by :mod:`pluralign.cache`:
a killed run loses only its current chunk, and a re-run recomputes nothing. The output has one row per pair:
``pair_id, reward_a, reward_b, p_a`` (``sigma_a, sigma_b`` for a mean-variance RM) and, where the data have
judgments, ``n_judgments``, ``majority`` and ``share_a``; the accuracy against the majority is printed with a
95% bootstrap interval.

``pluralign train`` (:func:`train_main`) trains a reward model for it. Both run data-parallel under
``accelerate launch --multi_gpu --num_processes N -m pluralign.rewards.cli score|train ...``
(:mod:`pluralign.rewards.distributed`): the processes share the work, the main process writes the output.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import typing
from pathlib import Path

import yaml

from pluralign.model_options import ModelOptions
from pluralign.train_options import TrainOptions

FORMATS = (".parquet", ".csv", ".jsonl")
NEEDS_MODEL = (
    "pluralign score needs a trained reward model: name it with --model, e.g.\n"
    "  --model OpenAssistant/reward-model-deberta-v3-large-v2   (a Hub id, or its local download)\n"
    "  --model path/to/folder                                   (a sequence-classification RM, or a\n"
    "                                                            model saved by RewardModel.train(output_dir=...))"
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pluralign score", description=__doc__.split("\n\n")[0])
    _model_arguments(p, "a trained reward model: Hub id or local folder (required)")
    _data_arguments(
        p, "what pluralign.load reads: a data set name, a Hub id, a file or folder of your own, or 'simulate'"
    )
    p.add_argument("--out", required=True, help="output file: .parquet, .csv or .jsonl")
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="most texts per scoring batch (default: 32 on CPU, the token budget on GPU)",
    )
    _loading_arguments(p)
    p.add_argument("--no-progress", action="store_true")
    return p


def _model_arguments(p: argparse.ArgumentParser, model_help: str) -> None:
    """``--model`` and ``--kind``: which reward model (:class:`pluralign.model_options.ModelOptions`)."""
    p.add_argument("--model", default=None, help=model_help)
    p.add_argument("--kind", default=None, help="force a backend: seq-cls, causal, frozen-encoder, finetune")


def _data_arguments(p: argparse.ArgumentParser, data_help: str) -> None:
    """``--data``, ``--source`` and ``--option``: the data, as :func:`load_data` reads them."""
    p.add_argument("--data", required=True, help=data_help)
    p.add_argument("--source", default=None, help="local file or folder for a registered data set")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="loader option (value parsed as YAML), repeatable",
    )


def _loading_arguments(p: argparse.ArgumentParser, *, lora: bool = False) -> None:
    """How the model is loaded (:class:`pluralign.model_options.ModelOptions`): truncation, ``--lora`` where the
    command trains, remote code, 8-bit or 4-bit weights, the device; a default is the options' own."""
    length, side = ModelOptions.model_fields["max_length"], ModelOptions.model_fields["truncation_side"]
    p.add_argument("--max-length", type=int, default=length.default, help=f"tokens per text (default {length.default})")
    p.add_argument(
        "--truncation-side",
        default=side.default,
        choices=typing.get_args(side.annotation),
        help=f"{side.description} (default {side.default})",
    )
    if lora:
        p.add_argument(
            "--lora", action="store_true", help="LoRA adapters on a causal LM (Diverging Preferences App. A)"
        )
    p.add_argument("--trust-remote-code", action="store_true", help="allow the model's own code (off by default)")
    q = p.add_mutually_exclusive_group()
    q.add_argument(
        "--load-in-8bit",
        action="store_true",
        help="8-bit weights (bitsandbytes LLM.int8(); on a CUDA GPU or, slower, on the CPU through bitsandbytes' "
        "CPU backend)",
    )
    q.add_argument("--load-in-4bit", action="store_true", help="4-bit NF4 weights (bitsandbytes; CUDA or CPU)")
    p.add_argument("--device", default=None)


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


def _data(args, command: str):
    """The data ``--data``, ``--source`` and ``--option`` name; None after saying why they cannot be loaded."""
    try:
        return load_data(args.data, args.source, **_options(args.option))
    except (ValueError, OSError, KeyError) as e:
        print(f"pluralign {command}: cannot load data {args.data!r}: {e}", file=sys.stderr)
        return None


def _model(args, command: str, **more):
    """The reward model the command line names (:func:`pluralign.rewards.load` with ``--model``, ``--kind``, the
    loading arguments, ``--lora`` where the command trains, and ``more`` of its keywords); None after saying why it
    cannot be loaded."""
    from pluralign.rewards import load

    options = ModelOptions(
        name_or_path=args.model,
        kind=args.kind,
        max_length=args.max_length,
        truncation_side=args.truncation_side,
        trust_remote_code=args.trust_remote_code,
        load_in_8bit=args.load_in_8bit,
        load_in_4bit=args.load_in_4bit,
        lora=getattr(args, "lora", False),
        device=args.device,
    )
    try:
        return load(**options.kwargs(), **more)
    except (ValueError, OSError, RuntimeError) as e:
        print(f"pluralign {command}: cannot load model {options.name_or_path!r}: {e}", file=sys.stderr)
        return None


def with_labels(scores, data):
    """The scores with each pair's judgments summarised: ``n_judgments``, ``majority`` (A / B / tie / split) and
    ``share_a`` (the empirical P(A ≻ B)); unchanged when the data carry no judgment."""
    if len(data.annotations) == 0:
        return scores
    labels = {"n_judgments": data.n_annotators(), "majority": data.majority(), "share_a": data.share_a()}
    out = scores.set_index("pair_id")
    for k, v in labels.items():
        out[k] = v.reindex(out.index)
    return out.reset_index()


def accuracy(scored) -> tuple[float, float, float, int] | None:
    """Share of pairs with a majority (A or B) on which ``p_a > ½`` picks it: (estimate, low, high, n) with a
    95% percentile-bootstrap interval; None without labelled pairs."""
    import numpy as np

    from pluralign.stats import N_BOOT, bootstrap_ci

    if "majority" not in scored:
        return None
    m = scored[scored["majority"].isin(["A", "B"])]
    if len(m) == 0:
        return None
    hit = ((m["p_a"] > 0.5) == (m["majority"] == "A")).to_numpy(dtype=float)
    est, lo, hi = bootstrap_ci(hit, np.mean, n_boot=N_BOOT, seed=0)
    return est, lo, hi, len(m)


def write(df, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    if out.suffix == ".parquet":
        df.to_parquet(tmp, index=False)
    elif out.suffix == ".csv":
        df.to_csv(tmp, index=False)
    else:
        df.to_json(tmp, orient="records", lines=True, force_ascii=False)
    os.replace(tmp, out)


def scores(rm, data, *, batch_size: int | None, progress: bool):
    """Each pair's ``reward_a``, ``reward_b`` and ``p_a``: σ(r_A − r_B) for a scalar reward model (Bradley-Terry);
    for a mean-variance RM its μ as the reward, its σ, and Φ((μ_A − μ_B)/√(σ_A² + σ_B²))
    (:meth:`pluralign.rewards.base.RewardModel.predict`)."""
    if rm.n_outputs == 2:
        return rm.predict(data, batch_size=batch_size, progress=progress).rename(
            columns={"mu_a": "reward_a", "mu_b": "reward_b"}
        )
    df = rm.score(data, batch_size=batch_size, progress=progress)
    from pluralign.rewards.objectives import logistic

    df["p_a"] = logistic(df["reward_a"] - df["reward_b"])
    return df


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    out = Path(args.out)
    if out.suffix not in FORMATS:
        print(f"pluralign score: --out must end in {', '.join(FORMATS)}, got {out}", file=sys.stderr)
        return 2
    if not args.model:
        print(NEEDS_MODEL, file=sys.stderr)
        return 2
    from pluralign.rewards import distributed

    t0 = time.perf_counter()
    data = _data(args, "score")
    if data is None:
        return 2
    rm = _model(args, "score", batch_size=args.batch_size)
    if rm is None:
        return 2
    if rm.backend in ("frozen-encoder", "finetune") and not rm.trained:
        print(
            f"pluralign score: {args.model!r} is an encoder with an untrained reward head: its scores would be a "
            f"random projection.\n{NEEDS_MODEL}",
            file=sys.stderr,
        )
        return 2
    try:
        df = scores(rm, data, batch_size=args.batch_size, progress=not args.no_progress)
    except KeyboardInterrupt:
        print(
            "\npluralign score: interrupted; the chunks scored so far are cached: run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    if not distributed.is_main():  # under accelerate launch every process holds the gathered scores: one writes
        return 0
    df.attrs = {}
    df = with_labels(df, data)
    write(df, out)
    print(
        f"pluralign score: {len(df)} pairs ({data.name}) scored with {rm.identity} -> {out} "
        f"in {time.perf_counter() - t0:.1f} s"
    )
    acc = accuracy(df)
    if acc:
        est, lo, hi, n = acc
        print(
            f"accuracy against the majority label: {est:.3f} [95% CI {lo:.3f}, {hi:.3f}] on {n} pairs with a majority"
        )
    return 0


def _train_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pluralign train", description=TRAIN_DOC.split("\n\n")[0])
    _model_arguments(
        p, "the base model: Hub id or local folder; default: the embedded MiniLM frozen encoder with a trainable head"
    )
    _data_arguments(p, "what pluralign.load reads (as for pluralign score)")
    p.add_argument("--out", required=True, help="folder the trained model is copied to (pluralign score --model it)")
    for name in TRAIN_OPTIONS:  # validated by TrainOptions; left out: its default
        field = TrainOptions.model_fields[name]
        p.add_argument(
            "--" + name.replace("_", "-"), default=None, help=f"{field.description}; default {field.default}"
        )
    _loading_arguments(p, lora=True)
    p.add_argument("--no-progress", action="store_true")
    return p


#: The fields of :class:`~pluralign.train_options.TrainOptions` ``pluralign train`` takes as arguments (an
#: argument left out is the option's default).
TRAIN_OPTIONS = ("objective", "labels", "epochs", "lr", "batch_size", "dropout", "seed")

TRAIN_DOC = """``pluralign train``: train a reward model on preference data, no notebook needed.

    pluralign train --model BASE --data SOURCE [--objective bt|bt-margin|mse|mean-variance] --out FOLDER

The training is :meth:`RewardModel.train` (cached: a re-run trains nothing); the trained model is copied to
``--out``, which ``pluralign score --model FOLDER`` reads. Under ``accelerate launch`` the same command trains
data-parallel (:mod:`pluralign.rewards.distributed`); ``--batch-size`` stays the global batch.
"""


def train_main(argv: list[str] | None = None) -> int:
    args = _train_parser().parse_args(sys.argv[1:] if argv is None else argv)
    from pluralign.rewards import distributed

    t0 = time.perf_counter()
    data = _data(args, "train")
    if data is None:
        return 2
    rm = _model(args, "train")
    if rm is None:
        return 2
    given = {name: getattr(args, name) for name in TRAIN_OPTIONS if getattr(args, name) is not None}
    try:
        options = TrainOptions.create(given, what="pluralign train", progress=not args.no_progress)
        trained = rm.train(data, options=options, output_dir=args.out)
    except ValueError as e:
        print(f"pluralign train: {e}", file=sys.stderr)
        return 2
    if distributed.is_main():
        procs = f" on {distributed.world_size()} processes" if distributed.active() else ""
        print(
            f"pluralign train: {rm.identity} trained ({options.objective}, {trained.info.get('n_instances')} "
            f"instances of {data.name}){procs} -> {args.out} in {time.perf_counter() - t0:.1f} s"
        )
    return 0


def cli(argv: list[str] | None = None) -> int:
    """``python -m pluralign.rewards.cli score ...`` / ``... train ...`` (``score`` when no subcommand is named):
    the form ``accelerate launch -m pluralign.rewards.cli`` runs."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "train":
        return train_main(argv[1:])
    return main(argv[1:] if argv and argv[0] == "score" else argv)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(cli())
