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

``flex_attention`` runs compiled (eager flex materialises the full matrix). On CUDA, flex's own
fused backward is used. On CPU, torch compiles flex for inference only (and without its
log-sum-exp), so CPU training runs :class:`_BandAttentionFunction`: the same function computed by
:mod:`~allennlp_longent.modules.band_kernel` at width ``d`` in 64-word blocks; its backward
recomputes the band's probabilities from the saved queries, keys and per-row softmax statistics
(FlashAttention-2's backward, Dao 2023) unless ``keep_probs`` keeps them between the passes.
"""

import logging
import math
from functools import cache
from typing import List, NamedTuple, Optional, Tuple

import torch
from torch import nn

from allennlp_longent.modules import band_kernel

logger = logging.getLogger(__name__)

BACKENDS = ("blocked", "flex", "auto")
FLEX_BLOCK = 128  # flex_attention's default block size; sequences are padded to a multiple
MIN_WIDTH = 16
RECOMPILE_LIMIT = 64  # distinct input shapes compiled per process before flex raises


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


def resolve_backend(requested: str, device: torch.device, dropout: bool,
                    dtype: torch.dtype = torch.float32) -> str:
    """``"blocked"`` or ``"flex"`` for ``requested`` on ``device`` with queries of ``dtype``.
    ``auto`` picks flex on CUDA where its kernel runs on tensor cores: bf16 or fp16 queries
    (autocast), or fp32 with TF32 matmuls allowed. In exact fp32 (PyTorch's default, TF32 off)
    Triton's fp32 dot runs without tensor cores, and on an H100 the flex core took 30 to 35 times
    the blocked one's time (docs/benchmarks.md, "On a GPU"), so ``auto`` stays blocked there, as on
    CPU (where flex compiles for inference only and recompiles per dtype). Every fallback from a
    requested flex is logged once. ``dropout``: attention-probability dropout is active, which
    flex cannot express."""
    if requested not in BACKENDS:
        raise ValueError(f"attention_backend must be one of {BACKENDS}, got {requested!r}")
    if requested == "blocked" or (requested == "auto" and device.type != "cuda"):
        return "blocked"
    if requested == "auto" and dtype == torch.float32 and not torch.backends.cuda.matmul.allow_tf32:
        _log_once(logging.INFO, "attention_backend 'auto': exact fp32 on CUDA runs the blocked "
                  "backend (flex's fp32 kernel has no tensor cores); train under autocast or "
                  "allow TF32 to get flex")
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
    keep_probs: bool = False,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """Attended ``(B, K, N, d)`` words and ``(B, K, M, d)`` entities (None without entities); the
    same function as ``banded_attention`` plus LUKE's entity terms, see the module docstring.
    ``keep_probs``: CPU training keeps the band's probabilities for the backward instead of
    recomputing them (same results; more memory, one matmul and ``exp`` pass less)."""
    tensors = [word_queries, word_keys, word_values]
    if entities is not None:
        tensors += list(entities[:5])
    needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
    if needs_grad and word_queries.device.type == "cpu":
        entity_mask = None if entities is None else entities.mask
        outputs = _BandAttentionFunction.apply(half, scale, keep_probs, word_mask, entity_mask,
                                               *tensors)
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


class _BandAttentionFunction(torch.autograd.Function):
    """CPU training: :mod:`band_kernel`'s blocked forward and backward for the word rows, dense
    entity rows. The band's probabilities are recomputed in the backward from the saved queries,
    keys and per-row softmax statistics unless ``keep_probs``. Computes in fp32 (fp64 for fp64
    inputs) and returns the inputs' dtype (bf16 autocast). Word-sized results are written into
    the block layout's buffers (GEMMs accumulating in place, scales folded into GEMMs or into the
    small entity operands) rather than made by extra element-wise passes."""

    @staticmethod
    def forward(ctx, half, scale, keep_probs, word_mask, entity_mask, *tensors):
        dtypes = [t.dtype for t in tensors]
        compute = torch.float64 if dtypes[0] == torch.float64 else torch.float32
        with torch.autocast(tensors[0].device.type, enabled=False):
            tensors = [t.to(compute) for t in tensors]
            word_queries, word_keys, word_values = tensors[:3]
            batch, heads, words, _ = word_queries.shape
            layout = band_kernel.band_layout(batch * heads, words, half)
            valid = word_mask.bool()[:, None, :, None].expand(batch, heads, words, 1)
            band = band_kernel.BandInputs(
                band_kernel.to_blocks(word_queries, layout, scale),
                band_kernel.to_blocks(word_keys, layout),
                band_kernel.to_blocks(word_values, layout),
                band_kernel.to_blocks(valid, layout)[..., 0],
                band_kernel.band_masks(layout, half, word_queries.device),
            )
            entity_scores, saved = None, []
            if entity_mask is not None:
                w2e, e2w, e2e, entity_keys, entity_values = tensors[3:]
                entity_scores = _word_entity_score_blocks(w2e, entity_keys, entity_mask, scale,
                                                          layout)
            out, probs, stats, entity_probs = band_kernel.band_forward(band, layout, entity_scores,
                                                                       keep_probs)
            if entity_mask is not None:
                band_kernel.word_rows(out, layout).baddbmm_(
                    band_kernel.word_rows(entity_probs, layout), entity_values.flatten(0, 1))
            outputs = [band_kernel.from_blocks(out, layout, batch)]
            if entity_mask is not None:
                entity_probs = band_kernel.from_blocks(entity_probs, layout, batch)
                row_probs = _entity_row_probs(e2w, e2e, word_keys, entity_keys, word_mask,
                                              entity_mask, scale)
                outputs.append(row_probs[0] @ word_values + row_probs[1] @ entity_values)
                # w2e is a view of the word projections' joint output (Q, K, V, Q_w2e): kept as
                # is, it would keep all four alive until the backward (3·H floats per word more).
                saved = [w2e.contiguous(), *tensors[4:], entity_probs, *row_probs]
        ctx.layout, ctx.scale, ctx.dtypes, ctx.masks = layout, scale, dtypes, band.masks
        ctx.keep_probs = keep_probs
        kept = [probs] if keep_probs else []
        # out: the word outputs' blocks (outputs[0] is a view of them), for rowsum(dO ∘ O).
        ctx.save_for_backward(band.queries, band.keys, band.values, band.valid, *stats, *kept,
                              out, *outputs[1:], *saved)
        return tuple(o.to(dtypes[0]) for o in outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        queries, keys, values, valid, peak, inverse, *rest = ctx.saved_tensors
        probs = rest.pop(0) if ctx.keep_probs else None
        layout, scale = ctx.layout, ctx.scale
        batch = grad_outputs[0].size(0)
        with torch.autocast(queries.device.type, enabled=False):
            grad_outputs = [g.to(queries.dtype) for g in grad_outputs]
            band = band_kernel.BandInputs(queries, keys, values, valid, ctx.masks)
            grad_q, grad_k, grad_v, delta = band_kernel.band_backward(
                band, layout, probs, band_kernel.RowStats(peak, inverse), rest[0],
                band_kernel.to_blocks(grad_outputs[0], layout), query_scale=scale)
            grads = [band_kernel.from_blocks(g, layout, batch) for g in (grad_q, grad_k, grad_v)]
            delta = band_kernel.from_blocks(delta, layout, batch)
            if len(rest) > 1:
                entity_out, w2e, e2w, e2e, entity_keys, entity_values, entity_probs = rest[1:8]
                d_scores = (grad_outputs[0] @ entity_values.transpose(-1, -2)).sub_(delta)
                d_scores.mul_(entity_probs)
                rows = _entity_rows_backward(
                    e2w, e2e, band_kernel.from_blocks(keys, layout, batch), entity_keys,
                    band_kernel.from_blocks(values, layout, batch), entity_values, rest[8:10],
                    entity_out, grad_outputs[1], scale, grads[1], grads[2])
                grads += [d_scores @ (entity_keys * scale), rows[0], rows[1],
                          rows[2] + d_scores.transpose(-1, -2) @ (w2e * scale),
                          rows[3] + entity_probs.transpose(-1, -2) @ grad_outputs[0]]
        return (None, None, None, None, None, *(g.to(d) for g, d in zip(grads, ctx.dtypes)))


def _word_entity_score_blocks(w2e_queries, entity_keys, entity_mask, scale, layout):
    """Scaled ``(B, K, N, M)`` word→entity scores (``Q_w2e``) in block layout (one GEMM writing
    the blocks' word rows), ``−inf`` at padded entities."""
    blocks = band_kernel.empty_blocks(layout, entity_keys.size(2), w2e_queries)
    rows = band_kernel.word_rows(blocks, layout)
    rows.baddbmm_(w2e_queries.flatten(0, 1), entity_keys.flatten(0, 1).transpose(1, 2), beta=0,
                  alpha=scale)
    if not bool(entity_mask.all()):
        rows.view(w2e_queries.shape[:3] + (-1,)).masked_fill_(
            ~entity_mask.bool()[:, None, None, :], -math.inf)
    return blocks


def _joint_probs(scores: List[torch.Tensor]) -> List[torch.Tensor]:
    """One softmax over the last dims of several score tensors (masked entries ``-inf``); a row
    with no visible key gets probability 0 everywhere, as flex's forward gives it output 0."""
    peak = torch.stack([s.amax(-1) for s in scores]).amax(0)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))[..., None]
    exps = [(s - peak).exp_() for s in scores]
    total = sum(e.sum(-1, keepdim=True) for e in exps)
    total = torch.where(total > 0, total, torch.ones_like(total))
    return [e.div_(total) for e in exps]


def _entity_row_probs(e2w_queries, e2e_queries, word_keys, entity_keys, word_mask, entity_mask,
                      scale):
    """Entity queries see every word and entity: one dense ``M × (N + M)`` softmax per head."""
    to_words = (e2w_queries * scale) @ word_keys.transpose(-1, -2)
    to_entities = (e2e_queries * scale) @ entity_keys.transpose(-1, -2)
    to_words.masked_fill_(~word_mask.bool()[:, None, None, :], float("-inf"))
    to_entities.masked_fill_(~entity_mask.bool()[:, None, None, :], float("-inf"))
    return _joint_probs([to_words, to_entities])


def _entity_rows_backward(e2w_queries, e2e_queries, word_keys, entity_keys, word_values,
                          entity_values, probs, outputs, grad_outputs, scale, grad_word_keys,
                          grad_word_values):
    """Gradients of the dense entity rows (``probs``: their probabilities over words and over
    entities): e2w queries, e2e queries, entity keys and entity values are returned; the word keys'
    and values' terms are added to ``grad_word_keys`` and ``grad_word_values`` in place."""
    word_probs, entity_probs = probs
    delta = (grad_outputs * outputs).sum(-1, keepdim=True)
    d_words = (grad_outputs @ word_values.transpose(-1, -2)).sub_(delta).mul_(word_probs)
    d_entities = (grad_outputs @ entity_values.transpose(-1, -2)).sub_(delta).mul_(entity_probs)
    grad_word_keys.flatten(0, 1).baddbmm_(d_words.transpose(-1, -2).flatten(0, 1),
                                          (e2w_queries * scale).flatten(0, 1))
    grad_word_values.flatten(0, 1).baddbmm_(word_probs.transpose(-1, -2).flatten(0, 1),
                                            grad_outputs.flatten(0, 1))
    return [
        (d_words @ word_keys).mul_(scale),
        d_entities @ (entity_keys * scale),
        d_entities.transpose(-1, -2) @ (e2e_queries * scale),
        entity_probs.transpose(-1, -2) @ grad_outputs,
    ]
