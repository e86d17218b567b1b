"""LUKE sentence-level relation classification (Yamada et al. 2020, §4.3).

The head entity is the [MASK] entity (id 1) and the tail the [MASK2] entity (id 2); the
concatenation of their features feeds a linear softmax classifier trained with cross-entropy.
Scored with TACRED's micro F1 excluding ``no_relation_label``.
"""

from typing import Any, Dict, List, Optional

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.modules.token_embedders import TokenEmbedder
from allennlp.nn import InitializerApplicator

from allennlp_longent.modules.entity_features import EntityFeatureExtractor, LukeEntityModel
from allennlp_longent.relations.metrics.relation_f1 import RelationMicroF1


@Model.register("luke_relation_classifier")
class LukeRelationClassifier(LukeEntityModel):
    def __init__(
        self,
        vocab: Vocabulary,
        embedder: TokenEmbedder,
        feature_extractor: Optional[EntityFeatureExtractor] = None,
        dropout: float = 0.1,
        no_relation_label: str = "no_relation",
        label_namespace: str = "labels",
        initializer: Optional[InitializerApplicator] = None,
        **kwargs,
    ) -> None:
        super().__init__(vocab, embedder, feature_extractor, dropout, label_namespace, **kwargs)
        labels = vocab.get_token_to_index_vocabulary(label_namespace)
        if no_relation_label not in labels:
            raise ValueError(
                f"no_relation_label {no_relation_label!r} is not in the {label_namespace!r} "
                f"vocabulary ({sorted(labels)[:10]}...)"
            )
        self.classifier = torch.nn.Linear(2 * self.feature_dim, len(labels))
        self.metric = RelationMicroF1(labels[no_relation_label])
        if initializer is not None:
            initializer(self)

    def forward(
        self,
        tokens: TextFieldTensors,
        entity_ids: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
        label: Optional[torch.Tensor] = None,
        metadata: Optional[List[Dict[str, Any]]] = None,
    ) -> Dict[str, torch.Tensor]:
        features, _ = self.entity_features(tokens, entity_ids, entity_position_ids, entity_mask)
        pair = features[:, :2].flatten(1)  # head ([MASK]) then tail ([MASK2])
        logits = self.classifier(self.dropout(pair))
        output = {"logits": logits, "probabilities": torch.softmax(logits, -1)}
        if label is not None:
            output["loss"] = torch.nn.functional.cross_entropy(logits, label)
            self.metric(logits.argmax(-1), label)
        return output

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        """Adds ``prediction``: ``{"relation": label, "probabilities": {label: p}}``."""
        vocab = self.vocab.get_index_to_token_vocabulary(self.label_namespace)
        predictions = []
        for probabilities in output_dict["probabilities"].tolist():
            scores = {vocab[i]: round(p, 6) for i, p in enumerate(probabilities)}
            predictions.append({"relation": max(scores, key=scores.get), "probabilities": scores})
        output_dict["prediction"] = predictions
        return output_dict

    default_predictor = "relation_extraction"
