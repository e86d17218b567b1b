"""Entity prediction accuracy with its two baselines (Ji et al. 2017, §5.3)."""

from typing import Dict

import torch
from allennlp.training.metrics import Metric


@Metric.register("entity_prediction_accuracy")
class EntityPredictionAccuracy(Metric):
    """Accuracy of predicting E_t at each mention start (R_t = 1 given), over all mentions.

    Beside the model's accuracy it keeps two baselines on the same mentions: always predicting a
    new entity, and predicting the most recently mentioned entity (a new one when none exists).
    Predictions and gold use entity numbers in order of first mention; the new-entity choice is the
    next free number, so every prediction is one integer per mention.
    """

    def __init__(self) -> None:
        self.reset()

    def __call__(  # type: ignore[override]
        self,
        predicted: torch.Tensor,
        gold: torch.Tensor,
        new_entity: torch.Tensor,
        most_recent: torch.Tensor,
        mask: torch.Tensor,
    ) -> None:
        """All arguments share one shape; ``new_entity`` is the number a new entity would get and
        ``mask`` marks the mention starts to score."""
        predicted, gold, new_entity, most_recent, mask = self.detach_tensors(
            predicted, gold, new_entity, most_recent, mask
        )
        mask = mask.bool()
        self._mentions += int(mask.sum())
        self._model += int(((predicted == gold) & mask).sum())
        self._new += int(((new_entity == gold) & mask).sum())
        self._recent += int(((most_recent == gold) & mask).sum())

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        total = max(self._mentions, 1)
        metrics = {
            "entity_acc": self._model / total,
            "baseline_new_acc": self._new / total,
            "baseline_recent_acc": self._recent / total,
        }
        if reset:
            self.reset()
        return metrics

    def reset(self) -> None:
        self._mentions = 0
        self._model = 0
        self._new = 0
        self._recent = 0
