"""Training a reward model (:meth:`pluralign.rewards.base.RewardModel.train`): the options resolved for the backend,
the training instances of the objective, the cached fit (keyed by the base model, the data and every
hyper-parameter) and the trained copy opened like its base. While a copy trains on a GPU its base's weights wait in
host memory (:func:`parked`)."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import torch

from pluralign.cache import Entry
from pluralign.rewards import distributed
from pluralign.rewards import objectives as obj
from pluralign.rewards.folders import open_trained, read_rm_config, write_rm_config
from pluralign.train_options import TrainOptions

__all__ = ["train", "resolved", "parked"]


def train(base, data, options: TrainOptions, *, eval_data=None, margins=None, output_dir=None):
    """A copy of ``base`` (a :class:`~pluralign.rewards.base.RewardModel`) fitted on ``data`` with ``options``
    (``base`` is left unchanged); see :meth:`~pluralign.rewards.base.RewardModel.train`. The fit is cached
    (``fmt="dir"``) under the base model, the training and evaluation instances and every hyper-parameter but the
    progress bar; ``output_dir`` also gets a copy of the trained model's folder."""
    options = resolved(base, options)
    hp = {**options.model_dump(exclude={"progress"}), **base._train_settings()}
    objective, labels = options.objective, options.labels
    inst = obj.build_instances(data, objective, labels, margins)
    if len(inst) == 0:
        raise ValueError(
            f"no training instances for objective={objective!r}, labels={labels!r} (dropped: {inst.dropped})"
        )
    # evaluation margins (bt-margin) come from the evaluation pairs' own annotators, Eq. (3)
    eval_inst = obj.build_instances(eval_data, objective, labels) if eval_data is not None else None
    entry = Entry(
        "rewards/train",
        inputs=(base.identity, inst.table, None if eval_inst is None else eval_inst.table),
        settings=hp,
        fmt="dir",
    )
    compute = functools.partial(
        _fit_into, base=base, inst=inst, eval_inst=eval_inst, options=options, hp=hp, key=entry.key
    )
    folder = distributed.train_entry(entry, compute) if distributed.active() else entry.get_or_compute(compute)
    if output_dir is not None and distributed.is_main():
        import shutil

        shutil.copytree(folder, output_dir, dirs_exist_ok=True)
    return _open_trained_like(folder, base)


def resolved(model, options: TrainOptions) -> TrainOptions:
    """``options`` with what they leave to the backend of ``model`` filled in: the learning rate, the epochs and
    the batch (``model.default_lr``, ``default_epochs``, ``default_train_batch_size``, as the backend states them)
    and the engine ("auto": the compact torch loop for a frozen-encoder head, ``transformers.Trainer`` otherwise); an
    engine that cannot train this backend is refused."""
    engine = options.engine
    if engine == "auto":
        engine = "torch" if model.backend == "frozen-encoder" else "trainer"
    if engine == "torch" and model.backend != "frozen-encoder":
        raise ValueError("engine='torch' trains the frozen-encoder head only; transformers use engine='trainer'")
    filled = {
        "lr": model.default_lr if options.lr is None else options.lr,
        "epochs": model.default_epochs if options.epochs is None else options.epochs,
        "batch_size": model.default_train_batch_size if options.batch_size is None else options.batch_size,
        "engine": engine,
    }
    return options.model_copy(update=filled)  # the backend's values as it states them (an int stays an int)


def _fit_into(folder: Path, *, base, inst, eval_inst, options: TrainOptions, hp: dict, key: str) -> None:
    """Train a copy of ``base`` on ``inst`` with the resolved ``options`` (:func:`resolved`; ``hp``: the
    hyper-parameters the cache keys on) and write it into ``folder`` with its
    config: trained, its objective, its identity (``base``'s + the training cache key), the hyper-parameters, the
    instances dropped and the evaluation history."""
    from transformers import set_seed

    from pluralign.rewards.trainer import fit, fit_tensors

    objective = options.objective
    set_seed(options.seed)
    model = base._trainable(objective, options.dropout, options.seed)
    model.token_budget = base.token_budget  # evaluation batches as scoring's (trainer.PreferenceTrainer)
    run = fit_tensors if options.engine == "torch" else fit
    with parked(base, model):
        history = run(model, inst, eval_inst, options)
    model._save(folder)
    cfg = read_rm_config(folder)
    cfg.update(
        {
            "trained": True,
            "objective": objective,
            "n_outputs": obj.n_outputs(objective),
            "identity": f"{base.identity}+{key}",
            "train": hp,
            "dropped": inst.dropped,
            "n_instances": len(inst),
            "history": history,
        }
    )
    write_rm_config(folder, cfg)


@contextlib.contextmanager
def parked(base, model):
    """While ``model`` (a training copy of ``base``) trains on a GPU, ``base``'s own weights wait in host memory
    unless they are the same module: an 8B model loaded in fp32 held 32 GB of the GPU beside its training copy, in
    8-bit about 10 GB. bitsandbytes-quantized weights move too where bitsandbytes moves them (0.48 and later, as
    transformers requires); a base on the CPU stays."""
    mod = getattr(base, "module", None)
    stay = mod is None or base.device.type != "cuda" or mod is getattr(model, "module", None)
    if not stay and getattr(mod, "is_quantized", False):
        stay = not _bnb_moves()
    if stay:
        yield False
        return
    try:
        _move(mod, torch.device("cpu"))
    except (RuntimeError, ValueError, TypeError, AttributeError):  # a quantized layer that would not move: keep it
        _move(mod, base.device)
        yield False
        return
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    try:
        yield True
    finally:
        _move(mod, base.device)


def _move(module, device) -> None:
    """``module.to(device)`` with bitsandbytes' side tensors, which a parent's ``.to`` leaves where they were (it sets
    each parameter's data only): an 8-bit layer's int8 weight and scales (``CB``, ``SCB``, on its weight before its
    first forward, on its state after) and a 4-bit weight's quantization state."""
    module.to(device)
    for m in module.modules():
        for holder in [getattr(m, "state", None), *m.parameters(recurse=False)]:
            if holder is None:
                continue
            if getattr(holder, "CB", None) is not None:
                holder.CB = holder.data if isinstance(holder, torch.nn.Parameter) else holder.CB.to(device)
            if getattr(holder, "SCB", None) is not None:
                holder.SCB = holder.SCB.to(device)
            qs = getattr(holder, "quant_state", None)
            if qs is not None and hasattr(qs, "to"):
                qs.to(device)


def _bnb_moves() -> bool:
    """Whether the installed bitsandbytes moves quantized weights between devices (0.48 and later)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(x) for x in version("bitsandbytes").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (0, 48)


def _open_trained_like(folder, base):
    """The model a training wrote into ``folder``, opened on ``base``'s device, dtype, batch size and token budget,
    with its fp32 twin (:func:`pluralign.rewards.speed.fp32_twin`)."""
    kw = {"device": base.device, "batch_size": base.batch_size, "trained_from": _trained_from(base)}
    trained = open_trained(folder, dtype=base._dtype_arg, **kw)
    trained.token_budget = base.token_budget
    trained._fp32 = lambda: open_trained(folder, dtype=torch.float32, **kw)  # speed.fp32_twin
    return trained


def _trained_from(base) -> str | None:
    """Where the model ``base`` trains from lives in this process: a frozen encoder's folder or Hub id, or the
    base model of a LoRA training (None for a backend whose trained folder holds the whole model). The training
    cache is keyed by the model's content, not its path, so a folder cached by another checkout opens here."""
    enc = getattr(base, "encoder", None)
    if enc is not None:
        return enc.name_or_path
    return getattr(base, "name_or_path", None) if getattr(base, "lora", None) else None
