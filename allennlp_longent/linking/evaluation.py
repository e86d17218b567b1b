"""Counting links against gold: intervals and NIL precision and recall."""

import math
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

NIL = "NIL"


def wilson(hits: int, total: int, z: float = 1.96) -> Tuple[float, float]:
    """Wilson (1927) score interval of the proportion ``hits / total`` (95 % at z = 1.96)."""
    if total == 0:
        return 0.0, 1.0
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


@dataclass
class LinkCounts:
    """Links of one system on one set of gold spans whose gold is an entity id or ``NIL``.

    ``right``: the prediction is the gold (NIL for NIL included); NIL precision is
    ``nil_right / predicted_nil``, NIL recall ``nil_right / gold_nil``."""

    total: int = 0
    right: int = 0
    gold_nil: int = 0
    predicted_nil: int = 0
    nil_right: int = 0

    @classmethod
    def of(cls, predicted: Sequence[Optional[str]], gold: Sequence[str]) -> "LinkCounts":
        """A missing prediction (None or empty) counts as NIL."""
        if len(predicted) != len(gold):
            raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold spans")
        counts = cls()
        for guess, truth in zip(predicted, gold):
            guess = guess or NIL
            counts.total += 1
            counts.right += guess == truth
            counts.gold_nil += truth == NIL
            counts.predicted_nil += guess == NIL
            counts.nil_right += guess == NIL and truth == NIL
        return counts

    def accuracy(self) -> float:
        return self.right / self.total if self.total else 0.0

    def nil_precision(self) -> Optional[float]:
        return self.nil_right / self.predicted_nil if self.predicted_nil else None

    def nil_recall(self) -> Optional[float]:
        return self.nil_right / self.gold_nil if self.gold_nil else None
