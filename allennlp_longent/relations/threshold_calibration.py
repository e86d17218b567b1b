"""The offset of ATLOP's threshold class, chosen on validation documents after training.

ATLOP (Zhou et al. 2021, §2.2) predicts relation r for a pair iff ``l_r > l_TH``: the learned
threshold class needs no tuning when the model is trained long enough (30 epochs of 3,053 DocRED
documents). The CPU recipe trains 8 epochs of 450 documents, and the model it gives still
under-predicts (0.61 predicted triples per gold one on validation), so ``luke_docred`` takes an
offset b and predicts r iff ``l_r > l_TH + b``. This module counts the official F1 for every b of
a grid from one pass of logits and keeps the best (ties: the smallest |b|, so ATLOP's b = 0 when
nothing beats it).

``docred_threshold`` is the trainer callback that does it at the end of ``allennlp train``, with
the best epoch's weights and the run's validation data: it writes b into the run's
``config.json`` (so the archive's model predicts with it, and ``allennlp evaluate`` on a test set
uses it), the whole sweep into ``threshold_calibration.json``, and ``threshold_offset`` and
``validation_calibrated_*`` into the run's metrics.
"""

import json
import logging
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.models.archival import CONFIG_NAME
from allennlp.training.callbacks import TrainerCallback

from allennlp_longent.relations.metrics.docred_f1 import DocredF1
from allennlp_longent.relations.models.docred_model import LukeDocred, count_triples

logger = logging.getLogger(__name__)
SWEEP_FILE = "threshold_calibration.json"
Cached = List[Tuple[torch.Tensor, torch.Tensor, List[Dict[str, Any]]]]


def offset_grid(low: float, high: float, step: float) -> List[float]:
    """``low, low + step, …, high`` (rounded to 6 places), always holding 0 when it is in range."""
    if step <= 0 or high < low:
        raise ValueError(f"offset grid needs step > 0 and high >= low, not {low}, {high}, {step}")
    count = int(round((high - low) / step)) + 1
    grid = {round(low + i * step, 6) for i in range(count)}
    if low <= 0 <= high:
        grid.add(0.0)
    return sorted(grid)


def validation_logits(model: LukeDocred, batches: Iterable[Dict[str, Any]]) -> Cached:
    """``(logits, pair_indices, metadata)`` of every batch, in eval mode without gradients; the
    model's own metric is left as it was found (reset)."""
    cached: Cached = []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for batch in batches:
            if batch.get("metadata") is None or any(m["gold"] is None for m in batch["metadata"]):
                raise ConfigurationError("threshold calibration needs labelled documents")
            output = model(**batch)
            cached.append((output["logits"], batch["pair_indices"], batch["metadata"]))
    model.get_metrics(reset=True)
    model.train(was_training)
    return cached


def sweep(model: LukeDocred, cached: Cached, offsets: Sequence[float]) -> List[Dict[str, float]]:
    """The official metrics (:class:`DocredF1`) of the decision rule at every offset."""
    rows = []
    for offset in offsets:
        metric = DocredF1(model.metric.train_facts)
        for logits, pair_indices, metadata in cached:
            predicted = model.decide(logits, pair_indices, offset)
            count_triples(metric, model.triples(predicted, pair_indices, metadata), metadata)
        rows.append({"threshold_offset": offset, **metric.get_metric()})
    return rows


def best_offset(rows: Sequence[Dict[str, float]]) -> Dict[str, float]:
    """The row of highest F1; among equal F1 the offset nearest 0."""
    if not rows:
        raise ValueError("no offsets were measured")
    return max(rows, key=lambda row: (row["f1"], -abs(row["threshold_offset"])))


@TrainerCallback.register("docred_threshold")
class DocredThresholdCallback(TrainerCallback):
    """After training, sets ``luke_docred``'s ``threshold_offset`` to the validation-best offset
    of the grid ``low … high`` by ``step`` (module docstring)."""

    def __init__(
        self, serialization_dir: str, low: float = -3.0, high: float = 1.0, step: float = 0.25
    ) -> None:
        super().__init__(serialization_dir)
        self.offsets = offset_grid(low, high, step)

    def on_end(
        self,
        trainer,
        metrics: Optional[Dict[str, Any]] = None,
        epoch: Optional[int] = None,
        is_primary: bool = True,
        **kwargs,
    ) -> None:
        if not is_primary or metrics is None:  # training failed: nothing to calibrate
            return
        model = trainer.model
        if not isinstance(model, LukeDocred):
            raise ConfigurationError(f"docred_threshold calibrates luke_docred, not {type(model)}")
        loader = getattr(trainer, "_validation_data_loader", None)
        if loader is None:
            raise ConfigurationError("docred_threshold needs validation_data_path")
        rows = sweep(model, validation_logits(model, loader), self.offsets)
        best = best_offset(rows)
        model.threshold_offset = best["threshold_offset"]
        self._write(rows, best)
        metrics["threshold_offset"] = best["threshold_offset"]
        metrics.update({f"validation_calibrated_{k}": v for k, v in best.items()
                        if k != "threshold_offset"})
        logger.info(
            "docred_threshold: offset %+.2f gives validation F1 %.4f (P %.4f, R %.4f); the sweep "
            "is in %s", best["threshold_offset"], best["f1"], best["precision"], best["recall"],
            SWEEP_FILE,
        )

    def _write(self, rows: List[Dict[str, float]], best: Dict[str, float]) -> None:
        config_path = os.path.join(self.serialization_dir, CONFIG_NAME)
        with open(config_path) as handle:
            config = json.load(handle)
        config["model"]["threshold_offset"] = best["threshold_offset"]
        with open(config_path, "w") as handle:
            json.dump(config, handle, indent=4)
        with open(os.path.join(self.serialization_dir, SWEEP_FILE), "w") as handle:
            json.dump({"chosen": best, "sweep": rows}, handle, indent=2)
