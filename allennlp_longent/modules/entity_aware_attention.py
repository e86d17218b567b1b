"""Entity-aware self-attention (Yamada et al. 2020, §3.2) with Longformer-style banded word→word
attention (Beltagy et al. 2020, §3.1), as combined in Long-LUKE (Malaquias 2023).

A word attends to the words at most ``attention_window // 2`` positions away and to every entity;
an entity attends to every word and every entity. A document of ``n`` words and ``m`` entities
costs ``O(n·w + n·m + m²)`` time and memory instead of ``O((n + m)²)``.

Banded computation (a blocked unfold, not Longformer's diagonal trick): with the one-sided window
``h``, the words are cut into ``n / b`` blocks of ``b = h`` queries. Every query of a block can only
see keys inside the ``b + 2h`` keys that start ``h`` before the block, so the keys, padded with
``h`` rows at both ends, are unfolded into overlapping windows of ``b + 2h`` rows with stride ``b``
(a view). One batched matmul gives ``(n / b) × b × (b + 2h) = 3·n·h`` scores; a static band mask
removes the pairs more than ``h`` apart and the word mask removes padding. The word→entity scores
are appended to each row before the softmax, so every query row has one softmax over all the keys
it may see (Eq. 3 of Yamada et al. with the band restriction). No ``n × n`` tensor is ever built:
the largest tensors are the ``3·n·h + n·m`` scores per head (Longformer: ``(2h + 1)·n``),
a 1.5× overhead bought with plain batched matmuls. Words past the last block are zero padding
whose keys are masked and whose rows are cut off, so any ``n`` and padded batches are exact.

This blocked computation is the reference backend (``attention_backend="blocked"``); the ``flex``
backend computes the same function in one fused block-sparse call
(:mod:`allennlp_longent.modules.flex_entity_attention`).
"""

import math
from typing import List, NamedTuple, Optional, Tuple

import torch
from torch import nn

from allennlp_longent.modules.flex_entity_attention import (
    BACKENDS,
    EntityTensors,
    flex_entity_attention,
    resolve_backend,
)


class WordEntityMask(NamedTuple):
    """Which keys exist: ``words`` ``(B, N)`` and ``entities`` ``(B, M)`` (or None), both bool."""

    words: torch.Tensor
    entities: Optional[torch.Tensor]


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """``(B, K, L, d)`` per-head states → ``(B, L, K·d)``."""
    batch, heads, length, dim = x.shape
    return x.transpose(1, 2).reshape(batch, length, heads * dim)


class _SplitHeads(torch.autograd.Function):
    """``(B, L, P, K, d)`` joint projections → ``P`` per-head ``(B, K, L, d)`` views (as
    ``permute(2, 0, 3, 1, 4).unbind(0)``). The backward writes the ``P`` gradients into one
    ``(B, L, P, K, d)`` tensor, one strided copy each; autograd's own (``stack`` of the gradients,
    then a copy to undo the permutation for the projection's matmul) passes over them twice."""

    @staticmethod
    def forward(ctx, joint: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        ctx.shape = joint.shape
        return tuple(joint.permute(2, 0, 3, 1, 4).unbind(0))

    @staticmethod
    def backward(ctx, *grads: Optional[torch.Tensor]) -> torch.Tensor:
        joint = next(g for g in grads if g is not None).new_empty(ctx.shape)
        for index, grad in enumerate(grads):
            target = joint[:, :, index].transpose(1, 2)
            if grad is None:
                target.zero_()
            else:
                target.copy_(grad)
        return joint


class EntityAwareSelfAttention(nn.Module):
    """LUKE's entity-aware self-attention (Yamada et al. 2020, Eq. 3) with banded word→word pairs.

    Query matrices: ``query`` (word→word), ``w2e_query``, ``e2w_query``, ``e2e_query``; keys and
    values (``key``, ``value``) are shared. Parameter names match transformers'
    ``LukeSelfAttention``, so it replaces ``layer.attention.self`` of a ``LukeModel`` and loads its
    state dict unchanged. ``attention_window`` is Longformer's: the full (two-sided) window width,
    an even number; each word sees ``attention_window // 2`` words on each side.
    ``attention_backend``: ``blocked`` (the reference), ``flex`` (one fused block-sparse call) or
    ``auto`` (flex on CUDA where its kernel runs on tensor cores: autocast or TF32), resolved per
    call from the input's device and dtype; see
    :func:`~allennlp_longent.modules.flex_entity_attention.resolve_backend`.
    """

    def __init__(
        self,
        hidden_size: int,
        num_attention_heads: int,
        attention_window: int,
        attention_dropout: float = 0.0,
        attention_backend: str = "blocked",
    ) -> None:
        super().__init__()
        if attention_backend not in BACKENDS:
            raise ValueError(
                f"attention_backend must be one of {BACKENDS}, got {attention_backend!r}"
            )
        if hidden_size % num_attention_heads:
            raise ValueError(
                f"hidden_size {hidden_size} is not a multiple of num_attention_heads "
                f"{num_attention_heads}"
            )
        if attention_window < 2 or attention_window % 2:
            raise ValueError(
                f"attention_window must be a positive even number, got {attention_window}"
            )
        self.num_heads = num_attention_heads
        self.head_size = hidden_size // num_attention_heads
        self.attention_window = attention_window
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)
        self.w2e_query = nn.Linear(hidden_size, hidden_size)
        self.e2w_query = nn.Linear(hidden_size, hidden_size)
        self.e2e_query = nn.Linear(hidden_size, hidden_size)
        self.dropout = nn.Dropout(attention_dropout)
        self.attention_backend = attention_backend

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, self.head_size).transpose(1, 2)

    def _project(self, x: torch.Tensor, layers: List[nn.Linear]) -> List[torch.Tensor]:
        """Per-head outputs of several projections of ``x`` as one matmul (one pass over ``x``
        forward and backward instead of one per projection)."""
        weight = torch.cat([layer.weight for layer in layers])
        bias = torch.cat([layer.bias for layer in layers])
        batch, length, _ = x.shape
        outputs = nn.functional.linear(x, weight, bias).view(
            batch, length, len(layers), self.num_heads, self.head_size)
        return list(_SplitHeads.apply(outputs))

    def forward(
        self,
        word_hidden_states: torch.Tensor,
        entity_hidden_states: Optional[torch.Tensor],
        attention_mask: WordEntityMask,
        head_mask: Optional[torch.Tensor] = None,
        output_attentions: bool = False,
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Returns the attended ``(B, N, H)`` words and ``(B, M, H)`` entities (None without
        entities). Signature of ``LukeSelfAttention.forward``; head masks and attention outputs
        would need the full matrix and are refused."""
        if head_mask is not None or output_attentions:
            raise ValueError("banded entity-aware attention supports neither head_mask nor "
                             "output_attentions")
        if not isinstance(attention_mask, WordEntityMask):
            raise TypeError("attention_mask must be a WordEntityMask of bool word/entity masks")
        heads = self.project(word_hidden_states, entity_hidden_states, attention_mask)
        words, entity_context = self.attend(*heads, attention_mask.words)
        if entity_context is None:
            return merge_heads(words), entity_hidden_states
        return merge_heads(words), merge_heads(entity_context)

    def project(
        self,
        word_hidden_states: torch.Tensor,
        entity_hidden_states: Optional[torch.Tensor],
        attention_mask: WordEntityMask,
    ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, Optional[EntityTensors]]:
        """Per-head word queries, keys and values ``(B, K, N, d)`` and the entity tensors (None
        without entities): every projection of the layer, no attention yet."""
        has_entities = entity_hidden_states is not None and entity_hidden_states.size(1) > 0
        word_layers = [self.query, self.key, self.value] + [self.w2e_query] * has_entities
        word_queries, word_keys, word_values, *w2e = self._project(word_hidden_states, word_layers)
        entities = None
        if has_entities:
            entities = EntityTensors(
                *w2e,
                *self._project(entity_hidden_states,
                               [self.e2w_query, self.e2e_query, self.key, self.value]),
                attention_mask.entities,
            )
        return word_queries, word_keys, word_values, entities

    def attend(
        self,
        word_queries: torch.Tensor,
        word_keys: torch.Tensor,
        word_values: torch.Tensor,
        entities: Optional[EntityTensors],
        word_mask: torch.Tensor,
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        """The attention core on :meth:`project`'s outputs: per-head ``(B, K, N, d)`` words and
        ``(B, K, M, d)`` entities (None without entities), with the resolved backend."""
        backend = resolve_backend(self.attention_backend, word_queries.device,
                                  dropout=self.training and self.dropout.p > 0,
                                  dtype=word_queries.dtype)
        arguments = (word_queries, word_keys, word_values, word_mask,
                     self.attention_window // 2, 1.0 / math.sqrt(self.head_size))
        if backend == "flex":
            return flex_entity_attention(*arguments, entities)
        return blocked_entity_attention(*arguments, entities, self.dropout)


def blocked_entity_attention(
    word_queries: torch.Tensor,
    word_keys: torch.Tensor,
    word_values: torch.Tensor,
    word_mask: torch.Tensor,
    half: int,
    scale: float,
    entities: Optional[EntityTensors],
    dropout: nn.Module,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """The reference backend: per-head ``(B, K, N, d)`` words and ``(B, K, M, d)`` entities
    (None without entities). Words: :func:`banded_attention` with the entities as global keys;
    entities: one dense softmax over all words and entities (Yamada et al. Eq. 3)."""
    if entities is None:
        words = banded_attention(
            word_queries, word_keys, word_values, word_mask, half, scale, dropout
        )
        return words, None
    w2e_scores = entities.w2e_queries @ entities.keys.transpose(-1, -2)
    words = banded_attention(
        word_queries, word_keys, word_values, word_mask, half, scale, dropout,
        global_scores=w2e_scores * scale, global_values=entities.values,
        global_mask=entities.mask,
    )
    e2w_scores = entities.e2w_queries @ word_keys.transpose(-1, -2)
    e2e_scores = entities.e2e_queries @ entities.keys.transpose(-1, -2)
    entity_scores = torch.cat([e2w_scores, e2e_scores], dim=-1) * scale
    key_mask = torch.cat([word_mask, entities.mask], dim=-1)
    entity_scores = entity_scores.masked_fill(
        ~key_mask[:, None, None, :], torch.finfo(entity_scores.dtype).min
    )
    entity_probs = dropout(entity_scores.softmax(dim=-1))
    context = entity_probs @ torch.cat([word_values, entities.values], dim=2)
    return words, context


class BandGeometry(NamedTuple):
    """How ``banded_attention`` cuts ``length`` words: ``blocks`` blocks of ``block`` queries, each
    against a window of ``span = block + 2·half`` keys starting ``half`` before the block (in keys
    padded with ``half`` rows in front); ``tail`` rows pad the last block."""

    half: int
    block: int
    span: int
    blocks: int
    tail: int


def band_geometry(length: int, half_window: int) -> BandGeometry:
    half = min(half_window, length - 1)
    block = max(half, 1)
    blocks = -(-length // block)
    return BandGeometry(half, block, block + 2 * half, blocks, blocks * block - length)


def band_hidden(key_mask: torch.Tensor, geometry: BandGeometry) -> torch.Tensor:
    """``(B, blocks, block, span)``: True where a key is more than ``half`` away from its query or
    is padding (``key_mask`` ``(B, N)`` marks real words)."""
    half, block, span, _, tail = geometry
    mask_windows = nn.functional.pad(key_mask, (half, half + tail), value=False).unfold(
        1, span, block
    )
    offset = torch.arange(span, device=key_mask.device)[None, :] - torch.arange(
        block, device=key_mask.device
    )[:, None]
    in_band = (offset >= 0) & (offset <= 2 * half)  # key index - query index within [-h, h]
    return ~(in_band[None, None] & mask_windows[:, :, None, :])


def band_windows(tensor: torch.Tensor, geometry: BandGeometry) -> torch.Tensor:
    """``(B, K, N, d)`` keys or values → ``(B, K, blocks, d, span)`` overlapping windows (a view of
    one padded copy)."""
    half, block, span, _, tail = geometry
    return nn.functional.pad(tensor, (0, 0, half, half + tail)).unfold(2, span, block)


def banded_attention(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    key_mask: torch.Tensor,
    half_window: int,
    scale: float,
    dropout: nn.Module,
    global_scores: Optional[torch.Tensor] = None,
    global_values: Optional[torch.Tensor] = None,
    global_mask: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """Attention of ``(B, K, N, d)`` word queries to the words within ``half_window`` and to
    optional global keys (the entities), with one softmax per query row; see the module docstring.

    ``key_mask`` ``(B, N)`` marks real words; ``global_scores`` ``(B, K, N, M)`` are already scaled,
    ``global_values`` ``(B, K, M, d)``, ``global_mask`` ``(B, M)``. Masked keys get the dtype's
    minimum (as in LUKE), so a row with no visible key is uniform rather than NaN.
    """
    batch, heads, length, dim = queries.shape
    geometry = band_geometry(length, half_window)
    _, block, span, blocks, tail = geometry
    lowest = torch.finfo(queries.dtype).min

    pad = nn.functional.pad
    queries = queries * scale if tail == 0 else pad(queries * scale, (0, 0, 0, tail))
    query_blocks = queries.view(batch, heads, blocks, block, dim)
    value_windows = band_windows(values, geometry)
    scores = query_blocks @ band_windows(keys, geometry)  # (B, K, blocks, block, span)
    scores.masked_fill_(band_hidden(key_mask, geometry)[:, None], lowest)
    if global_scores is None:
        probs = dropout(scores.softmax(dim=-1))
        context = probs @ value_windows.transpose(-1, -2)
        return context.view(batch, heads, blocks * block, dim)[:, :, :length]

    entities = global_scores.size(-1)
    global_scores = global_scores.masked_fill(~global_mask[:, None, None, :], lowest)
    if tail:
        global_scores = pad(global_scores, (0, 0, 0, tail))
    global_blocks = global_scores.view(batch, heads, blocks, block, entities)
    probs = dropout(torch.cat([scores, global_blocks], dim=-1).softmax(dim=-1))
    context = probs[..., :span] @ value_windows.transpose(-1, -2)
    context = context.view(batch, heads, blocks * block, dim)
    global_probs = probs[..., span:].reshape(batch, heads, blocks * block, entities)
    context = context + global_probs @ global_values
    return context[:, :, :length]
