"""Entity prediction accuracy under the protocol of Ji et al. (2017), §5.3, with its baselines."""

from typing import Dict

import torch
from allennlp.training.metrics import Metric


def protocol_mask(
    starts: torch.Tensor, sentence_ids: torch.Tensor, skip_sentences: int = 3,
    max_predictions: int = 30,
) -> torch.Tensor:
    """The mention starts predicted under §5.3: "for testing, it predicts a maximum of 30
    entities after the first three sentences" — starts in sentence ``skip_sentences`` or later
    (0-based ids), the first ``max_predictions`` of them per document (rows)."""
    eligible = starts.bool() & (sentence_ids >= skip_sentences)
    return eligible & (eligible.long().cumsum(-1) <= max_predictions)


@Metric.register("entity_prediction_accuracy")
class EntityPredictionAccuracy(Metric):
    """Accuracy of E_t given R_t = 1 and the gold left context, under the §5.3 protocol.

    ``entity_acc`` counts the mentions of ``protocol_mask``; beside it, on the same mentions,
    ``baseline_new_acc`` (always a new entity) and ``baseline_recent_acc`` (the most recently
    mentioned entity, new when none). ``entity_acc_all_mentions`` counts every mention start of the
    document, the first one (where "new" is the only choice) included. ``entity_acc_new`` and
    ``entity_acc_existing`` split ``entity_acc`` by whether the gold entity is a new one. Entities
    are numbered in order of first mention and the new-entity choice is the next free number, so a
    prediction is one integer per mention.
    """

    def __init__(self, skip_sentences: int = 3, max_predictions: int = 30) -> None:
        self._skip = skip_sentences
        self._max = max_predictions
        self.reset()

    def __call__(  # type: ignore[override]
        self,
        predicted: torch.Tensor,
        gold: torch.Tensor,
        starts: torch.Tensor,
        sentence_ids: torch.Tensor,
        new_entity: torch.Tensor,
        most_recent: torch.Tensor,
    ) -> None:
        """All arguments are (documents, tokens); ``starts`` marks every mention start and
        ``new_entity`` is the number a new entity would get at each token."""
        predicted, gold, starts, sentence_ids, new_entity, most_recent = self.detach_tensors(
            predicted, gold, starts, sentence_ids, new_entity, most_recent
        )
        starts = starts.bool()
        mask = protocol_mask(starts, sentence_ids, self._skip, self._max)
        right = predicted == gold
        # Always-new is right exactly where the gold entity is new: "new" counts both.
        gold_new = (new_entity == gold) & mask
        self._counts["all"] += int(starts.sum())
        self._counts["all_correct"] += int((right & starts).sum())
        self._counts["protocol"] += int(mask.sum())
        self._counts["model"] += int((right & mask).sum())
        self._counts["new"] += int(gold_new.sum())
        self._counts["recent"] += int(((most_recent == gold) & mask).sum())
        self._counts["model_new"] += int((right & gold_new).sum())

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        counts = self._counts
        total = max(counts["protocol"], 1)
        metrics = {
            "entity_acc": counts["model"] / total,
            "entity_acc_all_mentions": counts["all_correct"] / max(counts["all"], 1),
            "baseline_new_acc": counts["new"] / total,
            "baseline_recent_acc": counts["recent"] / total,
            "entity_acc_new": counts["model_new"] / max(counts["new"], 1),
            "entity_acc_existing": (counts["model"] - counts["model_new"])
            / max(counts["protocol"] - counts["new"], 1),
        }
        if reset:
            self.reset()
        return metrics

    def reset(self) -> None:
        self._counts = dict.fromkeys(
            ("all", "all_correct", "protocol", "model", "new", "recent", "model_new"), 0
        )
