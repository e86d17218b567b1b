"""DocRED's official relation F1 and Ign-F1 (Yao et al. 2019, §4; their evaluation script).

Triples are (head entity, tail entity, relation) per document. P = correct / predicted,
R = correct / gold, F1 = 2PR / (P + R); ``predicted_per_gold`` = predicted / gold. Ign-F1 leaves
out of the precision the correct triples that are "in train": some (head mention name, tail
mention name, relation) of the triple is a fact of the training file.
Ign-P = (correct - correct_in_train) / (predicted - correct_in_train), and
Ign-F1 = 2 Ign-P R / (Ign-P + R) with the same recall, as in the official script.
"""

from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from allennlp.training.metrics import Metric

from allennlp_longent.modules.entity_fields import iter_json_records

Fact = Tuple[str, str, str]
Triple = Tuple[int, int, str]


def load_train_facts(path: str) -> Set[Fact]:
    """Every (head mention name, tail mention name, relation) of a DocRED training file; a path
    ``file.json[START:STOP]`` reads that slice of its documents (a run that trains on a slice)."""
    facts: Set[Fact] = set()
    for where, document in iter_json_records(path):
        vertex_set = document["vertexSet"]
        for label in document.get("labels", []):
            if not (0 <= label["h"] < len(vertex_set) and 0 <= label["t"] < len(vertex_set)):
                raise ValueError(f"{where}: relation {label} has no entity")
            for head in vertex_set[label["h"]]:
                for tail in vertex_set[label["t"]]:
                    facts.add((head["name"], tail["name"], label["r"]))
    return facts


@Metric.register("docred_f1")
class DocredF1(Metric):
    """``train_facts`` (from :func:`load_train_facts`) enables the Ign-F1 keys."""

    def __init__(self, train_facts: Optional[Set[Fact]] = None) -> None:
        self.train_facts = train_facts
        self.reset()

    def reset(self) -> None:
        self._correct = self._predicted = self._gold = self._correct_in_train = 0

    def __call__(
        self,
        predicted: Sequence[Iterable[Triple]],
        gold: Sequence[Iterable[Triple]],
        entity_names: Sequence[List[List[str]]],
    ) -> None:
        """Per document: predicted and gold triples over ``vertexSet`` indices, and the mention
        names of every entity."""
        for doc_predicted, doc_gold, names in zip(predicted, gold, entity_names):
            doc_predicted, doc_gold = set(doc_predicted), set(doc_gold)
            self._predicted += len(doc_predicted)
            self._gold += len(doc_gold)
            for head, tail, relation in doc_predicted & doc_gold:
                self._correct += 1
                if self.train_facts is not None and any(
                    (h, t, relation) in self.train_facts for h in names[head] for t in names[tail]
                ):
                    self._correct_in_train += 1

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        precision = self._correct / self._predicted if self._predicted else 0.0
        recall = self._correct / self._gold if self._gold else 0.0
        metrics = {"precision": precision, "recall": recall, "f1": _f1(precision, recall)}
        # Calibration at a glance: 1.0 when the model predicts as many triples as there are.
        metrics["predicted_per_gold"] = self._predicted / self._gold if self._gold else 0.0
        if self.train_facts is not None:
            kept = self._predicted - self._correct_in_train
            ign_precision = (self._correct - self._correct_in_train) / kept if kept else 0.0
            metrics["ign_precision"] = ign_precision
            metrics["ign_f1"] = _f1(ign_precision, recall)
        if reset:
            self.reset()
        return metrics


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
