"""The CPU training kernel of the flex backend (``_BandAttentionFunction``, whose backward
recomputes the band's probabilities by default) against torch autograd through a dense reference
written from LUKE's equations (Yamada et al. 2020, Eq. 3, with Longformer's band for word→word
pairs), in fp64: outputs and the gradients of all eight inputs (word queries, keys, values;
word→entity, entity→word and entity→entity queries, entity keys and values). Padded words, a row
without entities, windows from a few words to the whole sequence, and chunks of one, two or all
query blocks (the recomputation runs per chunk). Also: keeping the probabilities (``keep_probs``)
gives the same bits in fp32.
"""

from typing import List, Optional, Tuple

import pytest
import torch

from allennlp_longent.modules import band_kernel
from allennlp_longent.modules.flex_entity_attention import EntityTensors, flex_entity_attention

BATCH, HEADS, WIDTH = 2, 2, 8
WORDS, ENTITIES = 150, 3  # 150 words: three 64-word blocks, the last one padded
REAL_WORDS, REAL_ENTITIES = [150, 97], [3, 0]  # row 1: padded words and no entity at all


def make_inputs(dtype: torch.dtype, seed: int = 0) -> Tuple[List[torch.Tensor], torch.Tensor,
                                                              torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    sizes = [WORDS] * 4 + [ENTITIES] * 4  # q, k, v, w2e | e2w, e2e, entity keys, entity values
    tensors = [torch.randn(BATCH, HEADS, n, WIDTH, generator=generator, dtype=dtype)
               for n in sizes]
    word_mask = torch.arange(WORDS)[None] < torch.tensor(REAL_WORDS)[:, None]
    entity_mask = torch.arange(ENTITIES)[None] < torch.tensor(REAL_ENTITIES)[:, None]
    return tensors, word_mask, entity_mask


def softmax_rows(scores: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim with ``-inf`` for hidden keys; a row that sees nothing is 0."""
    visible = torch.isfinite(scores)
    peak = torch.where(visible, scores, torch.full_like(scores, -1e300)).amax(-1, keepdim=True)
    exps = torch.where(visible, torch.exp(scores - peak), torch.zeros_like(scores))
    total = exps.sum(-1, keepdim=True)
    return exps / torch.where(total > 0, total, torch.ones_like(total))


def dense_reference(tensors: List[torch.Tensor], word_mask: torch.Tensor,
                    entity_mask: Optional[torch.Tensor], half: int,
                    scale: float) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """Eq. 3 with a band: word i sees word j iff |i − j| ≤ half and j is real, and every real
    entity; an entity sees every real word and entity. One softmax per query over all it sees."""
    queries, keys, values = tensors[:3]
    positions = torch.arange(queries.size(2))
    band = (positions[:, None] - positions[None, :]).abs() <= half
    hidden = -torch.inf
    word_word = scale * queries @ keys.transpose(-1, -2)
    word_word = word_word.masked_fill(~(band[None, None] & word_mask[:, None, None, :]), hidden)
    if entity_mask is None:
        return softmax_rows(word_word) @ values, None
    w2e, e2w, e2e, entity_keys, entity_values = tensors[3:]
    word_entity = (scale * w2e @ entity_keys.transpose(-1, -2)).masked_fill(
        ~entity_mask[:, None, None, :], hidden)
    entity_word = (scale * e2w @ keys.transpose(-1, -2)).masked_fill(
        ~word_mask[:, None, None, :], hidden)
    entity_entity = (scale * e2e @ entity_keys.transpose(-1, -2)).masked_fill(
        ~entity_mask[:, None, None, :], hidden)
    all_values = torch.cat([values, entity_values], 2)
    words = softmax_rows(torch.cat([word_word, word_entity], -1)) @ all_values
    entities = softmax_rows(torch.cat([entity_word, entity_entity], -1)) @ all_values
    return words, entities


def outputs_and_grads(function, tensors: List[torch.Tensor], seed: int = 1):
    """Outputs and the gradients of every input of a loss weighting each output element."""
    tensors = [t.clone().requires_grad_() for t in tensors]
    words, entities = function(tensors)
    generator = torch.Generator().manual_seed(seed)
    loss = (words * torch.randn(words.shape, generator=generator, dtype=words.dtype)).sum()
    if entities is not None:
        loss = loss + (entities * torch.randn(entities.shape, generator=generator,
                                              dtype=entities.dtype)).sum()
    grads = torch.autograd.grad(loss, tensors)
    return words.detach(), None if entities is None else entities.detach(), grads


def kernel(word_mask, entity_mask, half, scale, keep_probs):
    def call(tensors):
        entities = None
        if entity_mask is not None:
            entities = EntityTensors(*tensors[3:], entity_mask)
        return flex_entity_attention(*tensors[:3], word_mask, half, scale, entities,
                                     keep_probs=keep_probs)
    return call


def set_chunk_blocks(monkeypatch, blocks: Optional[int], half: int) -> None:
    """Chunks of ``blocks`` query blocks (None: the default size, i.e. one chunk here)."""
    if blocks is not None:
        layout = band_kernel.band_layout(BATCH * HEADS, WORDS, half)
        span = (2 * layout.reach + 1) * layout.block * layout.block
        monkeypatch.setattr(band_kernel, "CHUNK_ELEMENTS", blocks * span)


@pytest.mark.parametrize("half", [4, 70, 149])
@pytest.mark.parametrize("chunk_blocks", [1, 2, None])
@pytest.mark.parametrize("with_entities", [True, False])
def test_recomputing_backward_matches_dense_autograd_fp64(monkeypatch, half, chunk_blocks,
                                                          with_entities):
    set_chunk_blocks(monkeypatch, chunk_blocks, half)
    tensors, word_mask, entity_mask = make_inputs(torch.float64)
    if not with_entities:
        tensors, entity_mask = tensors[:3], None
    scale = WIDTH ** -0.5
    reference = outputs_and_grads(
        lambda t: dense_reference(t, word_mask, entity_mask, half, scale), tensors)
    ours = outputs_and_grads(kernel(word_mask, entity_mask, half, scale, False), tensors)
    assert ours[0].dtype == torch.float64
    torch.testing.assert_close(ours[0], reference[0], rtol=1e-10, atol=1e-12)
    if with_entities:
        torch.testing.assert_close(ours[1], reference[1], rtol=1e-10, atol=1e-12)
    assert len(ours[2]) == len(tensors)
    for name, mine, exact in zip(["q", "k", "v", "w2e", "e2w", "e2e", "ek", "ev"], ours[2],
                                 reference[2]):
        assert exact.abs().max() > 0, name  # every input matters to the loss
        torch.testing.assert_close(mine, exact, rtol=1e-10, atol=1e-12, msg=name)


@pytest.mark.parametrize("chunk_blocks", [1, None])
def test_recomputed_probabilities_are_the_kept_ones_fp32(monkeypatch, chunk_blocks):
    half = 70
    set_chunk_blocks(monkeypatch, chunk_blocks, half)
    tensors, word_mask, entity_mask = make_inputs(torch.float32, seed=3)
    scale = WIDTH ** -0.5
    kept = outputs_and_grads(kernel(word_mask, entity_mask, half, scale, True), tensors)
    recomputed = outputs_and_grads(kernel(word_mask, entity_mask, half, scale, False), tensors)
    assert torch.equal(kept[0], recomputed[0]) and torch.equal(kept[1], recomputed[1])
    for a, b in zip(kept[2], recomputed[2]):
        assert torch.equal(a, b)


def test_recomputation_uses_the_saved_row_statistics(monkeypatch):
    """A recomputation that ignored the saved softmax statistics (unnormalised probabilities)
    must be caught by the dense comparison: guards the test above against passing vacuously."""
    tensors, word_mask, entity_mask = make_inputs(torch.float64)
    scale, half = WIDTH ** -0.5, 70
    original = band_kernel.band_backward

    def wrong_stats(band, layout, probs, stats, *args, **kwargs):
        ones = band_kernel.RowStats(stats.peak, torch.ones_like(stats.inverse))
        return original(band, layout, probs, ones, *args, **kwargs)

    monkeypatch.setattr(band_kernel, "band_backward", wrong_stats)
    reference = outputs_and_grads(
        lambda t: dense_reference(t, word_mask, entity_mask, half, scale), tensors)
    ours = outputs_and_grads(kernel(word_mask, entity_mask, half, scale, False), tensors)
    torch.testing.assert_close(ours[0], reference[0], rtol=1e-10, atol=1e-12)  # forward intact
    assert not torch.allclose(ours[2][0], reference[2][0], rtol=1e-6, atol=1e-8)
