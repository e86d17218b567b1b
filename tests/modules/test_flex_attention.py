"""The flex backend of Long-LUKE's attention against the blocked reference: forward within 1e-5 and
gradients within 1e-4 (fp32) for windows 4–512 with padded words, padded entities and rows without
entities; bf16 autocast within a documented tolerance; the backend choice and its logged fallbacks.

Compilation is the slow part (seconds per input shape), so every flex test here reuses one batch
shape: 3 rows of at most 300 words and 4 entities, hidden 16, 2 heads.
"""

import logging

import pytest
import torch
from allennlp.common import Params
from allennlp.modules.token_embedders import TokenEmbedder
from test_long_luke import make_batch, tiny_luke_dir  # noqa: F401 (fixture)

from allennlp_longent.modules import flex_entity_attention
from allennlp_longent.modules.entity_aware_attention import (
    EntityAwareSelfAttention,
    WordEntityMask,
)
from allennlp_longent.modules.long_luke import LongLukeEmbedder

HIDDEN, HEADS = 16, 2
WORDS, ENTITIES = [300, 170, 41], [4, 0, 2]  # row 2 has no entity; every row is padded somewhere
# bf16 keeps 8 significant bits: outputs of magnitude ~1 are within a few 1e-2 of fp32.
BF16_TOLERANCE = 5e-2


def make_inputs(seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    n, m = max(WORDS), max(ENTITIES)
    words = torch.randn(len(WORDS), n, HIDDEN, generator=generator)
    entities = torch.randn(len(WORDS), m, HIDDEN, generator=generator)
    word_mask = torch.arange(n)[None] < torch.tensor(WORDS)[:, None]
    entity_mask = torch.arange(m)[None] < torch.tensor(ENTITIES)[:, None]
    return words, entities, WordEntityMask(word_mask, entity_mask)


def attention(window: int, backend: str) -> EntityAwareSelfAttention:
    torch.manual_seed(0)
    return EntityAwareSelfAttention(HIDDEN, HEADS, window, attention_backend=backend)


def run(module, words, entities, mask):
    """Outputs and gradients (inputs, parameters) of a loss on the real positions only."""
    words = words.clone().requires_grad_()
    entities = None if entities is None else entities.clone().requires_grad_()
    out_words, out_entities = module(words, entities, mask)
    weights = torch.linspace(-1, 1, HIDDEN)
    loss = (out_words * weights)[mask.words].sum()
    if entities is not None:
        loss = loss + (out_entities * weights)[mask.entities].pow(2).sum()
    loss.backward()
    grads = [words.grad] + ([] if entities is None else [entities.grad])
    grads += [p.grad for p in module.parameters() if p.grad is not None]
    return out_words.detach(), (None if entities is None else out_entities.detach()), grads


@pytest.mark.parametrize("window", [4, 16, 64, 512])
def test_flex_equals_blocked_with_entities(window):
    words, entities, mask = make_inputs()
    blocked = run(attention(window, "blocked"), words, entities, mask)
    flex = run(attention(window, "flex"), words, entities, mask)
    assert (blocked[0] - flex[0])[mask.words].abs().max() <= 1e-5
    assert (blocked[1] - flex[1])[mask.entities].abs().max() <= 1e-5
    assert len(blocked[2]) == len(flex[2]) == 2 + 6 * 2  # both inputs, 6 Linear layers
    for reference, ours in zip(blocked[2], flex[2]):
        assert (reference - ours).abs().max() <= 1e-4
    if window < 512:  # the band matters: the full window gives other outputs
        full = run(attention(1024, "flex"), words, entities, mask)
        assert (full[0] - flex[0])[mask.words].abs().max() > 1e-3


def test_flex_equals_blocked_without_entities():
    words, _, mask = make_inputs()
    blocked = run(attention(8, "blocked"), words, None, mask)
    flex = run(attention(8, "flex"), words, None, mask)
    assert flex[1] is None
    assert (blocked[0] - flex[0])[mask.words].abs().max() <= 1e-5
    for reference, ours in zip(blocked[2], flex[2]):
        assert (reference - ours).abs().max() <= 1e-4


@pytest.mark.parametrize("backend", ["blocked", "flex"])
def test_bf16_autocast_close_to_fp32(backend):
    words, entities, mask = make_inputs()
    reference = run(attention(16, "blocked"), words, entities, mask)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = run(attention(16, backend), words, entities, mask)
    assert low[0].dtype == torch.bfloat16
    assert (reference[0] - low[0].float())[mask.words].abs().max() <= BF16_TOLERANCE
    assert (reference[1] - low[1].float())[mask.entities].abs().max() <= BF16_TOLERANCE
    for exact, grad in zip(reference[2], low[2]):
        assert torch.isfinite(grad).all()
        scale = exact.abs().max().clamp(min=1.0)
        assert (exact - grad.float()).abs().max() <= BF16_TOLERANCE * scale


def test_backend_choice_and_logged_fallbacks(monkeypatch, caplog):
    cpu = torch.device("cpu")
    resolve = flex_entity_attention.resolve_backend
    assert resolve("auto", cpu, dropout=False) == "blocked"  # CPU flex has no fused backward
    assert resolve("blocked", cpu, dropout=False) == "blocked"
    with pytest.raises(ValueError, match="attention_backend"):
        EntityAwareSelfAttention(HIDDEN, HEADS, 8, attention_backend="fused")
    with caplog.at_level(logging.WARNING):
        assert resolve("flex", cpu, dropout=True) == "blocked"
    assert "no attention dropout" in caplog.text

    flex_entity_attention._log_once.cache_clear()
    monkeypatch.setattr(flex_entity_attention, "flex_support", lambda device: (False, "no cc"))
    caplog.clear()
    words, entities, mask = make_inputs()
    with caplog.at_level(logging.WARNING):
        fallback = attention(8, "flex").eval()(words, entities, mask)
        attention(8, "flex").eval()(words, entities, mask)
    assert caplog.text.count("does not compile on cpu (no cc)") == 1  # once, not per call
    blocked = attention(8, "blocked").eval()(words, entities, mask)
    assert torch.equal(fallback[0], blocked[0])


@pytest.mark.parametrize("dtype, tf32, expected", [
    (torch.float32, False, "blocked"),  # Triton's exact fp32 dot: 30x the blocked core on an H100
    (torch.float32, True, "flex"),
    (torch.bfloat16, False, "flex"),
    (torch.float16, False, "flex"),
])
def test_auto_on_cuda_takes_flex_only_on_tensor_cores(monkeypatch, dtype, tf32, expected):
    monkeypatch.setattr(flex_entity_attention, "flex_support", lambda device: (True, ""))
    cuda = torch.device("cuda")  # a device object only: nothing runs on it
    resolve = flex_entity_attention.resolve_backend
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32  # set_float32_matmul_precision("high") sets it
    try:
        assert resolve("auto", cuda, dropout=False, dtype=dtype) == expected
        assert resolve("flex", cuda, dropout=False, dtype=dtype) == "flex"  # asked for: kept
        assert resolve("auto", cuda, dropout=True, dtype=dtype) == "blocked"
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


def test_embedder_config_sets_backend_and_dropout(tiny_luke_dir):  # noqa: F811
    embedder = TokenEmbedder.from_params(Params({
        "type": "long_luke", "model_name": str(tiny_luke_dir), "attention_window": 8,
        "attention_backend": "flex", "attention_dropout": 0.0,
    }))
    layers = [layer.attention.self for layer in embedder.encoder.luke.encoder.layer]
    assert [(a.attention_backend, a.dropout.p) for a in layers] == [("flex", 0.0)] * 2
    default = LongLukeEmbedder(str(tiny_luke_dir), attention_window=8)
    layers = [layer.attention.self for layer in default.encoder.luke.encoder.layer]
    assert [(a.attention_backend, a.dropout.p) for a in layers] == [("auto", 0.1)] * 2
    with torch.no_grad():
        words, entities = embedder.eval()(**make_batch())
        reference = default.eval()(**make_batch())
    batch = make_batch()
    assert (words - reference[0])[batch["mask"].bool()].abs().max() <= 1e-5
    assert (entities - reference[1])[batch["entity_mask"].bool()].abs().max() <= 1e-5
