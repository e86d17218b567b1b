"""ATLOP's localized context pooling (Zhou et al. 2021, §3.3 "Localized Context Pooling") on
Long-LUKE's own attention.

ATLOP takes from the encoder's last layer the attention of each mention's start marker over the
document's tokens, averages it over the entity's mentions into ``A^E_s`` (heads × tokens), and
for a pair (s, o) pools the last-layer token states ``H`` with the weights

    A^(s,o) = A^E_s * A^E_o  (per head),   q^(s,o) = sum_i A_i^(s,o),
    a^(s,o) = q^(s,o) / 1^T q^(s,o),       c^(s,o) = H^T a^(s,o),

which then enters the pair's projections: ``z_s = tanh(W_s e_s + W_c1 c)``,
``z_o = tanh(W_o e_o + W_c2 c)``.

How Long-LUKE's banded attention maps onto it: every mention is an entity token, and entity
tokens are global: an entity query attends to every word and every entity token in one softmax
(Yamada et al. 2020, Eq. 3; only word→word pairs are banded). So the row of a mention's entity
token is a full attention distribution over the whole input sequence, words and entity tokens,
exactly the ``A^E`` row ATLOP reads off a dense encoder, and ``H`` is the sequence of last-layer
word and entity-token states. :class:`LastLayerEntityAttention` records the inputs of the last
layer's self-attention (a forward hook; the encoder modules are not changed) and recomputes those
rows from its ``e2w_query``/``e2e_query``/``key`` weights, before attention dropout.
"""

import inspect
import math
from typing import Any, Dict, Optional

import torch
from allennlp.modules.token_embedders import TokenEmbedder

from allennlp_longent.modules.entity_features import pool_rows


class LastLayerEntityAttention:
    """Records the inputs of the last self-attention layer of a ``long_luke`` embedder and gives
    the entity tokens' attention probabilities over all keys: ``(B, heads, M, N + M)``."""

    def __init__(self, embedder: TokenEmbedder) -> None:
        try:
            module = embedder.encoder.luke.encoder.layer[-1].attention.self
        except AttributeError as error:
            raise ValueError(
                "context_pooling needs the 'long_luke' embedder (its last layer's entity attention)"
            ) from error
        for name in ("e2w_query", "e2e_query", "key", "num_heads", "head_size"):
            if not hasattr(module, name):
                raise ValueError(f"context_pooling: the last self-attention has no {name!r}")
        self.module = module
        self.signature = inspect.signature(module.forward)
        self.inputs: Optional[Dict[str, Any]] = None
        module.register_forward_hook(self._record, with_kwargs=True)

    def _record(self, module, args, kwargs, output) -> None:
        self.inputs = self.signature.bind(*args, **kwargs).arguments

    def probabilities(self) -> torch.Tensor:
        """Softmax over ``[words; entity tokens]`` of each entity query (LUKE Eq. 3), from the
        last recorded call; the record is cleared."""
        if self.inputs is None:
            raise RuntimeError("no attention inputs recorded: run the embedder first")
        inputs, self.inputs = self.inputs, None
        words = inputs["word_hidden_states"]
        entities = inputs["entity_hidden_states"]
        mask = inputs["attention_mask"]
        module = self.module

        def heads(x: torch.Tensor) -> torch.Tensor:
            return x.view(x.size(0), x.size(1), module.num_heads, module.head_size).transpose(1, 2)

        keys = heads(module.key(torch.cat([words, entities], 1)))
        word_keys, entity_keys = keys[:, :, : words.size(1)], keys[:, :, words.size(1):]
        scores = torch.cat(
            [
                heads(module.e2w_query(entities)) @ word_keys.transpose(-1, -2),
                heads(module.e2e_query(entities)) @ entity_keys.transpose(-1, -2),
            ],
            -1,
        ) / math.sqrt(module.head_size)
        visible = torch.cat([mask.words, mask.entities], -1).bool()
        scores = scores.masked_fill(~visible[:, None, None, :], torch.finfo(scores.dtype).min)
        return scores.softmax(-1)


def localized_context(
    attention: torch.Tensor,
    states: torch.Tensor,
    pair_indices: torch.Tensor,
    entity_mention_index: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """``c^(s,o)`` for every pair: ``(B, P, H)``.

    ``attention`` (B, heads, M, L): each entity token's attention over the L tokens whose states
    are ``states`` (B, L, H); ``pair_indices`` (B, P, 2) entity indices (padding: -1, gives a
    zero vector); ``entity_mention_index`` (B, E, T) the entity tokens of each entity, padded with
    -1 (None: one token per entity). A^E_s is the mean over the entity's tokens."""
    batch, heads, tokens, length = attention.shape
    rows = attention.permute(0, 2, 1, 3).reshape(batch, tokens, heads * length)
    if entity_mention_index is not None:
        rows = pool_rows(rows, entity_mention_index, "mean")
    valid = pair_indices[..., 0] >= 0
    index = pair_indices.clamp(min=0)
    line = torch.arange(batch, device=attention.device).unsqueeze(1)
    head = rows[line, index[..., 0]].view(batch, -1, heads, length)
    tail = rows[line, index[..., 1]].view(batch, -1, heads, length)
    weights = torch.einsum("bphl,bphl->bpl", head, tail)
    weights = weights / weights.sum(-1, keepdim=True).clamp(min=torch.finfo(weights.dtype).tiny)
    return (weights @ states) * valid.unsqueeze(-1)
