"""How an entity's feature vector is read off the encoder outputs (a variation point).

* ``entity_token``: the contextualized entity token, as in LUKE (Yamada et al. 2020, §4.1-4.3).
* ``mention_pool``: pooling the word-piece states of all the entity's mentions; ``logsumexp`` is
  ATLOP's smooth max over mentions (Zhou et al. 2021, §3.1, Eq. 2).
* ``cls_token``: the [CLS] word state, the same for every entity of a text (global context).
* ``concat``: several extractors side by side, e.g. entity token + mention pooling + [CLS].

:class:`LukeEntityModel` is the base of the typing and relation models that use them.
"""

from typing import Dict, List, Optional

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
        batch, num_entities, width = entity_position_ids.shape
        index = entity_position_ids.clamp(min=0).view(batch, num_entities * width, 1)
        gathered = words.gather(1, index.expand(-1, -1, words.size(-1)))
        gathered = gathered.view(batch, num_entities, width, -1)
        valid = (entity_position_ids >= 0).unsqueeze(-1)
        if self.pooling == "mean":
            pooled = (gathered * valid).sum(2) / valid.sum(2).clamp(min=1)
        else:
            masked = gathered.masked_fill(~valid, torch.finfo(words.dtype).min)
            pooled = masked.logsumexp(2) if self.pooling == "logsumexp" else masked.max(2).values
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
    ) -> torch.Tensor:
        """Runs the embedder and returns entity features (B, M, ``feature_dim``)."""
        outputs = self.embedder(
            **tokens["tokens"],
            entity_ids=entity_ids,
            entity_position_ids=entity_position_ids,
            entity_mask=entity_mask,
        )
        if not isinstance(outputs, tuple):
            raise ValueError("the entity models need the LUKE embedder with output='both'")
        words, entities = outputs
        return self.extractor(words, entities, entity_position_ids, entity_mask)

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        return self.metric.get_metric(reset)
