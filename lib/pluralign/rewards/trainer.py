"""Training engine: a ``transformers.Trainer`` subclass whose ``compute_loss`` is the chosen
objective (the hidden-context pattern: one loss per reward-model type), for every backend.

Pairwise batches are laid out like TRL ``RewardTrainer``'s: the first responses of the batch, then
the second ones, through the model in one forward pass, split in two halves. ``bt-margin`` is
exactly TRL's ``margin`` column (``-logsigmoid(r_c - r_r - margin)``, Beyond the Binary Eq. 4); the
same Trainer also carries the MSE and mean-variance objectives, which TRL does not have.

Evaluation every ``eval_every`` epoch (Diverging Preferences App. A: every 0.25 epoch, best
checkpoint kept) uses the objective's loss on the evaluation data; ``keep_best`` snapshots the
*trainable* parameters (a LoRA adapter and head, or a small head) in memory at each new best and
restores them at the end — the same choice as ``load_best_model_at_end`` without writing a
checkpoint to disk at every evaluation.

On a CUDA GPU the training batches are drawn length-grouped (transformers' ``LengthGroupedSampler``: a random
order cut into mega-batches of 50 batches, each sorted by length), so a batch pads little; on the CPU they are
drawn in plain random order, as before. A LoRA model (quantized or bf16) gets gradient checkpointing only where its
estimated step would not fit the GPU (:func:`pluralign.rewards.memory.needs_checkpointing`).
"""

from __future__ import annotations

import functools
import math
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainerCallback, TrainingArguments
from transformers.trainer_callback import PrinterCallback, ProgressCallback

from pluralign.rewards import distributed
from pluralign.rewards.objectives import Instances, instance_loss
from pluralign.train_options import TrainOptions


class _InstanceDataset(Dataset):
    """Training or evaluation instances. ``texts`` holds each distinct (prompt, response) text's features once and
    ``first`` / ``second`` index it per instance: with every annotator's label (``labels="all"``) the instances of
    a pair share their two texts, so evaluation scores each text once (:meth:`PreferenceTrainer.evaluate`);
    ``target`` and ``margin`` are the instances' as tensors (built once, not at every evaluation)."""

    def __init__(self, items, texts=None, first=None, second=None):
        self.items = items
        self.texts, self.first, self.second = texts, first, second
        self.target = torch.tensor([it["target"] for it in items], dtype=torch.float32)
        self.margin = torch.tensor([it["margin"] for it in items], dtype=torch.float32) if second is not None else None

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def _dataset(model, inst: Instances) -> _InstanceDataset:
    """The instances of ``inst`` as a dataset: each distinct text featurized (tokenized) once."""
    t = inst.table
    prompts = t["prompt"].fillna("").astype(str).tolist()
    columns = ["response"] if inst.kind == "pointwise" else ["first", "second"]
    pairs = [list(zip(prompts, t[c].astype(str))) for c in columns]
    index: dict[tuple[str, str], int] = {}
    slots = [[index.setdefault(x, len(index)) for x in col] for col in pairs]
    feats = model._featurize(list(index))
    target = t["target"].astype(float).tolist()
    if inst.kind == "pointwise":
        items = [{"f1": feats[i], "target": y} for i, y in zip(slots[0], target)]
        return _InstanceDataset(items, feats, np.asarray(slots[0]))
    margin = t["margin"].astype(float).tolist()
    items = [
        {"f1": feats[i], "f2": feats[j], "target": y, "margin": m}
        for i, j, y, m in zip(slots[0], slots[1], target, margin)
    ]
    return _InstanceDataset(items, feats, np.asarray(slots[0]), np.asarray(slots[1]))


def _items(model, inst: Instances) -> list[dict]:
    return _dataset(model, inst).items


class _Collator:
    """A training batch: the first texts, then the second ones, padded — or packed into one row where the model
    trains packed (``model.packed``: a causal-LM reward model on a GPU, :mod:`pluralign.rewards.packing`)."""

    def __init__(self, model):
        self.model = model

    def __call__(self, items: list[dict]) -> dict:
        feats = [it["f1"] for it in items]
        if "f2" in items[0]:
            feats += [it["f2"] for it in items]
        batch = dict(self.model._collate(feats))
        batch["labels"] = torch.tensor([it["target"] for it in items], dtype=torch.float32)
        if "margin" in items[0]:
            batch["margin"] = torch.tensor([it["margin"] for it in items], dtype=torch.float32)
        return batch


class PreferenceTrainer(Trainer):
    """``Trainer`` with ``compute_loss`` = the reward-model objective (see :mod:`.objectives`)."""

    def __init__(self, *args, objective: str, pairwise: bool, lengths: list[int] | None = None, **kw):
        super().__init__(*args, **kw)
        self.objective = objective
        self.pairwise = pairwise
        self.lengths = lengths  # per instance: length-grouped batches (a GPU), else None (random batches)

    def _get_train_sampler(self, *args, **kw):
        if self.lengths is None or self.args.world_size > 1:
            return super()._get_train_sampler(*args, **kw)
        from transformers.trainer_pt_utils import LengthGroupedSampler

        seed = self.args.data_seed if self.args.data_seed is not None else self.args.seed
        g = torch.Generator().manual_seed(int(seed))
        return LengthGroupedSampler(
            self.args.train_batch_size * self.args.gradient_accumulation_steps, lengths=self.lengths, generator=g
        )

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        inputs = dict(inputs)
        target = inputs.pop("labels")
        margin = inputs.pop("margin", None)
        out = model(**inputs).float()
        if self.pairwise:
            first, second = torch.chunk(out, 2)
        else:
            first, second = out, None
        loss = instance_loss(self.objective, first, second, target, margin)
        return (loss, out) if return_outputs else loss

    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix: str = "eval"):
        """The objective's mean loss per evaluation instance, under ``torch.inference_mode``. Each distinct text
        of the evaluation set is scored once, in token-budget batches (the batching of scoring,
        :func:`pluralign.rewards.speed.token_batches`, at most the texts of ``per_device_eval_batch_size`` instances
        a batch), and the loss is taken over every instance from those outputs: with every annotator's label as an
        instance (``labels="all"``) a pair's two texts are scored once, not once per annotator. The result is the exact
        mean over the evaluation set (a text's output does not depend on its batch company). Under several
        processes (accelerate launch) Trainer's sharded evaluation runs instead."""
        ds = eval_dataset if eval_dataset is not None else self.eval_dataset
        rm = getattr(self.data_collator, "model", None)
        if (
            self.args.world_size > 1
            or rm is None
            or not isinstance(ds, _InstanceDataset)
            or not len(ds)
            or ds.texts is None
        ):
            return super().evaluate(eval_dataset, ignore_keys=ignore_keys, metric_key_prefix=metric_key_prefix)
        import time

        from pluralign.rewards.speed import default_token_budget, token_batches

        start = time.perf_counter()
        budget = rm.token_budget or default_token_budget(rm.device)
        model = self.model
        was_training = model.training
        model.eval()
        outputs = [None] * len(ds.texts)
        with torch.inference_mode():
            per_instance = (
                1 if ds.second is None else 2
            )  # a batch holds as many texts as per_device_eval_batch_size pairs
            for idx in token_batches(
                [rm._length(f) for f in ds.texts], budget, self.args.per_device_eval_batch_size * per_instance
            ):
                out = model(**self._prepare_inputs(rm._collate([ds.texts[i] for i in idx]))).float()
                for k, i in enumerate(idx):
                    outputs[i] = out[k]
            out = torch.stack(outputs)
            dev = out.device
            second = None if ds.second is None else out[torch.as_tensor(ds.second, device=dev)]
            margin = None if ds.margin is None else ds.margin.to(dev)
            loss = float(
                instance_loss(
                    self.objective, out[torch.as_tensor(ds.first, device=dev)], second, ds.target.to(dev), margin
                )
            )
        model.train(was_training)
        metrics = {
            f"{metric_key_prefix}_loss": loss,
            f"{metric_key_prefix}_runtime": round(time.perf_counter() - start, 4),
        }
        self.log(metrics)
        self.control = self.callback_handler.on_evaluate(self.args, self.state, self.control, metrics)
        return metrics

    def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
        inputs = self._prepare_inputs(inputs)
        with torch.no_grad():
            loss = self.compute_loss(model, inputs)
        return loss.detach(), None, None


class _QuietProgress(ProgressCallback):
    """The progress bar without a printed line per log/evaluation."""

    def on_log(self, args, state, control, logs=None, **kwargs):
        pass


class KeepBest(TrainerCallback):
    """Record every evaluation; keep the trainable weights of the lowest evaluation loss."""

    def __init__(self, keep_best: bool):
        self.keep_best = keep_best
        self.best = math.inf
        self.snapshot = None
        self.history: list[dict] = []

    def on_evaluate(self, args, state, control, metrics=None, model=None, **kw):
        loss = float(metrics["eval_loss"])
        self.history.append({"epoch": round(float(state.epoch or 0), 4), "step": state.global_step, "eval_loss": loss})
        if self.keep_best and model is not None and loss < self.best:
            self.best = loss
            self.snapshot = {n: p.detach().to("cpu", copy=True) for n, p in model.named_parameters() if p.requires_grad}

    def restore(self, model) -> None:
        if self.snapshot is None:
            return
        params = dict(model.named_parameters())
        with torch.no_grad():
            for n, v in self.snapshot.items():
                params[n].copy_(v.to(params[n].device))


def fit(model, inst: Instances, eval_inst: Instances | None, loop: TrainOptions) -> list[dict]:
    """Train ``model.module`` in place on ``inst`` with the training options ``loop`` (:class:`TrainOptions`, their
    learning rate, epochs and batch given: :func:`pluralign.rewards.training.resolved`) through transformers'
    ``Trainer``; return the evaluation history."""
    train_ds = _dataset(model, inst)
    eval_ds = _dataset(model, eval_inst) if eval_inst is not None and len(eval_inst) else None
    steps_per_epoch = max(1, math.ceil(len(train_ds) / loop.batch_size))
    eval_steps = max(1, round(steps_per_epoch * loop.eval_every))
    # loop.batch_size is the global batch; under accelerate launch each of N processes takes loop.batch_size / N of it
    per_device = distributed.per_device_batch(loop.batch_size, len(train_ds))
    cuda = model.device.type == "cuda"
    lengths = _on_gpu(model, train_ds, per_device, inst.kind == "pairwise") if cuda else None
    callback = KeepBest(loop.keep_best and eval_ds is not None)
    with tempfile.TemporaryDirectory(prefix="pluralign-train-") as tmp:
        args = TrainingArguments(
            output_dir=tmp,
            per_device_train_batch_size=per_device,
            per_device_eval_batch_size=per_device,
            learning_rate=loop.lr,
            num_train_epochs=loop.epochs,
            weight_decay=loop.weight_decay,
            seed=loop.seed,
            data_seed=loop.seed,
            eval_strategy="steps" if eval_ds is not None else "no",
            eval_steps=eval_steps if eval_ds else None,
            save_strategy="no",
            logging_strategy="no",
            report_to=[],
            use_cpu=not cuda,
            bf16=bool(cuda and torch.cuda.is_bf16_supported()),
            disable_tqdm=not loop.progress,
            remove_unused_columns=False,
            label_names=["labels"],
            dataloader_num_workers=0,
            lr_scheduler_type="linear",
            warmup_steps=0,
        )
        trainer = PreferenceTrainer(
            model=model.module,
            args=args,
            train_dataset=train_ds,
            eval_dataset=eval_ds,
            data_collator=_Collator(model),
            callbacks=[callback],
            objective=loop.objective,
            pairwise=inst.kind == "pairwise",
            lengths=lengths,
        )
        trainer.remove_callback(PrinterCallback)
        trainer.remove_callback(ProgressCallback)
        if loop.progress:
            trainer.add_callback(_QuietProgress)
        trainer.train()
        callback.restore(model.module)
    model.module.eval()
    history = callback.history
    if history and callback.snapshot is not None:
        history.append({"best_eval_loss": callback.best})
    return history


def _on_gpu(model, train_ds: _InstanceDataset, per_device: int, pairwise: bool) -> list[int] | None:
    """A GPU's training set-up: packed batches for a causal-LM reward model (:mod:`pluralign.rewards.packing`; not
    under several processes), gradient checkpointing for a LoRA model (quantized or bf16) only where its longest
    step would not fit (:func:`pluralign.rewards.memory.use_checkpointing_if_needed`). Returns the instances' lengths
    for length-grouped batches where batches are padded, None where they are packed."""
    if not distributed.active():
        from pluralign.rewards import packing

        packing.enable(model, training=True)
    per_instance = _instance_lengths(model, train_ds)
    if getattr(model.module, "is_quantized", False) or getattr(model, "lora", None) is not None:
        from pluralign.rewards.memory import use_checkpointing_if_needed

        use_checkpointing_if_needed(model, longest_step_tokens(per_instance, per_device, pairwise))
    return None if getattr(model, "packed", False) else per_instance


def longest_step_tokens(lengths: list[int], per_device: int, pairwise: bool) -> int:
    """The most token positions a training step can hold: ``per_device`` instances of the longest instance length,
    two texts each where pairwise — the padded bound, which also bounds a packed step."""
    return per_device * (2 if pairwise else 1) * max(lengths)


def _instance_lengths(model, ds: _InstanceDataset) -> list[int]:
    """Each training instance's padded length in a batch: the longer of its texts' token counts."""
    n = [model._length(f) for f in ds.texts]
    if ds.second is None:
        return [n[i] for i in ds.first]
    return [max(n[i], n[j]) for i, j in zip(ds.first, ds.second)]


def _feature_tensors(model, inst: Instances):
    """``inst`` as in-memory tensors on the model's device: first and second features (None for pointwise
    instances), targets and margins."""
    items = _items(model, inst)
    f1 = torch.as_tensor(np.stack([it["f1"] for it in items])).to(model.device)
    f2 = torch.as_tensor(np.stack([it["f2"] for it in items])).to(model.device) if "f2" in items[0] else None
    y = torch.tensor([it["target"] for it in items], dtype=torch.float32, device=model.device)
    m = torch.tensor([it.get("margin", 0.0) for it in items], dtype=torch.float32, device=model.device)
    return f1, f2, y, m


def _head_loss(module, objective: str, f1, f2, y, m):
    """The objective's mean loss of a head ``module`` on feature tensors (:func:`instance_loss`)."""
    out1 = module(x=f1)
    out2 = module(x=f2) if f2 is not None else None
    return instance_loss(objective, out1, out2, y, m)


def fit_tensors(model, inst: Instances, eval_inst: Instances | None, loop: TrainOptions) -> list[dict]:
    """The same training as :func:`fit` (AdamW, linear decay to 0, evaluation every ``eval_every``
    epoch, best weights kept) as a compact loop over in-memory feature tensors.

    Used for the frozen-encoder head, whose features are fixed vectors: there ``Trainer``'s
    per-step overhead (data loader, accelerate, callbacks) is many times the head's own compute
    (``bench/bench_rewards.py`` measures both engines on the same data). The loop runs on one
    intra-op thread: for a head this small, more threads only add synchronisation (measured 10x
    slower per step on 2 busy cores)."""
    from pluralign.progress import bar as progress_bar

    module = model.module
    loss_of = functools.partial(_head_loss, module, loop.objective)
    train_t = _feature_tensors(model, inst)  # embeds any new texts (all threads)
    eval_t = _feature_tensors(model, eval_inst) if eval_inst is not None and len(eval_inst) else None
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        g = torch.Generator().manual_seed(loop.seed)
        n = len(inst)
        steps_per_epoch = max(1, math.ceil(n / loop.batch_size))
        total = max(1, math.ceil(steps_per_epoch * loop.epochs))
        eval_steps = max(1, round(steps_per_epoch * loop.eval_every))
        opt = torch.optim.AdamW(
            [p for p in module.parameters() if p.requires_grad], lr=loop.lr, weight_decay=loop.weight_decay
        )
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / total))
        best, snapshot, history = math.inf, None, []
        step = 0
        f1, f2, y, m = train_t
        with progress_bar(total, "training head", "step", enabled=loop.progress) as bar:
            while step < total:
                perm = torch.randperm(n, generator=g).to(model.device)
                for s in range(0, n, loop.batch_size):
                    if step >= total:
                        break
                    idx = perm[s : s + loop.batch_size]
                    module.train()
                    loss = loss_of(f1[idx], None if f2 is None else f2[idx], y[idx], m[idx])
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    sched.step()
                    step += 1
                    bar.update(1)
                    if eval_t is not None and (step % eval_steps == 0 or step == total):
                        module.eval()
                        with torch.no_grad():
                            ev = float(loss_of(*eval_t))
                        history.append({"epoch": round(step / steps_per_epoch, 4), "step": step, "eval_loss": ev})
                        if loop.keep_best and ev < best:
                            best = ev
                            snapshot = {k: v.detach().clone() for k, v in module.state_dict().items()}
        if snapshot is not None:
            module.load_state_dict(snapshot)
            history.append({"best_eval_loss": best})
        module.eval()
        return history
    finally:
        torch.set_num_threads(threads)
