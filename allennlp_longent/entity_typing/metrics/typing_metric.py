"""Entity-typing metrics: loose micro precision/recall/F1 and strict accuracy.

Loose micro (Ling & Weld 2012; the Open Entity metric reported by LUKE, Yamada et al. 2020, §4.1):
P = sum_i |pred_i & gold_i| / sum_i |pred_i|, R = sum_i |pred_i & gold_i| / sum_i |gold_i|,
F1 = 2PR / (P + R). Strict accuracy is the fraction of entities with pred_i == gold_i.
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

    def __call__(
        self,
        predictions: torch.Tensor,
        gold_labels: torch.Tensor,
        mask: Optional[torch.Tensor] = None,
    ) -> None:
        """``predictions`` and ``gold_labels``: (..., num_labels) 0/1; ``mask``: (...) entities."""
        predictions, gold_labels = self.detach_tensors(predictions, gold_labels)
        predicted, gold = predictions.bool(), gold_labels.bool()
        if mask is not None:
            keep = mask.bool()
            predicted, gold = predicted[keep], gold[keep]
        predicted = predicted.reshape(-1, predicted.size(-1))
        gold = gold.reshape(-1, gold.size(-1))
        self._correct += (predicted & gold).sum().item()
        self._predicted += predicted.sum().item()
        self._gold += gold.sum().item()
        self._exact += (predicted == gold).all(-1).sum().item()
        self._entities += predicted.size(0)

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        precision = self._correct / self._predicted if self._predicted else 0.0
        recall = self._correct / self._gold if self._gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        strict = self._exact / self._entities if self._entities else 0.0
        if reset:
            self.reset()
        return {"precision": precision, "recall": recall, "f1": f1, "strict_accuracy": strict}
