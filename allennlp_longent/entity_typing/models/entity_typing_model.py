"""LUKE entity typing: a linear multi-label classifier over [MASK] entity features.

Yamada et al. 2020, §4.1: the target entity is the [MASK] entity over the mention; its output
representation feeds a linear layer trained with binary cross-entropy, and a type is predicted
when its probability exceeds ``threshold`` (0.5, i.e. logit > 0, as in LUKE). The metric also
scores the top type alone (single-label accuracy over entities and, when the reader's metadata
has ``mention_types``, over mentions; see :mod:`~allennlp_longent.entity_typing.metrics`).
"""

from typing import Any, Dict, List, Optional

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.modules.token_embedders import TokenEmbedder
from allennlp.nn import InitializerApplicator

from allennlp_longent.entity_typing.metrics.typing_metric import EntityTypingMetric
from allennlp_longent.modules.entity_features import EntityFeatureExtractor, LukeEntityModel


@Model.register("luke_entity_typing")
class LukeEntityTyping(LukeEntityModel):
    def __init__(
        self,
        vocab: Vocabulary,
        embedder: TokenEmbedder,
        feature_extractor: Optional[EntityFeatureExtractor] = None,
        dropout: float = 0.1,
        threshold: float = 0.5,
        label_namespace: str = "labels",
        initializer: Optional[InitializerApplicator] = None,
        **kwargs,
    ) -> None:
        super().__init__(vocab, embedder, feature_extractor, dropout, label_namespace, **kwargs)
        self.classifier = torch.nn.Linear(self.feature_dim, vocab.get_vocab_size(label_namespace))
        self.threshold = threshold
        self.metric = EntityTypingMetric()
        if initializer is not None:
            initializer(self)

    def forward(
        self,
        tokens: TextFieldTensors,
        entity_ids: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
        labels: Optional[torch.Tensor] = None,
        metadata: Optional[List[Dict[str, Any]]] = None,
        entity_mention_index: Optional[torch.Tensor] = None,
    ) -> Dict[str, torch.Tensor]:
        """``entity_mention_index``: one entity token per mention, pooled per entity (see
        :class:`LukeEntityModel`); labels and outputs are per entity either way."""
        features, mask = self.entity_features(
            tokens, entity_ids, entity_position_ids, entity_mask, entity_mention_index
        )
        logits = self.classifier(self.dropout(features))
        probabilities = torch.sigmoid(logits)
        output = {"logits": logits, "probabilities": probabilities, "entity_mask": mask}
        if metadata is not None:
            output["metadata"] = metadata
        if labels is not None:
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                logits[mask], labels[mask].float()
            )
            output["loss"] = loss
            self.metric(
                probabilities > self.threshold, labels, mask, probabilities,
                self._mention_counts(metadata, labels),
            )
        return output

    def _mention_counts(
        self, metadata: Optional[List[Dict[str, Any]]], labels: torch.Tensor
    ) -> Optional[torch.Tensor]:
        """(B, E, num_labels): how many mentions of each kept entity have each type, from the
        metadata's ``mention_types``; None when the reader gives none."""
        if not metadata or any(meta.get("mention_types") is None for meta in metadata):
            return None
        counts = torch.zeros_like(labels, dtype=torch.long)
        index = self.vocab.get_token_to_index_vocabulary(self.label_namespace)
        for row, meta in enumerate(metadata):
            for column, entity in enumerate(meta["entities"]):
                for label in meta["mention_types"][entity]:
                    counts[row, column, index[label]] += 1
        return counts

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        """Adds ``entities``: per kept entity its predicted ``labels`` and all ``probabilities``."""
        vocab = self.vocab.get_index_to_token_vocabulary(self.label_namespace)
        results = []
        for row, (probs, mask) in enumerate(
            zip(output_dict["probabilities"], output_dict["entity_mask"])
        ):
            meta = output_dict["metadata"][row]
            entities = []
            for index, entity_probs in enumerate(probs[mask.bool()].tolist()):
                scores = {vocab[i]: round(p, 6) for i, p in enumerate(entity_probs)}
                entities.append(
                    {
                        "entity": meta["entities"][index],
                        "mentions": meta["mentions"][index],
                        "labels": [k for k, p in scores.items() if p > self.threshold],
                        "probabilities": scores,
                    }
                )
            results.append(entities)
        output_dict["entities"] = results
        return output_dict

    default_predictor = "entity_typing"
