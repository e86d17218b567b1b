"""Long-LUKE's attention on a CUDA device: the path ``attention_backend: auto`` takes there.

On CUDA ``auto`` resolves to compiled ``flex_attention`` with its fused backward, which no CPU run
exercises. Checked against the blocked backend on the same device and on the CPU (fp32, TF32
off), against transformers' dense ``LukeModel`` when the window covers the sequence, and under
bf16 autocast. Skipped without a CUDA device (CI has none); run on a GPU machine with
``pytest tests/modules/test_cuda_attention.py tests/linking/test_cuda_training.py``.
"""

import pytest
import torch
from test_long_luke import luke_outputs, make_batch, tiny_luke_dir  # noqa: F401 (fixture)
from transformers import LukeModel

from allennlp_longent.modules import entity_aware_attention, flex_entity_attention
from allennlp_longent.modules.entity_aware_attention import (
    EntityAwareSelfAttention,
    WordEntityMask,
)
from allennlp_longent.modules.long_luke import LongLukeEmbedder

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

CUDA = torch.device("cuda")
HIDDEN, HEADS = 64, 4
WORDS, ENTITIES = [700, 333, 97], [9, 0, 3]  # row 1 has no entity; every row is padded somewhere
# Different kernels sum in different orders: outputs within 1e-4, gradients within 1e-4 of their
# largest entry (a parameter's gradient sums over every position of the batch).
FP32_FORWARD, FP32_GRAD = 1e-4, 1e-4
BF16_TOLERANCE = 5e-2  # bf16 keeps 8 significant bits; outputs are of magnitude ~1


@pytest.fixture(autouse=True)
def exact_fp32():
    """TF32 matmuls keep 10 mantissa bits: fp32 comparisons would measure TF32, not the code."""
    previous = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = previous


def make_inputs(device: torch.device):
    generator = torch.Generator().manual_seed(0)
    n, m = max(WORDS), max(ENTITIES)
    words = torch.randn(len(WORDS), n, HIDDEN, generator=generator)
    entities = torch.randn(len(WORDS), m, HIDDEN, generator=generator)
    word_mask = torch.arange(n)[None] < torch.tensor(WORDS)[:, None]
    entity_mask = torch.arange(m)[None] < torch.tensor(ENTITIES)[:, None]
    mask = WordEntityMask(word_mask.to(device), entity_mask.to(device))
    return words.to(device), entities.to(device), mask


def attention(window: int, backend: str, device: torch.device) -> EntityAwareSelfAttention:
    torch.manual_seed(0)
    module = EntityAwareSelfAttention(HIDDEN, HEADS, window, attention_backend=backend,
                                      attention_dropout=0.0)
    return module.to(device)


def run(module, words, entities, mask):
    """Outputs and gradients (inputs, then parameters) of a loss on the real positions, on CPU."""
    words = words.clone().requires_grad_()
    entities = entities.clone().requires_grad_()
    out_words, out_entities = module(words, entities, mask)
    weights = torch.linspace(-1, 1, HIDDEN, device=words.device)
    loss = (out_words * weights)[mask.words].sum()
    loss = loss + (out_entities * weights)[mask.entities].pow(2).sum()
    loss.backward()
    grads = [words.grad, entities.grad] + [p.grad for p in module.parameters()]
    cpu = [out_words.detach().float().cpu(), out_entities.detach().float().cpu()]
    return cpu + [g.float().cpu() for g in grads]


def largest_gaps(reference, ours, mask):
    """Largest absolute difference of the word and entity outputs; largest difference of a
    gradient relative to that gradient's largest entry (at least 1)."""
    words, entities = mask.words.cpu(), mask.entities.cpu()
    forward = max((reference[0] - ours[0])[words].abs().max(),
                  (reference[1] - ours[1])[entities].abs().max())
    backward = max((a - b).abs().max() / a.abs().max().clamp(min=1.0)
                   for a, b in zip(reference[2:], ours[2:]))
    return float(forward), float(backward)


def test_flex_compiles_on_cuda_and_auto_takes_it_on_tensor_cores():
    supported, reason = flex_entity_attention.flex_support("cuda")
    assert supported, f"flex_attention does not compile on this GPU: {reason}"
    resolve = flex_entity_attention.resolve_backend
    assert resolve("auto", CUDA, dropout=False, dtype=torch.float32) == "blocked"  # TF32 off
    assert resolve("auto", CUDA, dropout=False, dtype=torch.bfloat16) == "flex"
    assert resolve("auto", CUDA, dropout=True, dtype=torch.bfloat16) == "blocked"


@pytest.mark.parametrize("window", [16, 128, 2048])
def test_flex_on_cuda_equals_blocked_on_cuda_and_cpu(window):
    words, entities, mask = make_inputs(CUDA)
    flex = run(attention(window, "flex", CUDA), words, entities, mask)
    blocked = run(attention(window, "blocked", CUDA), words, entities, mask)
    cpu_mask = WordEntityMask(mask.words.cpu(), mask.entities.cpu())
    cpu = run(attention(window, "blocked", torch.device("cpu")), words.cpu(), entities.cpu(),
              cpu_mask)
    for name, reference in (("blocked on cuda", blocked), ("blocked on cpu", cpu)):
        forward, backward = largest_gaps(reference, flex, mask)
        print(f"window {window}: flex on cuda vs {name}: forward {forward:.1e}, "
              f"gradients {backward:.1e}")
        assert forward <= FP32_FORWARD and backward <= FP32_GRAD, name


def test_bf16_autocast_on_cuda_close_to_fp32():
    words, entities, mask = make_inputs(CUDA)
    reference = run(attention(128, "blocked", CUDA), words, entities, mask)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        low = run(attention(128, "flex", CUDA), words, entities, mask)
    forward, _ = largest_gaps(reference, low, mask)
    assert forward <= BF16_TOLERANCE
    for exact, grad in zip(reference[2:], low[2:]):
        assert torch.isfinite(grad).all()
        assert (exact - grad).abs().max() <= BF16_TOLERANCE * exact.abs().max().clamp(min=1.0)


def count_flex_calls(monkeypatch) -> list:
    calls = []
    flex = entity_aware_attention.flex_entity_attention
    monkeypatch.setattr(entity_aware_attention, "flex_entity_attention",
                        lambda *args, **kwargs: calls.append(1) or flex(*args, **kwargs))
    return calls


def test_full_window_flex_embedder_on_cuda_equals_luke_model(tiny_luke_dir,  # noqa: F811
                                                              monkeypatch):
    calls = count_flex_calls(monkeypatch)
    embedder = LongLukeEmbedder(str(tiny_luke_dir), attention_window=64,
                                attention_backend="flex").to(CUDA).eval()
    model = LukeModel.from_pretrained(tiny_luke_dir).to(CUDA).eval()
    batch = {key: value.to(CUDA) for key, value in make_batch().items()}
    with torch.no_grad():
        ours = embedder(**batch)
        theirs = luke_outputs(model, batch)
    assert len(calls) == len(model.encoder.layer)  # every layer took the flex path
    words, entities = batch["mask"].bool(), batch["entity_mask"].bool()
    assert (ours[0] - theirs[0])[words].abs().max() <= FP32_FORWARD
    assert (ours[1] - theirs[1])[entities].abs().max() <= FP32_FORWARD


def test_auto_embedder_takes_flex_under_autocast_only(tiny_luke_dir, monkeypatch):  # noqa: F811
    calls = count_flex_calls(monkeypatch)
    embedder = LongLukeEmbedder(str(tiny_luke_dir), attention_window=8).to(CUDA).eval()
    batch = {key: value.to(CUDA) for key, value in make_batch().items()}
    with torch.no_grad():
        embedder(**batch)
        assert calls == []  # exact fp32: blocked
        with torch.autocast("cuda", dtype=torch.bfloat16):
            embedder(**batch)
    assert len(calls) == len(embedder.encoder.luke.encoder.layer)
