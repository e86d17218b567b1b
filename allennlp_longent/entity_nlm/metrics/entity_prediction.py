"""Entity prediction accuracy (Ji et al. 2017, §5.3; Modi et al. 2017) with its baselines."""

from typing import Dict, Optional

import torch
from allennlp.training.metrics import Metric

from allennlp_longent.entity_nlm.dataset_readers.inscript_tacl import (
    HUMAN_RIGHT,
    HUMAN_TIED,
)


@Metric.register("entity_prediction_accuracy")
class EntityPredictionAccuracy(Metric):
    """Accuracy of E_t given R_t = 1 and the gold left context ("R_t is always given and EntityNLM
    only needs to predict E_t when R_t = 1", §5.3).

    With ``targets`` (the official targets of Modi et al. 2017, from the ``inscript_tacl``
    reader): ``entity_acc`` at those mentions and, on the same mentions, ``baseline_new_acc``
    (always a new entity), ``baseline_recent_acc`` (the most recently mentioned entity, new when
    none), ``shallow_baseline_acc`` (the linear classifier's ``shallow`` predictions, when given),
    ``human_majority_acc`` and ``human_tied_share`` over the targets with human guesses (the
    reader's ``human_majority`` codes), ``entity_acc_new``/``entity_acc_existing`` (split by
    whether the gold entity is new) and ``num_targets``. Always: the same figures over every
    mention start (``*_all_mentions``), the first mention of a document included.

    Entities are numbered in order of first mention and the new-entity choice is the next free
    number (``new_entity``), so a prediction is one integer per mention.
    """

    def __init__(self) -> None:
        self.reset()

    def __call__(  # type: ignore[override]
        self,
        predicted: torch.Tensor,
        gold: torch.Tensor,
        starts: torch.Tensor,
        new_entity: torch.Tensor,
        most_recent: torch.Tensor,
        targets: Optional[torch.Tensor] = None,
        human_majority: Optional[torch.Tensor] = None,
        shallow: Optional[torch.Tensor] = None,
    ) -> None:
        """All arguments are (documents, tokens); ``starts`` marks every mention start."""
        predicted, gold, starts, new_entity, most_recent = self.detach_tensors(
            predicted, gold, starts, new_entity, most_recent
        )
        starts = starts.bool()
        methods = {"model": predicted, "new": new_entity, "recent": most_recent}
        if shallow is not None:
            methods["shallow"] = shallow.detach()
            self._shallow = True
        counts = self._counts
        counts["all"] += int(starts.sum())
        for name, choice in methods.items():
            counts[f"all_{name}"] += int(((choice == gold) & starts).sum())
        if targets is None:
            return
        mask = targets.detach().bool()
        if bool((mask & ~starts).any()):
            raise ValueError("a target is not a mention start")
        self._targets = True
        counts["targets"] += int(mask.sum())
        for name, choice in methods.items():
            counts[name] += int(((choice == gold) & mask).sum())
        counts["model_new"] += int(((predicted == gold) & (new_entity == gold) & mask).sum())
        if human_majority is not None:
            human = human_majority.detach() * mask
            counts["guessed"] += int((human > 0).sum())
            counts["human"] += int((human == HUMAN_RIGHT).sum())
            counts["tied"] += int((human == HUMAN_TIED).sum())

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        c = self._counts
        methods = ["entity_acc", "baseline_new_acc", "baseline_recent_acc"]
        names = dict(zip(("model", "new", "recent"), methods))
        if self._shallow:
            names["shallow"] = "shallow_baseline_acc"
        metrics = {f"{metric}_all_mentions": c[f"all_{name}"] / max(c["all"], 1)
                   for name, metric in names.items()}
        if self._targets:
            total = max(c["targets"], 1)
            metrics.update({metric: c[name] / total for name, metric in names.items()})
            metrics["entity_acc_new"] = c["model_new"] / max(c["new"], 1)
            metrics["entity_acc_existing"] = (c["model"] - c["model_new"]) / max(
                c["targets"] - c["new"], 1)
            metrics["num_targets"] = float(c["targets"])
            if c["guessed"]:
                metrics["human_majority_acc"] = c["human"] / c["guessed"]
                metrics["human_tied_share"] = c["tied"] / c["guessed"]
        if reset:
            self.reset()
        return metrics

    def reset(self) -> None:
        self._counts = dict.fromkeys(
            ("all", "all_model", "all_new", "all_recent", "all_shallow", "targets", "model",
             "new", "recent", "shallow", "model_new", "guessed", "human", "tied"), 0
        )
        self._targets = False
        self._shallow = False
