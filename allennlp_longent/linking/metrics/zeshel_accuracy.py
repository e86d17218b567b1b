"""Zero-shot linking accuracy as reported by Logeswaran et al. (2019) and Yao et al. (2020, §5).

- normalized accuracy: over mentions whose gold entity is among the candidates;
- unnormalized accuracy: over all mentions (a mention without its gold counts as wrong);
- both macro-averaged over worlds (the papers' figure) and micro-averaged over mentions;
- normalized accuracy on long (DLength > ``long_threshold``) and short mentions, where DLength is
  the untruncated word-piece length of mention context + gold description;
- recall@k of the candidate lists (gold within the first k candidates, over all mentions).
"""

from collections import defaultdict
from typing import Dict, List, Optional, Sequence

import torch
import torch.distributed as dist
from allennlp.common.util import is_distributed
from allennlp.training.metrics import Metric

COUNTS = ("mentions", "gold_in_candidates", "correct")


@Metric.register("zeshel_accuracy")
class ZeshelAccuracy(Metric):
    def __init__(
        self, long_threshold: int = 512, recall_at: Sequence[int] = (1, 4, 16, 64)
    ) -> None:
        self.long_threshold = long_threshold
        self.recall_at = tuple(recall_at)
        self.reset()

    def reset(self) -> None:
        self._worlds: Dict[str, Dict[str, int]] = defaultdict(_zero_counts)
        self._length: Dict[str, Dict[str, int]] = defaultdict(_zero_counts)
        self._recall: Dict[int, int] = dict.fromkeys(self.recall_at, 0)

    def __call__(  # type: ignore[override]
        self,
        scores: torch.Tensor,
        candidate_mask: torch.Tensor,
        labels: torch.Tensor,
        worlds: List[Optional[str]],
        dlengths: List[Optional[int]],
    ) -> None:
        """``scores``/``candidate_mask``: (batch, candidates); ``labels``: gold position or -1."""
        scores, candidate_mask, labels = self.detach_tensors(scores, candidate_mask, labels)
        masked = scores.masked_fill(~candidate_mask.bool(), float("-inf"))
        predicted = masked.argmax(-1).tolist()
        worlds_delta: Dict[str, Dict[str, int]] = defaultdict(_zero_counts)
        length_delta: Dict[str, Dict[str, int]] = defaultdict(_zero_counts)
        recall = dict.fromkeys(self.recall_at, 0)
        for label, guess, world, dlength in zip(labels.tolist(), predicted, worlds, dlengths):
            found = label >= 0
            row = {"mentions": 1, "gold_in_candidates": int(found), "correct": int(label == guess)}
            buckets = [worlds_delta[world or "<none>"]]
            if dlength is not None:
                buckets.append(length_delta["long" if dlength > self.long_threshold else "short"])
            for bucket in buckets:
                for key, value in row.items():
                    bucket[key] += value
            for k in self.recall_at:
                recall[k] += int(found and label < k)
        delta = {"worlds": dict(worlds_delta), "length": dict(length_delta), "recall": recall}
        for part in _gather(delta):
            for name, state in (("worlds", self._worlds), ("length", self._length)):
                for key, counts in part[name].items():
                    for count, value in counts.items():
                        state[key][count] += value
            for k, value in part["recall"].items():
                self._recall[k] += value

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        """A bucket (world, long, short) without a mention whose gold is among the candidates
        has no normalized accuracy: its key is left out, and it is left out of the macro
        average, rather than reported as 0.0. ``mentions*`` keys still count it."""
        worlds = list(self._worlds.values())
        total = {key: sum(world[key] for world in worlds) for key in COUNTS}
        metrics = {
            "normalized_acc_macro": _mean(
                [w["correct"] / w["gold_in_candidates"] for w in worlds if w["gold_in_candidates"]]
            ),
            "unnormalized_acc_macro": _mean([_ratio(w["correct"], w["mentions"]) for w in worlds]),
            "normalized_acc_micro": _ratio(total["correct"], total["gold_in_candidates"]),
            "unnormalized_acc_micro": _ratio(total["correct"], total["mentions"]),
            "mentions": float(total["mentions"]),
        }
        for bucket in ("long", "short"):
            counts = self._length.get(bucket, _zero_counts())
            if counts["gold_in_candidates"]:
                metrics[f"normalized_acc_{bucket}"] = (
                    counts["correct"] / counts["gold_in_candidates"]
                )
            metrics[f"mentions_{bucket}"] = float(counts["mentions"])
        for k in self.recall_at:
            metrics[f"recall_at_{k}"] = _ratio(self._recall[k], total["mentions"])
        for name, world in sorted(self._worlds.items()):
            if world["gold_in_candidates"]:
                metrics[f"world_{name}_normalized_acc"] = (
                    world["correct"] / world["gold_in_candidates"]
                )
        if reset:
            self.reset()
        return metrics


def _gather(delta: dict) -> List[dict]:
    """Every worker's batch counts, so that each worker's state covers the whole batch."""
    if not is_distributed():
        return [delta]
    gathered: List[Optional[dict]] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, delta)
    return gathered  # type: ignore[return-value]


def _zero_counts() -> Dict[str, int]:
    return dict.fromkeys(COUNTS, 0)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def _mean(values: List[float]) -> float:
    return sum(values) / len(values) if values else 0.0
