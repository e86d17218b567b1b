"""Micro F1 over relation labels excluding the negative label (TACRED's official scorer,
Zhang et al. 2017): a prediction counts only when it is not the negative label, a gold example
only when its label is not the negative label."""

from typing import Dict

import torch
from allennlp.training.metrics import Metric


@Metric.register("relation_micro_f1")
class RelationMicroF1(Metric):
    def __init__(self, negative_index: int) -> None:
        self.negative_index = negative_index
        self.reset()

    def reset(self) -> None:
        self._correct = self._predicted = self._gold = 0

    def __call__(self, predictions: torch.Tensor, gold_labels: torch.Tensor) -> None:
        """``predictions`` and ``gold_labels``: label indices of the same shape."""
        predictions, gold_labels = self.detach_tensors(predictions, gold_labels)
        predicted = predictions != self.negative_index
        gold = gold_labels != self.negative_index
        self._predicted += predicted.sum().item()
        self._gold += gold.sum().item()
        self._correct += (predicted & (predictions == gold_labels)).sum().item()

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        precision = self._correct / self._predicted if self._predicted else 0.0
        recall = self._correct / self._gold if self._gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        if reset:
            self.reset()
        return {"precision": precision, "recall": recall, "f1": f1}
