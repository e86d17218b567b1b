"""Long-LUKE's entity-aware attention as one block-sparse ``flex_attention`` call (the ``flex``
backend of :class:`~allennlp_longent.modules.entity_aware_attention.EntityAwareSelfAttention`).

Words and entities form one sequence ``[w_1 … w_N, e_1 … e_M]``. LUKE's four query matrices
(Yamada et al. 2020, Eq. 3) are kept exact with queries and keys of width ``2d``: a word's query is
``[Q x ; Q_w2e x]``, an entity's ``[Q_e2w x ; Q_e2e x]``; a word's key is ``[K x ; 0]``, an
entity's ``[0 ; K x]``. So a word→word score is ``Q x · K y``, word→entity ``Q_w2e x · K e``,
entity→word ``Q_e2w e · K x``, entity→entity ``Q_e2e e · K f``, each scaled by ``1/√d`` (not
``1/√2d``), with one softmax per query row over every key it may see. The block mask allows
word→word pairs at most ``half`` apart (Longformer's band), every pair involving an entity
(global), and no padded key; it is built at block level from the band's geometry and the padding
(blocks fully inside the band with no padding skip the element mask), never as an ``L × L`` tensor.

``flex_attention`` runs compiled (eager flex materialises the full matrix). On CPU, torch compiles
flex for inference only, so training on CPU uses :class:`_FlexAttentionFunction`: the forward is
the compiled flex kernel, saving only queries, keys, values and outputs; the backward recomputes
the band scores block by block (FlashAttention-2's backward, Dao 2023, Alg. 2: ``dS = P ∘ (dP −
rowsum(dO ∘ O))``) in chunks of blocks, so no attention matrix is kept between the passes. On
CUDA, flex's own fused backward is used.
"""

import logging
from functools import cache
from typing import List, NamedTuple, Optional, Tuple

import torch
from torch import nn

logger = logging.getLogger(__name__)

BACKENDS = ("blocked", "flex", "auto")
FLEX_BLOCK = 128  # flex_attention's default block size; sequences are padded to a multiple
MIN_WIDTH = 16
RECOMPILE_LIMIT = 64  # distinct input shapes compiled per process before flex raises
CHUNK_ELEMENTS = 1 << 24  # score elements per chunk in the CPU backward (64 MiB in fp32)


class EntityTensors(NamedTuple):
    """Per-head entity tensors, ``(B, K, ·, d)``: ``w2e_queries`` of the words, ``e2w_queries`` and
    ``e2e_queries`` of the entities, entity ``keys`` and ``values``; ``mask`` ``(B, M)`` bool."""

    w2e_queries: torch.Tensor
    e2w_queries: torch.Tensor
    e2e_queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    mask: torch.Tensor


@cache
def _compiled_flex():
    from torch.nn.attention.flex_attention import flex_attention

    # dynamic: one compilation serves every sequence length and batch size.
    return torch.compile(flex_attention, dynamic=None)


@cache
def flex_support(device_type: str) -> Tuple[bool, str]:
    """Whether compiled ``flex_attention`` runs on ``device_type`` here; the reason when not.
    Compiles and runs one tiny call (seconds, once per process and device type)."""
    try:
        device = torch.device(device_type)
        words = torch.randn(1, 1, 8, 4, device=device)
        entity = EntityTensors(words, words[:, :, :2], words[:, :, :2], words[:, :, :2],
                               words[:, :, :2], torch.ones(1, 2, dtype=torch.bool, device=device))
        _flex_forward(words, words, words, torch.ones(1, 8, dtype=torch.bool, device=device),
                      2, 0.5, entity)
    except Exception as error:  # any failure of import, compiler or kernel means "unavailable"
        return False, f"{type(error).__name__}: {str(error).strip().splitlines()[0][:200]}"
    return True, ""


@cache
def _log_once(level: int, message: str) -> None:
    logger.log(level, message)


def resolve_backend(requested: str, device: torch.device, dropout: bool) -> str:
    """``"blocked"`` or ``"flex"`` for ``requested`` on ``device``. ``auto`` picks flex where torch
    has a fused flex forward and backward (CUDA) and blocked elsewhere (on CPU flex compiles for
    inference only and recompiles per dtype). Every fallback from a requested flex is logged once.
    ``dropout``: attention-probability dropout is active, which flex cannot express."""
    if requested not in BACKENDS:
        raise ValueError(f"attention_backend must be one of {BACKENDS}, got {requested!r}")
    if requested == "blocked" or (requested == "auto" and device.type != "cuda"):
        return "blocked"
    supported, reason = flex_support(device.type)
    if not supported:
        _log_once(logging.WARNING, f"attention_backend {requested!r}: flex_attention does not "
                  f"compile on {device.type} ({reason}); using the blocked backend")
        return "blocked"
    if dropout:
        _log_once(logging.WARNING, f"attention_backend {requested!r}: flex has no attention "
                  "dropout; using the blocked backend while training (set attention_dropout 0 "
                  "to train with flex)")
        return "blocked"
    return "flex"


def flex_entity_attention(
    word_queries: torch.Tensor,
    word_keys: torch.Tensor,
    word_values: torch.Tensor,
    word_mask: torch.Tensor,
    half: int,
    scale: float,
    entities: Optional[EntityTensors],
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """Attended ``(B, K, N, d)`` words and ``(B, K, M, d)`` entities (None without entities); the
    same function as ``banded_attention`` plus LUKE's entity terms, see the module docstring."""
    tensors = [word_queries, word_keys, word_values]
    if entities is not None:
        tensors += list(entities[:5])
    needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
    if needs_grad and word_queries.device.type == "cpu":
        entity_mask = None if entities is None else entities.mask
        outputs = _FlexAttentionFunction.apply(half, scale, word_mask, entity_mask, *tensors)
        return outputs[0], (outputs[1] if entities is not None else None)
    return _flex_forward(word_queries, word_keys, word_values, word_mask, half, scale, entities)


def _flex_forward(word_queries, word_keys, word_values, word_mask, half, scale, entities):
    batch, heads, words, _ = word_queries.shape
    if entities is None:
        queries, keys, values, real = word_queries, word_keys, word_values, word_mask
    else:
        zero_words, zero_entities = torch.zeros_like(word_keys), torch.zeros_like(entities.keys)
        queries = torch.cat([torch.cat([word_queries, entities.w2e_queries], -1),
                             torch.cat([entities.e2w_queries, entities.e2e_queries], -1)], 2)
        keys = torch.cat([torch.cat([word_keys, zero_words], -1),
                          torch.cat([zero_entities, entities.keys], -1)], 2)
        values = torch.cat([word_values, entities.values], 2)
        real = torch.cat([word_mask, entities.mask], 1)
    length, width = queries.size(2), values.size(-1)
    extra = -length % FLEX_BLOCK
    pad = nn.functional.pad
    # Zero columns change no score and add zero output columns (cut below); inductor's CPU flex
    # kernel does not compile for head widths under 16 (tiny test models).
    queries, keys = (pad(t, (0, max(0, MIN_WIDTH - t.size(-1)), 0, extra)) for t in (queries, keys))
    values = pad(values, (0, max(0, MIN_WIDTH - width), 0, extra))
    real = pad(real, (0, extra), value=False)
    block_mask = entity_block_mask(real, words, half)
    # Past the limit dynamo would run flex eagerly, which materialises the L × L matrix: fail.
    with torch._dynamo.config.patch(recompile_limit=RECOMPILE_LIMIT, automatic_dynamic_shapes=False,
                                    fail_on_recompile_limit_hit=True):
        out = _compiled_flex()(queries, keys, values, block_mask=block_mask, scale=scale)
    out = out[..., :width]
    return out[:, :, :words], (None if entities is None else out[:, :, words:length])


def entity_block_mask(real: torch.Tensor, words: int, half: int):
    """flex ``BlockMask`` over a sequence of ``words`` words followed by global tokens (entities,
    then padding), ``real`` ``(B, L)`` marking the keys that exist, ``L`` a multiple of the block.

    Per pair of blocks: some pair allowed when either block holds a global token or the closest
    word pair is within ``half``; all allowed when the farthest word pair is within ``half`` and
    the key block has no padding. Blocks with some pair allowed but not all are partial: flex
    applies the element mask (``mask_mod``) there only."""
    from torch.nn.attention.flex_attention import BlockMask

    batch, length = real.shape
    count = length // FLEX_BLOCK
    starts = torch.arange(count, device=real.device) * FLEX_BLOCK
    has_word = starts < words
    has_global = starts + FLEX_BLOCK > words
    word_end = (starts + FLEX_BLOCK - 1).clamp(max=words - 1)
    query_start, query_end = starts[:, None], word_end[:, None]
    key_start, key_end = starts[None, :], word_end[None, :]
    nearest = torch.maximum(key_start - query_end, query_start - key_end)
    farthest = torch.maximum(key_end - query_start, query_end - key_start)
    both_words = has_word[:, None] & has_word[None, :]
    some = has_global[:, None] | has_global[None, :] | (both_words & (nearest <= half))
    every = ~both_words | (farthest <= half)
    real_keys = real.view(batch, count, FLEX_BLOCK).sum(-1)
    some = some[None] & (real_keys > 0)[:, None, :]
    full = some & every[None] & (real_keys == FLEX_BLOCK)[:, None, :]
    partial = some & ~full

    word_count = torch.tensor(words, device=real.device)
    half_width = torch.tensor(half, device=real.device)

    def mask_mod(b, h, q, kv):
        band = (q - kv).abs() <= half_width
        return ((q >= word_count) | (kv >= word_count) | band) & real[b, kv]

    def indices(blocks: torch.Tensor):
        order = torch.argsort(blocks.to(torch.int8), dim=-1, descending=True, stable=True)
        return blocks.sum(-1, dtype=torch.int32)[:, None], order.to(torch.int32)[:, None]

    return BlockMask.from_kv_blocks(
        *indices(partial), *indices(full), BLOCK_SIZE=FLEX_BLOCK, mask_mod=mask_mod,
        seq_lengths=(length, length),
    )


class _FlexAttentionFunction(torch.autograd.Function):
    """Compiled flex forward, blocked FlashAttention-2 backward (CPU training)."""

    @staticmethod
    def forward(ctx, half, scale, word_mask, entity_mask, *tensors):
        word_queries, word_keys, word_values = tensors[:3]
        entities = None if entity_mask is None else EntityTensors(*tensors[3:], entity_mask)
        words, entity_out = _flex_forward(
            word_queries, word_keys, word_values, word_mask, half, scale, entities
        )
        ctx.half, ctx.scale, ctx.has_entities = half, scale, entities is not None
        outputs = (words,) if entity_out is None else (words, entity_out)
        ctx.save_for_backward(word_mask, entity_mask, *tensors, *outputs)
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        word_mask, entity_mask, *saved = ctx.saved_tensors
        count = 8 if ctx.has_entities else 3
        tensors, outputs = saved[:count], saved[count:]
        dtypes = [t.dtype for t in tensors]
        with torch.autocast(tensors[0].device.type, enabled=False):
            grads = _attention_backward(
                [t.float() for t in tensors], [o.float() for o in outputs],
                [g.float() for g in grad_outputs], word_mask, entity_mask, ctx.half, ctx.scale,
            )
        return (None, None, None, None, *(g.to(dtype) for g, dtype in zip(grads, dtypes)))


def _joint_probs(scores: List[torch.Tensor]) -> List[torch.Tensor]:
    """One softmax over the last dims of several score tensors (masked entries ``-inf``); a row
    with no visible key gets probability 0 everywhere, as flex's forward gives it output 0."""
    peak = torch.stack([s.amax(-1) for s in scores]).amax(0)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))[..., None]
    exps = [(s - peak).exp_() for s in scores]
    total = sum(e.sum(-1, keepdim=True) for e in exps)
    total = torch.where(total > 0, total, torch.ones_like(total))
    return [e.div_(total) for e in exps]


def _attention_backward(tensors, outputs, grad_outputs, word_mask, entity_mask, half, scale):
    """Gradients of :func:`flex_entity_attention` for its tensor inputs (queries, keys, values of
    words, then of entities), from the block-by-block recomputation of the probabilities."""
    # Imported here: entity_aware_attention imports this module.
    from allennlp_longent.modules.entity_aware_attention import (
        band_geometry,
        band_hidden,
        band_windows,
    )

    word_queries, word_keys, word_values = tensors[:3]
    has_entities = entity_mask is not None
    if has_entities:
        w2e_queries, e2w_queries, e2e_queries, entity_keys, entity_values = tensors[3:]
    batch, heads, length, dim = word_queries.shape
    geometry = band_geometry(length, half)
    half, block, span, blocks, tail = geometry
    pad = nn.functional.pad
    key_windows = band_windows(word_keys, geometry)
    value_windows = band_windows(word_values, geometry)
    hidden = band_hidden(word_mask.bool(), geometry)[:, None]
    queries = pad(word_queries * scale, (0, 0, 0, tail)).view(batch, heads, blocks, block, dim)
    grad_words = pad(grad_outputs[0], (0, 0, 0, tail)).view(batch, heads, blocks, block, dim)
    delta = (pad(grad_outputs[0] * outputs[0], (0, 0, 0, tail)).sum(-1)
             .view(batch, heads, blocks, block, 1))
    grad_queries = torch.empty_like(queries)
    grad_keys = word_keys.new_zeros(batch, heads, (blocks + 2) * block, dim)
    grad_values = torch.zeros_like(grad_keys)
    if has_entities:
        w2e = pad(w2e_queries * scale, (0, 0, 0, tail)).view(batch, heads, blocks, block, dim)
        entity_hidden = ~entity_mask.bool()[:, None, None, None, :]
        grad_w2e = torch.empty_like(w2e)
        grad_entity_keys = torch.zeros_like(entity_keys)
        grad_entity_values = torch.zeros_like(entity_values)
    windows = span // block  # each key window is `windows` consecutive key blocks
    step = max(1, CHUNK_ELEMENTS // (batch * heads * block * span))
    for first in range(0, blocks, step):
        chunk = slice(first, min(first + step, blocks))
        scores = [(queries[:, :, chunk] @ key_windows[:, :, chunk]).masked_fill_(
            hidden[:, :, chunk], float("-inf"))]
        if has_entities:
            scores.append((w2e[:, :, chunk] @ entity_keys[:, :, None].transpose(-1, -2))
                          .masked_fill_(entity_hidden, float("-inf")))
        probs = _joint_probs(scores)
        grad_out = grad_words[:, :, chunk]
        d_scores = (grad_out @ value_windows[:, :, chunk]).sub_(delta[:, :, chunk]).mul_(probs[0])
        grad_queries[:, :, chunk] = d_scores @ key_windows[:, :, chunk].transpose(-1, -2)
        key_part = d_scores.transpose(-1, -2) @ queries[:, :, chunk]
        value_part = probs[0].transpose(-1, -2) @ grad_out
        rows = (chunk.stop - chunk.start) * block
        for window in range(windows):  # fold: window part w of block i is key block i + w
            target = slice((chunk.start + window) * block, (chunk.start + window) * block + rows)
            part = slice(window * block, (window + 1) * block)
            shape = (batch, heads, rows, dim)
            grad_keys[:, :, target] += key_part[..., part, :].reshape(shape)
            grad_values[:, :, target] += value_part[..., part, :].reshape(shape)
        if has_entities:
            d_entity = (grad_out @ entity_values[:, :, None].transpose(-1, -2)).sub_(
                delta[:, :, chunk]).mul_(probs[1])
            grad_w2e[:, :, chunk] = d_entity @ entity_keys[:, :, None]
            grad_entity_keys += (d_entity.transpose(-1, -2) @ w2e[:, :, chunk]).sum(2)
            grad_entity_values += (probs[1].transpose(-1, -2) @ grad_out).sum(2)
    grads = [
        grad_queries.view(batch, heads, -1, dim)[:, :, :length] * scale,
        grad_keys[:, :, half:half + length],
        grad_values[:, :, half:half + length],
    ]
    if not has_entities:
        return grads
    grads.append(grad_w2e.view(batch, heads, -1, dim)[:, :, :length] * scale)
    grads += _entity_rows_backward(
        e2w_queries, e2e_queries, word_keys, entity_keys, word_values, entity_values,
        outputs[1], grad_outputs[1], word_mask, entity_mask, scale,
    )
    grads[1] += grads.pop(-4)  # word keys: from word rows and entity rows
    grads[2] += grads.pop(-3)  # word values
    grads[-2] += grad_entity_keys
    grads[-1] += grad_entity_values
    return grads


def _entity_rows_backward(e2w_queries, e2e_queries, word_keys, entity_keys, word_values,
                          entity_values, outputs, grad_outputs, word_mask, entity_mask, scale):
    """Entity queries see every word and entity (dense ``M × (N + M)``); returns the gradients of
    e2w queries, e2e queries, word keys, word values, entity keys, entity values."""
    to_words = (e2w_queries * scale) @ word_keys.transpose(-1, -2)
    to_entities = (e2e_queries * scale) @ entity_keys.transpose(-1, -2)
    to_words.masked_fill_(~word_mask.bool()[:, None, None, :], float("-inf"))
    to_entities.masked_fill_(~entity_mask.bool()[:, None, None, :], float("-inf"))
    word_probs, entity_probs = _joint_probs([to_words, to_entities])
    delta = (grad_outputs * outputs).sum(-1, keepdim=True)
    d_words = (grad_outputs @ word_values.transpose(-1, -2)).sub_(delta).mul_(word_probs)
    d_entities = (grad_outputs @ entity_values.transpose(-1, -2)).sub_(delta).mul_(entity_probs)
    return [
        d_words @ word_keys * scale,
        d_entities @ entity_keys * scale,
        d_words.transpose(-1, -2) @ e2w_queries * scale,
        word_probs.transpose(-1, -2) @ grad_outputs,
        d_entities.transpose(-1, -2) @ e2e_queries * scale,
        entity_probs.transpose(-1, -2) @ grad_outputs,
    ]
