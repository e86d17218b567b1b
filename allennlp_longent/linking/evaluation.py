"""What the linker's evaluation prints: counts with 95 % Wilson intervals, NIL precision and
recall, recall@k, and the check that the cascade beats its baselines. Reads the metrics of
``cascade_linker`` (``allennlp evaluate``'s output), so the main job and a user's evaluation print
the same table.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

NIL = "NIL"

# (metric stem, label) in table order; ``<stem>_right`` counts mentions linked right at 1
SYSTEMS = (
    ("bm25", "BM25@1"),
    ("bm25_without_own_page", "BM25@1 without the own page"),
    ("dense", "dense@1 (untrained encoder)"),
    ("hybrid", "hybrid@1 (RRF)"),
    ("first_stage", "first stage (context evidence)"),
    ("cross_encoder", "cross-encoder alone"),
    ("cascade", "cascade"),
)
RECALL_KS = (1, 4, 16, 64)
RECALL_OF = ("bm25", "dense", "hybrid", "first_stage")


def wilson(hits: int, total: int, z: float = 1.96) -> Tuple[float, float]:
    """95 % Wilson score interval of a proportion (Wilson 1927)."""
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


def count_cell(hits: int, total: int) -> str:
    """``hits/total = accuracy [95 % Wilson interval]``, a markdown table's cell."""
    if total == 0:
        return "0/0"
    low, high = wilson(hits, total)
    return f"{hits}/{total} = {hits / total:.3f} [{low:.3f}, {high:.3f}]"


def line(name: str, hits: int, total: int) -> str:
    low, high = wilson(hits, total)
    return f"  {name:<34}{hits:>4}/{total:<4}{hits / total:>8.3f}   [{low:.3f}, {high:.3f}]"


def table(metrics: Dict[str, float], title: str = "test") -> str:
    """Accuracy@1 of every system the metrics hold, with counts and Wilson intervals, and
    recall@k of the retrievers."""
    total = int(metrics["mentions"])
    if total == 0:
        return f"{title}: no mentions"
    rows = [f"{title} ({total} mentions), accuracy@1 with 95 % Wilson interval",
            f"  {'chance (1 / entities in the world)':<34}{'':>9}{metrics['chance']:>8.3f}"]
    for stem, label in SYSTEMS:
        if f"{stem}_right" in metrics:
            if stem == "cascade":
                label = f"cascade (weight {metrics.get('cascade_weight', 0):g})"
            rows.append(line(label, int(metrics[f"{stem}_right"]), total))
    recall = [name for name in RECALL_OF if f"recall_{name}_at_1" in metrics]
    if recall:
        rows.append(f"recall@k of {total}")
        rows.append(f"  {'retriever':<12}" + "".join(f"{f'@{k}':>8}" for k in RECALL_KS))
        for name in recall:
            cells = "".join(f"{int(metrics[f'recall_{name}_at_{k}']):>8}" for k in RECALL_KS)
            rows.append(f"  {name:<12}{cells}")
    return "\n".join(rows)


def failures(metrics: Dict[str, float]) -> List[str]:
    """Why the cascade fails its goal: below max(BM25@1, dense@1), or its lower 95 % bound not
    above chance; empty when it passes."""
    total = int(metrics["mentions"])
    hits = int(metrics["cascade_right"])
    best = max(int(metrics.get("bm25_right", 0)), int(metrics.get("dense_right", 0)))
    found = []
    if hits < best:
        found.append(f"the cascade ({hits}) is below max(BM25@1, dense@1) ({best})")
    low, _ = wilson(hits, total)
    if low <= metrics["chance"]:
        found.append(f"the lower 95 % bound {low:.3f} is not above chance {metrics['chance']:.3f}")
    return found
