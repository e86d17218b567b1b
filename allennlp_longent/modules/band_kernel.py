"""Exact banded entity-aware attention for CPU training: word query blocks against shifted key
blocks, and the softmax backward in FlashAttention-2's form
(Dao 2023, Alg. 2: ``dS = P ∘ (dP − rowsum(dO ∘ O))``), with every matmul a plain contiguous
batched matmul. By default the band's probabilities (``(2·reach + 1)·block`` per word and head,
about 440 MiB for 16k words and 12 heads) are not kept for the backward: it recomputes them chunk by
chunk from the queries, keys and two saved numbers per row (the softmax's peak and inverse sum),
with the forward's own operations, so they are the same bits. That costs a seventh matmul and an
``exp`` pass per score; ``keep_probs`` keeps them instead.

Layout: each head's words are cut into blocks of ``block`` rows; the heads are laid end to end,
each behind ``reach = ⌈half / block⌉`` zero blocks, with ``reach`` more at the end. A word in query
block ``i`` can only see keys in blocks ``i − reach … i + reach``: ``2·reach + 1`` consecutive
blocks, i.e. one ``((2·reach + 1)·block, d)`` matrix of an overlapping strided view of the keys (no
copy), so one ``bmm`` over a range of query blocks gives all their scores, and one more their
output. The key and value gradients go per offset ``o``: one ``bmm`` of a range of query blocks
against the same range shifted by ``o``. Only the two outermost offsets cross the band's edge and
need the element mask; zero blocks, padded words and the padding of a head's last block are
masked as keys. Per query row the scores at width ``d`` are ``(2·reach + 1)·block`` keys (576
for ``half`` 256 and blocks of 64), against the 513 of the band: 1.12× the useful work, where
the joint ``2d``-wide flex formulation executes 2.5×. Word→entity scores use LUKE's ``Q_w2e``
(Yamada et al. 2020, Eq. 3) as one dense ``N × M`` product per head and join the band in one
softmax per row; entity rows are dense.
"""

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

import torch

# 64-word blocks: 576 keys per query for half 256 (128-word blocks: 640); the core's training step
# was 2.92 against 3.06 CPU s at 16k words and even at 4k (medians, interleaved, 1 thread).
BLOCK = 64
# Band scores per chunk (4 MiB in fp32): a chunk's softmax passes then stay in the cache; 32 MiB
# chunks made the attention core's training step 12 % slower at 4k words and 4 % at 16k.
CHUNK_ELEMENTS = 1 << 20


class Layout(NamedTuple):
    """``heads`` (batch × heads) sequences of ``length`` words in ``blocks`` blocks of ``block``,
    each behind ``reach`` zero blocks (``segment = reach + blocks`` blocks per head)."""

    heads: int
    length: int
    block: int
    reach: int
    blocks: int

    @property
    def segment(self) -> int:
        return self.reach + self.blocks

    @property
    def total(self) -> int:
        return self.heads * self.segment + self.reach


def band_layout(heads: int, length: int, half: int, block: int = BLOCK) -> Layout:
    half = min(half, length - 1)
    return Layout(heads, length, block, max(1, math.ceil(half / block)), math.ceil(length / block))


def to_blocks(x: torch.Tensor, layout: Layout, scale: Optional[float] = None) -> torch.Tensor:
    """``(B, K, N, c)`` → ``(total, block, c)`` zero-padded blocks, times ``scale`` when given (one
    pass over ``x``; only the padding is zero-filled)."""
    out = empty_blocks(layout, x.size(-1), x)
    words = word_rows(out, layout).view(x.shape)
    if scale is None:
        words.copy_(x)
    else:
        torch.mul(x, scale, out=words)
    return out


def empty_blocks(layout: Layout, channels: int, like: torch.Tensor) -> torch.Tensor:
    """``(total, block, channels)`` blocks of ``like``'s dtype and device whose padding (the zero
    blocks and the rows past each head's last word) is zero and whose word rows are unset."""
    heads, length, block, reach, _ = layout
    out = like.new_empty(layout.total, block, channels)
    rows = out[: heads * layout.segment].view(heads, layout.segment * block, channels)
    rows[:, : reach * block].zero_()
    rows[:, reach * block + length:].zero_()
    out[heads * layout.segment:].zero_()
    return out


def from_blocks(blocks: torch.Tensor, layout: Layout, batch: int) -> torch.Tensor:
    """The ``(B, K, N, c)`` view of the words in ``blocks``."""
    return word_rows(blocks, layout).view(batch, -1, layout.length, blocks.size(-1))


def word_rows(blocks: torch.Tensor, layout: Layout) -> torch.Tensor:
    """The ``(B·K, N, c)`` view of the words in ``blocks`` (strided: the padding lies between)."""
    heads, length, block, reach, _ = layout
    rows = blocks[: heads * layout.segment].view(heads, layout.segment * block, blocks.size(-1))
    return rows[:, reach * block: reach * block + length]


def band_masks(layout: Layout, half: int, device: torch.device) -> List[Optional[torch.Tensor]]:
    """Per offset ``−reach … reach``: ``(block, block)`` bool, True where the key is within
    ``half`` of the query; None where the whole block pair is."""
    block, reach = layout.block, layout.reach
    half = min(half, layout.length - 1)
    positions = torch.arange(block, device=device)
    distance = positions[None, :] - positions[:, None]
    masks = []
    for offset in range(-reach, reach + 1):
        allowed = (distance + offset * block).abs() <= half
        masks.append(None if bool(allowed.all()) else allowed)
    return masks


class BandInputs(NamedTuple):
    """Blocked, pre-scaled word queries; word keys and values; ``valid`` ``(total, block)`` keys."""

    queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    valid: torch.Tensor
    masks: List[Optional[torch.Tensor]]


def _chunk_step(layout: Layout) -> int:
    return max(1, CHUNK_ELEMENTS // ((2 * layout.reach + 1) * layout.block * layout.block))


def _chunks(layout: Layout) -> Sequence[slice]:
    """Ranges of query blocks (every block of every head, zero blocks between heads included)."""
    step = _chunk_step(layout)
    first, last = layout.reach, layout.total - layout.reach
    return [slice(start, min(start + step, last)) for start in range(first, last, step)]


def _shift(chunk: slice, offset: int) -> slice:
    return slice(chunk.start + offset, chunk.stop + offset)


def _visible(band: BandInputs, chunk: slice, index: int, offset: int) -> Optional[torch.Tensor]:
    """``(c, block, block)`` bool of the visible pairs of one offset, None when all are."""
    keys = band.valid[_shift(chunk, offset)]
    mask = band.masks[index]
    if mask is None and bool(keys.all()):
        return None
    visible = keys[:, None, :]
    return visible if mask is None else visible & mask


def _windows(blocks: torch.Tensor, layout: Layout) -> torch.Tensor:
    """``(total − 2·reach, (2·reach + 1)·block, c)``: window ``w`` is the ``2·reach + 1``
    consecutive blocks from block ``w`` (the keys a query block ``w + reach`` may see) as one
    matrix; an overlapping strided view, no copy."""
    block, reach, channels = layout.block, layout.reach, blocks.size(-1)
    return blocks.as_strided(
        (blocks.size(0) - 2 * reach, (2 * reach + 1) * block, channels),
        (block * channels, channels, 1), blocks.storage_offset())


def _window_chunk(chunk: slice, layout: Layout) -> slice:
    return _shift(chunk, -layout.reach)


class RowStats(NamedTuple):
    """Per query row ``(total, block, 1)``: the softmax's ``peak`` (the row's largest visible score,
    0 for a row with none) and ``inverse`` (1 / the sum of ``exp(score − peak)``, 0 for a row with
    no visible key); the probabilities are ``exp(score − peak) · inverse``."""

    peak: torch.Tensor
    inverse: torch.Tensor


def _chunk_scores(band: BandInputs, layout: Layout, chunk: slice, key_windows: torch.Tensor,
                  out: torch.Tensor) -> torch.Tensor:
    """Scores ``(c, block, (2·reach + 1)·block)`` of a chunk's query blocks against their whole key
    windows (one ``bmm`` into ``out``), ``−inf`` at the pairs that are not visible."""
    reach, block = layout.reach, layout.block
    scores = torch.bmm(band.queries[chunk],
                       key_windows[_window_chunk(chunk, layout)].transpose(1, 2), out=out)
    for index, offset in enumerate(range(-reach, reach + 1)):
        visible = _visible(band, chunk, index, offset)
        if visible is not None:
            scores[:, :, index * block:(index + 1) * block].masked_fill_(~visible, -math.inf)
    return scores


def _scratch(band: BandInputs, layout: Layout) -> torch.Tensor:
    """One chunk's worth of band scores, reused by every chunk."""
    width = (2 * layout.reach + 1) * layout.block
    return band.queries.new_empty(_chunk_step(layout), layout.block, width)


def band_forward(
    band: BandInputs, layout: Layout, entity_scores: Optional[torch.Tensor],
    keep_probs: bool = False,
) -> Tuple[torch.Tensor, Optional[torch.Tensor], RowStats, Optional[torch.Tensor]]:
    """Attended words ``(total, block, d)``; with ``keep_probs`` the band's probabilities
    ``(total, block, (2·reach + 1)·block)`` (each query block against its whole key window, one
    matmul), else None (each chunk's scores then live in one reused buffer); the rows'
    :class:`RowStats`, from which :func:`band_backward` recomputes the probabilities bit for bit;
    and, when ``entity_scores`` ``(total, block, M)`` (masked with ``−inf``) are given, the
    word→entity probabilities in their place. One softmax per row over the band and the entities;
    a row with no visible key gets probability 0 everywhere (output 0)."""
    reach, block = layout.reach, layout.block
    width = (2 * reach + 1) * block
    out = torch.empty_like(band.queries)
    out[:reach].zero_()
    out[out.size(0) - reach:].zero_()
    probs = band.queries.new_empty(band.queries.size(0), block, width) if keep_probs else None
    scratch = None if keep_probs else _scratch(band, layout)
    stats = RowStats(band.queries.new_zeros(band.queries.size(0), block, 1),
                     band.queries.new_zeros(band.queries.size(0), block, 1))
    key_windows, value_windows = _windows(band.keys, layout), _windows(band.values, layout)
    for chunk in _chunks(layout):
        buffer = probs[chunk] if probs is not None else scratch[:chunk.stop - chunk.start]
        scores = _chunk_scores(band, layout, chunk, key_windows, buffer)
        peak = scores.amax(-1, keepdim=True)
        entities = None
        if entity_scores is not None:
            entities = entity_scores[chunk]
            peak = torch.maximum(peak, entities.amax(-1, keepdim=True))
        peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
        total = scores.sub_(peak).exp_().sum(-1, keepdim=True)
        if entities is not None:
            total += entities.sub_(peak).exp_().sum(-1, keepdim=True)
        inverse = torch.where(total > 0, total.reciprocal(), torch.zeros_like(total))
        scores.mul_(inverse)
        if entities is not None:
            entities.mul_(inverse)
        stats.peak[chunk], stats.inverse[chunk] = peak, inverse
        torch.bmm(scores, value_windows[_window_chunk(chunk, layout)], out=out[chunk])
    return out, probs, stats, entity_scores


def band_backward(
    band: BandInputs, layout: Layout, probs: Optional[torch.Tensor], stats: RowStats,
    out: torch.Tensor, grad_out: torch.Tensor, query_scale: float = 1.0,
) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Gradients (block layout) of the queries (times ``query_scale``, the factor the queries were
    pre-scaled by: then the unscaled queries' gradient), keys and values from the band's pairs,
    and ``delta = rowsum(dO ∘ O)`` ``(total, block, 1)``, given the forward's probabilities (or
    None: each chunk's are recomputed from the queries, keys, masks and ``stats`` with the
    forward's own operations, as FlashAttention's backward does, Dao 2023 Alg. 2), the whole
    output ``out`` (entity terms included) and its gradient (zero in the padding rows), both in
    block layout: ``dP`` and the query gradient as one matmul per query block against its window;
    key and value gradients per offset (the windows overlap, so their sums cannot be written by
    one matmul)."""
    reach, block = layout.reach, layout.block
    grad_queries = torch.empty_like(band.queries)
    grad_queries[:reach].zero_()
    grad_queries[grad_queries.size(0) - reach:].zero_()
    grad_keys = torch.zeros_like(band.keys)
    grad_values = torch.zeros_like(band.values)
    key_windows, value_windows = _windows(band.keys, layout), _windows(band.values, layout)
    scratch = None if probs is not None else _scratch(band, layout)
    d_scratch = _scratch(band, layout)
    delta = out.new_zeros(out.size(0), layout.block, 1)
    for chunk in _chunks(layout):
        windows, count = _window_chunk(chunk, layout), chunk.stop - chunk.start
        queries, grads = band.queries[chunk], grad_out[chunk]
        if probs is not None:
            p = probs[chunk]
        else:
            p = _chunk_scores(band, layout, chunk, key_windows, scratch[:count])
            p.sub_(stats.peak[chunk]).exp_().mul_(stats.inverse[chunk])
        torch.sum(grads * out[chunk], -1, keepdim=True, out=delta[chunk])
        d_scores = torch.baddbmm(-delta[chunk], grads, value_windows[windows].transpose(1, 2),
                                 out=d_scratch[:count])
        d_scores.mul_(p)
        grad_queries[chunk].baddbmm_(d_scores, key_windows[windows], beta=0, alpha=query_scale)
        for index, offset in enumerate(range(-reach, reach + 1)):
            shifted, columns = _shift(chunk, offset), slice(index * block, (index + 1) * block)
            grad_values[shifted].baddbmm_(p[:, :, columns].transpose(1, 2), grads)
            grad_keys[shifted].baddbmm_(d_scores[:, :, columns].transpose(1, 2), queries)
    return grad_queries, grad_keys, grad_values, delta
