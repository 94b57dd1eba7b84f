"""One seed, one head: a reward model's new scalar head (a causal LM or a plain encoder loaded as a reward model) is
drawn on the CPU in fp32 from the load's seed, then cast and moved (``seqcls.draw_fresh_head``), so it is the same
on every device, precision, quantization and loading route. On a GPU the head used to be drawn inside
``from_pretrained`` from the device's own random stream in the load dtype: an H100 gave heads that differed between
fp32 and bf16 loads by 0.086 (max |Δw|) on a head of norm 0.235."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoConfig, DebertaV2Config, DebertaV2Model

import pluralign.rewards as R
from pluralign.rewards.seqcls import draw_fresh_head, load_sequence_classifier
from rm_helpers import tiny_llama_folder, tiny_texts


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return tiny_llama_folder(tmp_path_factory.mktemp("tiny-llama-head"))


@pytest.fixture(scope="module")
def deberta(tmp_path_factory):
    """A plain DeBERTa-v2 encoder (no pooler, no classifier in the checkpoint): both are new when it is loaded as a
    reward model, as DeBERTa-v3-large is in Beyond the Binary §3.3."""
    folder = tmp_path_factory.mktemp("tiny-deberta")
    torch.manual_seed(1)
    cfg = DebertaV2Config(
        vocab_size=120, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64
    )
    DebertaV2Model(cfg).save_pretrained(folder)
    return folder


def _head(model, prefixes=("score.", "classifier.", "pooler.")) -> dict:
    return {n: p.detach().to("cpu", torch.float32) for n, p in model.named_parameters() if n.startswith(prefixes)}


def _seqcls(folder, dtype, **kw):
    cfg = AutoConfig.from_pretrained(folder)
    cfg.num_labels = 1
    cfg.pad_token_id = getattr(cfg, "eos_token_id", None) or 0
    return load_sequence_classifier(str(folder), config=cfg, dtype=dtype, ignore_mismatched_sizes=True, **kw)


@pytest.mark.parametrize("which", ["llama", "deberta"])
def test_the_fresh_head_is_the_fp32_draw_cast_in_every_precision_and_loading_route(request, which):
    folder = request.getfixturevalue(which)
    ref = _head(_seqcls(folder, torch.float32))
    assert ref and all(torch.isfinite(v).all() for v in ref.values())
    # the draw itself: N(0, initializer_range²) weights, zero biases, from a CPU generator seeded 0, in parameter order
    g = torch.Generator().manual_seed(0)
    std = AutoConfig.from_pretrained(folder).initializer_range
    for name, v in ref.items():
        want = torch.zeros(v.shape) if name.endswith("bias") else torch.empty(v.shape).normal_(0, std, generator=g)
        assert torch.equal(v, want), name
    routes = {
        "bf16": _seqcls(folder, torch.bfloat16),
        "fp16": _seqcls(folder, torch.float16),
        "meta, then materialised on the CPU (device_map)": _seqcls(folder, torch.float32, device_map={"": "cpu"}),
        "bf16 through device_map": _seqcls(folder, torch.bfloat16, device_map={"": "cpu"}),
    }
    for route, model in routes.items():
        head = _head(model)
        dtype = next(p.dtype for n, p in model.named_parameters() if n in head)
        assert head.keys() == ref.keys(), route
        for name in ref:  # exactly the fp32 draw, rounded once to the load's dtype
            assert torch.equal(head[name], ref[name].to(dtype).float()), (route, name)


def test_the_head_does_not_depend_on_the_global_random_state(llama):
    torch.manual_seed(123)
    a = _head(_seqcls(llama, torch.float32))
    torch.manual_seed(456)
    torch.rand(1000)
    b = _head(_seqcls(llama, torch.float32))
    assert all(torch.equal(a[n], b[n]) for n in a)
    state = torch.get_rng_state()
    _seqcls(llama, torch.float32)
    assert torch.equal(state, torch.get_rng_state())  # the draw leaves the caller's random stream alone


def test_an_untrained_causal_rm_differs_between_fp32_and_bf16_by_bf16_rounding_only(llama):
    exact = R.load(llama, kind="causal", device="cpu")
    fast = R.load(llama, kind="causal", device="cpu", precision="bf16")
    w32, w16 = exact.module.model.score.weight, fast.module.model.score.weight
    assert torch.equal(w16.detach(), w32.detach().to(torch.bfloat16))
    r32 = exact.score(tiny_texts(), progress=False, cache=False)
    r16 = fast.score(tiny_texts(), progress=False, cache=False)
    assert abs(r16 - r32).max() / (r32.max() - r32.min()) < 0.02


def test_8bit_weights_keep_the_same_fp32_head(llama):
    pytest.importorskip("bitsandbytes")
    exact = R.load(llama, kind="causal", device="cpu")
    q = R.load(llama, kind="causal", device="cpu", load_in_8bit=True)
    w = q.module.model.score.weight.detach()
    assert torch.equal(w.float(), exact.module.model.score.weight.detach().to(w.dtype).float())


def test_draw_fresh_head_draws_nothing_where_no_head_is_new(llama):
    model = _seqcls(llama, torch.float32)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    assert draw_fresh_head(model, set()) == {}
    assert all(torch.equal(p, before[n]) for n, p in model.named_parameters())
    drawn = draw_fresh_head(model, {"score.weight"}, seed=1)  # another seed, another head
    assert not torch.equal(drawn["score.weight"], before["score.weight"])
    assert torch.equal(model.score.weight.detach(), drawn["score.weight"])
