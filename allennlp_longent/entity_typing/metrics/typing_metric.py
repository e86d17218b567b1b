"""Entity-typing metrics: loose micro precision/recall/F1, strict accuracy, and single-label
accuracy over entities and over mentions.

Loose micro (Ling & Weld 2012; the Open Entity metric reported by LUKE, Yamada et al. 2020, §4.1):
P = sum_i |pred_i & gold_i| / sum_i |pred_i|, R = sum_i |pred_i & gold_i| / sum_i |gold_i|,
F1 = 2PR / (P + R). Strict accuracy is the fraction of entities with pred_i == gold_i.

Single-label accuracy (how the Long-LUKE thesis, Malaquias 2023, reports DocRED entity typing: one
type per entity): the entity's top-scoring type is right when it is among the entity's gold types
(``accuracy``, over entities); ``mention_accuracy`` gives that type to every mention of the entity
and compares it with each mention's own type, so an entity counts once per mention. Both need the
type ``scores``; ``mention_accuracy`` needs ``mention_counts``.
"""

from typing import Dict, Optional

import torch
from allennlp.training.metrics import Metric


@Metric.register("entity_typing")
class EntityTypingMetric(Metric):
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._correct = self._predicted = self._gold = 0
        self._exact = self._entities = 0
        self._top_right = self._scored = 0
        self._mention_right = self._mentions = 0

    def __call__(
        self,
        predictions: torch.Tensor,
        gold_labels: torch.Tensor,
        mask: Optional[torch.Tensor] = None,
        scores: Optional[torch.Tensor] = None,
        mention_counts: Optional[torch.Tensor] = None,
    ) -> None:
        """``predictions`` and ``gold_labels``: (..., num_labels) 0/1; ``mask``: (...) entities;
        ``scores`` (..., num_labels) any monotone type scores; ``mention_counts``
        (..., num_labels): how many of the entity's mentions have each type."""
        predictions, gold_labels, scores, mention_counts = self.detach_tensors(
            predictions, gold_labels, scores, mention_counts
        )
        keep = None if mask is None else mask.bool()

        def flat(tensor: torch.Tensor) -> torch.Tensor:
            tensor = tensor if keep is None else tensor[keep]
            return tensor.reshape(-1, tensor.size(-1))

        predicted, gold = flat(predictions.bool()), flat(gold_labels.bool())
        self._correct += (predicted & gold).sum().item()
        self._predicted += predicted.sum().item()
        self._gold += gold.sum().item()
        self._exact += (predicted == gold).all(-1).sum().item()
        self._entities += predicted.size(0)
        if scores is None:
            if mention_counts is not None:
                raise ValueError("mention_counts needs scores")
            return
        top = flat(scores).argmax(-1, keepdim=True)
        self._top_right += gold.gather(1, top).sum().item()
        self._scored += top.size(0)
        if mention_counts is not None:
            counts = flat(mention_counts)
            self._mention_right += counts.gather(1, top).sum().item()
            self._mentions += counts.sum().item()

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        precision = self._correct / self._predicted if self._predicted else 0.0
        recall = self._correct / self._gold if self._gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        values = {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "strict_accuracy": self._exact / self._entities if self._entities else 0.0,
        }
        if self._scored:
            values["accuracy"] = self._top_right / self._scored
        if self._mentions:
            values["mention_accuracy"] = self._mention_right / self._mentions
        if reset:
            self.reset()
        return values
