"""Opt-in compiled pointwise work of a Long-LUKE layer (``compile_pointwise``).

A Long-LUKE layer is LUKE's ``LukeLayer`` with :class:`EntityAwareSelfAttention` as its
self-attention. Its matmuls already run at the BLAS rate; what keeps a CPU training step below it
is many small memory-bound operators (layer norms, GELU and their backwards, residual adds, the
heads' merge and the word/entity concatenations), each a separate pass over ``(n + m) × H`` or
``(n + m) × 4H`` floats. :func:`compiled_layer_forward` runs the same layer in three steps:

1. the projections (:meth:`EntityAwareSelfAttention.project`), eager;
2. the attention core (:meth:`EntityAwareSelfAttention.attend`: the flex band kernel or the
   blocked reference), eager: it is an autograd Function with its own blocked backward;
3. everything after the core as one ``torch.compile`` graph (inductor): the heads' merge, the
   attention output (dense, dropout, residual, LayerNorm) and the feed-forward block (dense,
   activation, dense, dropout, residual, LayerNorm). Inductor keeps the matmuls on the BLAS path
   (extern ``mm``) and fuses the pointwise work around them, forward and backward; its partitioner
   is allowed to recompute what a backward matmul reads (the activation's output from the
   pre-activation, the first layer norm's output), so the training step keeps ``5·H`` floats per
   row fewer alive between the passes than eager (measured with saved-tensor hooks).

The function computes the same values as the eager layer (up to float rounding: fused kernels sum
in another order; ``tests/modules/test_compiled_layer.py``). With dropout > 0 inductor draws its
own random numbers, so masks differ from eager's (the distribution is the same).

Compilation never falls back silently: the graph is compiled with ``fullgraph=True`` and a
failure raises with the reason; past :data:`RECOMPILE_LIMIT` input shapes per process it raises
too (dynamo would otherwise run eagerly). A new input shape recompiles once (seconds); after the
second length dynamo makes the length dynamic, so documents of varying lengths share a graph.
"""

from functools import cache
from typing import Optional, Tuple

import torch
from torch import nn

from allennlp_longent.modules.entity_aware_attention import (
    EntityAwareSelfAttention,
    WordEntityMask,
    merge_heads,
)
from allennlp_longent.modules.flex_entity_attention import RECOMPILE_LIMIT

ACTIVATIONS = ("gelu", "relu", "gelu_new", "gelu_pytorch_tanh")


def check_compilable(layer: nn.Module) -> None:
    """Raises ``ValueError`` when ``layer`` is not a Long-LUKE layer the compiled path covers."""
    if not isinstance(layer.attention.self, EntityAwareSelfAttention):
        raise ValueError("compile_pointwise needs EntityAwareSelfAttention in every layer")
    if _activation_name(layer) is None:
        raise ValueError(
            f"compile_pointwise covers the activations {ACTIVATIONS}; this layer has "
            f"{type(layer.intermediate.intermediate_act_fn).__name__}"
        )
    if getattr(layer, "chunk_size_feed_forward", 0):
        raise ValueError("compile_pointwise does not cover chunk_size_feed_forward > 0")


def _activation_name(layer: nn.Module) -> Optional[str]:
    """``"gelu"`` (exact, erf), ``"tanh"`` (tanh approximation) or ``"relu"``, None otherwise."""
    function = layer.intermediate.intermediate_act_fn
    kind = type(function).__name__
    if kind == "GELUActivation" and getattr(function, "act", None) is nn.functional.gelu:
        return "gelu"
    if kind in ("NewGELUActivation", "PytorchGELUTanh"):
        return "tanh"
    if isinstance(function, nn.ReLU) or function is nn.functional.relu:
        return "relu"
    return None


def _activate(x: torch.Tensor, name: str) -> torch.Tensor:
    if name == "gelu":
        return nn.functional.gelu(x)
    if name == "tanh":
        return nn.functional.gelu(x, approximate="tanh")
    return nn.functional.relu(x)


def _after_core(
    word_context: torch.Tensor,
    entity_context: Optional[torch.Tensor],
    words: torch.Tensor,
    entities: Optional[torch.Tensor],
    weights: Tuple[torch.Tensor, ...],
    eps: Tuple[float, float],
    dropout: Tuple[float, float],
    training: bool,
    activation: str,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """``LukeAttention``'s output block and ``LukeLayer``'s feed-forward on the core's per-head
    outputs; the layer's new ``(B, N, H)`` words and ``(B, M, H)`` entities."""
    (out_weight, out_bias, norm1_weight, norm1_bias, in_weight, in_bias, ffn_weight, ffn_bias,
     norm2_weight, norm2_bias) = weights
    functional = nn.functional
    length = words.size(1)
    context, hidden = merge_heads(word_context), words
    if entity_context is not None:
        context = torch.cat([context, merge_heads(entity_context)], 1)
        hidden = torch.cat([words, entities], 1)
    shape = (hidden.size(-1),)
    attended = functional.dropout(functional.linear(context, out_weight, out_bias), dropout[0],
                                  training)
    attended = functional.layer_norm(attended + hidden, shape, norm1_weight, norm1_bias, eps[0])
    inner = _activate(functional.linear(attended, in_weight, in_bias), activation)
    output = functional.dropout(functional.linear(inner, ffn_weight, ffn_bias), dropout[1],
                                training)
    output = functional.layer_norm(output + attended, shape, norm2_weight, norm2_bias, eps[1])
    if entity_context is None:
        return output, None
    return output[:, :length], output[:, length:]


@cache
def _compiled_after_core():
    return torch.compile(_after_core, fullgraph=True, dynamic=None)


def compiled_layer_forward(
    layer: nn.Module,
    words: torch.Tensor,
    entities: Optional[torch.Tensor],
    masks: WordEntityMask,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """The outputs of ``layer(words, entities, masks)[:2]`` (a transformers ``LukeLayer`` with
    :class:`EntityAwareSelfAttention`), with the work after the attention core compiled; see the
    module docstring."""
    attention = layer.attention.self
    word_queries, word_keys, word_values, entity_heads = attention.project(words, entities, masks)
    word_context, entity_context = attention.attend(
        word_queries, word_keys, word_values, entity_heads, masks.words)
    # The projections' output (4·H floats per word) is not needed past the core; dropped here, it
    # is not alive through the feed-forward's forward (as in the eager layer).
    del word_queries, word_keys, word_values, entity_heads
    empty_entities = None
    if entity_context is None and entities is not None:  # a batch whose entity rows are empty
        empty_entities, entities = entities, None
    self_output, output = layer.attention.output, layer.output
    weights = (self_output.dense.weight, self_output.dense.bias, self_output.LayerNorm.weight,
               self_output.LayerNorm.bias, layer.intermediate.dense.weight,
               layer.intermediate.dense.bias, output.dense.weight, output.dense.bias,
               output.LayerNorm.weight, output.LayerNorm.bias)
    arguments = (word_context, entity_context, words, entities, weights,
                 (self_output.LayerNorm.eps, output.LayerNorm.eps),
                 (self_output.dropout.p, output.dropout.p), layer.training,
                 _activation_name(layer))
    # Past the limit dynamo would run the function eagerly without a word: fail instead. The
    # partitioner may recompute what a backward matmul reads (the activation's output, the first
    # layer norm's output) rather than keep it from the forward: 5·H floats fewer per row alive
    # between the passes (about 240 MiB at 16k words, BERT-base) for one fused pointwise pass.
    with torch._dynamo.config.patch(recompile_limit=RECOMPILE_LIMIT,
                                    fail_on_recompile_limit_hit=True), \
            torch._functorch.config.patch(ban_recompute_materialized_backward=False):
        try:
            new_words, new_entities = _compiled_after_core()(*arguments)
        except torch._dynamo.exc.TorchDynamoException as error:  # dynamo's and inductor's
            reason = (str(error).strip().splitlines() or [""])[0][:300]
            raise RuntimeError(
                "compile_pointwise: torch.compile could not compile the layer's pointwise work "
                f"({type(error).__name__}: {reason}); set compile_pointwise to false to run the "
                "layer eagerly"
            ) from error
    return new_words, (empty_entities if new_entities is None else new_entities)
