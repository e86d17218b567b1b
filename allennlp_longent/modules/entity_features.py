"""How an entity's feature vector is read off the encoder outputs (a variation point).

* ``entity_token``: the contextualized entity token, as in LUKE (Yamada et al. 2020, §4.1-4.3).
* ``mention_pool``: pooling the word-piece states of all the entity's mentions; ``logsumexp`` is
  ATLOP's smooth max over mentions (Zhou et al. 2021, §3.1, Eq. 2).
* ``cls_token``: the [CLS] word state, the same for every entity of a text (global context).
* ``concat``: several extractors side by side, e.g. entity token + mention pooling + [CLS].

:class:`LukeEntityModel` is the base of the typing and relation models that use them. With one
entity token per mention (``entity_mention_index`` from the reader), the extractor's features of
an entity's mention tokens are pooled by log-sum-exp, ATLOP's smooth max over mentions (Zhou et
al. 2021, Eq. 2); with a single mention that pooling is the identity.
"""

from typing import Dict, List, Optional, Tuple

import torch
from allennlp.common import Registrable
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.modules.token_embedders import TokenEmbedder


class EntityFeatureExtractor(torch.nn.Module, Registrable):
    """Maps encoder outputs to one vector per entity: (B, M, get_output_dim(H))."""

    default_implementation = "entity_token"

    def get_output_dim(self, hidden_dim: int) -> int:
        return hidden_dim

    def forward(
        self,
        words: torch.Tensor,
        entities: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
    ) -> torch.Tensor:
        """``words`` (B, N, H), ``entities`` (B, M, H), ``entity_position_ids`` (B, M, P) padded
        with -1, ``entity_mask`` (B, M)."""
        raise NotImplementedError


@EntityFeatureExtractor.register("entity_token")
class EntityTokenExtractor(EntityFeatureExtractor):
    """The entity token's final hidden state."""

    def forward(self, words, entities, entity_position_ids, entity_mask):
        return entities


@EntityFeatureExtractor.register("mention_pool")
class MentionPoolExtractor(EntityFeatureExtractor):
    """Pools the word-piece states at ``entity_position_ids`` with ``logsumexp``, ``mean`` or
    ``max``; padded entities get zeros."""

    def __init__(self, pooling: str = "logsumexp") -> None:
        super().__init__()
        if pooling not in ("logsumexp", "mean", "max"):
            raise ValueError(f"pooling must be logsumexp, mean or max, not {pooling!r}")
        self.pooling = pooling

    def forward(self, words, entities, entity_position_ids, entity_mask):
        return pool_rows(words, entity_position_ids, self.pooling)


def pool_rows(values: torch.Tensor, index: torch.Tensor, pooling: str = "logsumexp"):
    """Pools ``values`` (B, N, H) at the rows ``index`` (B, M, P), padded with -1, into (B, M, H)
    by ``logsumexp``, ``mean`` or ``max``; a row of ``index`` that is all padding gives zeros."""
    batch, count, width = index.shape
    flat = index.clamp(min=0).view(batch, count * width, 1)
    gathered = values.gather(1, flat.expand(-1, -1, values.size(-1)))
    gathered = gathered.view(batch, count, width, -1)
    valid = (index >= 0).unsqueeze(-1)
    if pooling == "mean":
        pooled = (gathered * valid).sum(2) / valid.sum(2).clamp(min=1)
    else:
        masked = gathered.masked_fill(~valid, torch.finfo(values.dtype).min)
        pooled = masked.logsumexp(2) if pooling == "logsumexp" else masked.max(2).values
    return pooled * valid.any(2)


@EntityFeatureExtractor.register("cls_token")
class ClsTokenExtractor(EntityFeatureExtractor):
    """The first word piece's ([CLS]) state, repeated for every entity."""

    def forward(self, words, entities, entity_position_ids, entity_mask):
        return words[:, :1].expand(-1, entity_position_ids.size(1), -1)


@EntityFeatureExtractor.register("concat")
class ConcatExtractor(EntityFeatureExtractor):
    """Concatenates the features of several extractors along the last dimension."""

    def __init__(self, extractors: List[EntityFeatureExtractor]) -> None:
        super().__init__()
        if not extractors:
            raise ValueError("concat needs at least one extractor")
        self.extractors = torch.nn.ModuleList(extractors)

    def get_output_dim(self, hidden_dim: int) -> int:
        return sum(e.get_output_dim(hidden_dim) for e in self.extractors)

    def forward(self, words, entities, entity_position_ids, entity_mask):
        return torch.cat(
            [e(words, entities, entity_position_ids, entity_mask) for e in self.extractors], -1
        )


class LukeEntityModel(Model):
    """What the LUKE task models share: the ``long_luke`` embedder (``output="both"``), the
    entity-feature extractor, dropout, and a ``metric`` that subclasses set."""

    def __init__(
        self,
        vocab: Vocabulary,
        embedder: TokenEmbedder,
        feature_extractor: Optional[EntityFeatureExtractor] = None,
        dropout: float = 0.1,
        label_namespace: str = "labels",
        **kwargs,
    ) -> None:
        super().__init__(vocab, **kwargs)
        self.embedder = embedder
        self.extractor = feature_extractor or EntityTokenExtractor()
        self.dropout = torch.nn.Dropout(dropout)
        self.label_namespace = label_namespace
        self.feature_dim = self.extractor.get_output_dim(embedder.get_output_dim())

    def entity_features(
        self,
        tokens: TextFieldTensors,
        entity_ids: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
        entity_mention_index: Optional[torch.Tensor] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """Runs the embedder; returns entity features (B, E, ``feature_dim``) and the entity mask
        (B, E) bool. Without ``entity_mention_index`` every entity token is an entity."""
        words, entities = self.encode(tokens, entity_ids, entity_position_ids, entity_mask)
        return self.pooled_features(
            words, entities, entity_position_ids, entity_mask, entity_mention_index
        )

    def encode(
        self,
        tokens: TextFieldTensors,
        entity_ids: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """The embedder's ``(B, N, H)`` words and ``(B, M, H)`` entity tokens."""
        outputs = self.embedder(
            **tokens["tokens"],
            entity_ids=entity_ids,
            entity_position_ids=entity_position_ids,
            entity_mask=entity_mask,
        )
        if not isinstance(outputs, tuple):
            raise ValueError("the entity models need the LUKE embedder with output='both'")
        return outputs

    def pooled_features(
        self,
        words: torch.Tensor,
        entities: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
        entity_mention_index: Optional[torch.Tensor] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """:meth:`entity_features` from the encoder outputs."""
        features = self.extractor(words, entities, entity_position_ids, entity_mask)
        if entity_mention_index is None:
            return features, entity_mask.bool()
        return pool_rows(features, entity_mention_index), entity_mention_index[..., 0] >= 0

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        return self.metric.get_metric(reset)
