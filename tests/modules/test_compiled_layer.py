"""``compile_pointwise``: the Long-LUKE layer with its work after the attention core compiled equals
the eager layer, outputs and every gradient, for both attention backends, with padded words and
entities, a row without entities and gradient checkpointing; unsupported layers and compilation
failures raise.

Compilation is the slow part (seconds): every compiled run here uses one batch shape, so the
graph compiles once per process.
"""

import pytest
import torch
from allennlp.common import Params
from allennlp.modules.token_embedders import TokenEmbedder
from test_long_luke import make_batch, tiny_luke_dir  # noqa: F401 (fixture)
from transformers import LukeConfig, LukeModel

from allennlp_longent.modules import compiled_layer
from allennlp_longent.modules.long_luke import LongLukeEncoder

# Fused kernels sum in another order than eager's: float rounding only, relative to each tensor
# (with a floor for gradients that are zero up to rounding in both).
RELATIVE_TOLERANCE, ABSOLUTE_TOLERANCE = 1e-5, 1e-8


def run(directory, backend: str, compiled: bool, checkpointing: bool = False):
    """Outputs and gradients (inputs of the loss and every parameter) of a training step, and the
    bytes of the distinct storages autograd keeps for the backward."""
    params = Params({
        "type": "long_luke", "model_name": str(directory), "attention_window": 6,
        "attention_backend": backend, "attention_dropout": 0.0, "compile_pointwise": compiled,
        "gradient_checkpointing": checkpointing,
    })
    embedder = TokenEmbedder.from_params(params).train()
    for module in embedder.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    batch = make_batch()
    saved = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        saved[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        words, entities = embedder(**batch)
    weights = torch.linspace(-1, 1, words.size(-1))
    real = batch["mask"].bool()
    loss = (words * weights)[real].sum() + entities[batch["entity_mask"].bool()].pow(2).sum()
    loss.backward()
    grads = [p.grad for p in embedder.parameters() if p.grad is not None]
    run.saved_bytes = sum(saved.values())
    config = embedder.encoder.luke.config
    rows = batch["token_ids"].numel() + batch["entity_ids"].numel()
    run.activation_bytes = rows * config.intermediate_size * 4 * config.num_hidden_layers
    return [words[real].detach(), entities.detach()], grads


def assert_close(reference, ours):
    assert len(reference) == len(ours) > 0
    for a, b in zip(reference, ours):
        limit = RELATIVE_TOLERANCE * float(a.abs().max()) + ABSOLUTE_TOLERANCE
        assert float((a - b).abs().max()) <= limit


@pytest.mark.parametrize("backend", ["flex", "blocked"])
def test_compiled_equals_eager(tiny_luke_dir, backend):  # noqa: F811
    eager_outputs, eager_grads = run(tiny_luke_dir, backend, compiled=False)
    eager_saved = run.saved_bytes
    outputs, grads = run(tiny_luke_dir, backend, compiled=True)
    assert_close(eager_outputs, outputs)
    assert_close(eager_grads, grads)
    assert len(grads) == len(eager_grads)
    # The partitioner recomputes the activation's and the first layer norm's outputs in the
    # backward instead of keeping them (compiled_layer's docstring): at least the activation's
    # output fewer bytes (torch's default partition keeps it: 2 KB fewer than eager here, not 40).
    assert eager_saved - run.saved_bytes >= run.activation_bytes
    if backend == "flex":
        outputs, grads = run(tiny_luke_dir, backend, compiled=True, checkpointing=True)
        assert_close(eager_outputs, outputs)
        assert_close(eager_grads, grads)


def test_unsupported_activation_is_refused():
    config = LukeConfig(vocab_size=10, entity_vocab_size=5, hidden_size=8, entity_emb_size=8,
                        num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
                        hidden_act="silu")
    with pytest.raises(ValueError, match="compile_pointwise covers"):
        LongLukeEncoder(LukeModel(config), 4, compile_pointwise=True)
    LongLukeEncoder(LukeModel(config), 4)  # eager runs any activation


def test_compilation_failure_raises(tiny_luke_dir, monkeypatch):  # noqa: F811
    class CompilerMissing(torch._dynamo.exc.TorchDynamoException):
        pass

    def broken(*args):
        raise CompilerMissing("no C++ compiler")

    monkeypatch.setattr(compiled_layer, "_compiled_after_core", lambda: broken)
    embedder = TokenEmbedder.from_params(Params({
        "type": "long_luke", "model_name": str(tiny_luke_dir), "attention_window": 6,
        "compile_pointwise": True,
    }))
    with pytest.raises(RuntimeError, match="compile_pointwise: torch.compile could not compile"):
        embedder(**make_batch())


def test_compiled_inference_equals_eager(tiny_luke_dir):  # noqa: F811
    batch = make_batch()
    outputs = []
    for compiled in (False, True):
        embedder = TokenEmbedder.from_params(Params({
            "type": "long_luke", "model_name": str(tiny_luke_dir), "attention_window": 6,
            "attention_backend": "flex", "compile_pointwise": compiled,
        })).eval()
        with torch.no_grad():
            outputs.append(embedder(**batch))
    real = batch["mask"].bool()
    assert_close([outputs[0][0][real], outputs[0][1]], [outputs[1][0][real], outputs[1][1]])
