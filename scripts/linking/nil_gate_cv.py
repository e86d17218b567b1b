"""Could a learned gate tell the component's wrong links from its right ones? Cross-validated
on a decisions dump, set by set.

Every span the component links (``freetext_decisions.py dump``) gets the features the linker
itself has: its first candidate's probability, the second's, the first stage's score, whether the
span is the candidate's exact title, the number of candidates, the span's words (count, lower case
first letter, the share written in the title, all or any of them written there, how many
candidates' titles write one of them) and the span's label. A logistic regression, fitted on
the other sets, turns a link into NIL when it predicts, below ``threshold``, that the link is
right (the "right link" target) or, above it, that the gold is NIL (the "gold NIL" target).
Fixed: the gold was NIL; broken: the link was right; with the one-sided sign test. Sets are
left out in ``--folds`` blocks of the dump's order.

    python scripts/linking/nil_gate_cv.py DUMP.json [--folds 10]
"""
import argparse
import json
from pathlib import Path
from typing import List, Tuple

import numpy as np
from sklearn.linear_model import LogisticRegression

from allennlp_longent.linking.cascade import sign_test
from allennlp_longent.linking.names import folded_words

LABELS = ("PERSON", "ORG", "GPE", "LOC", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART", "NORP")
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)


def features(record: dict) -> List[float]:
    """The features of a linked span (module docstring); its first candidate is the link."""
    candidates = record["candidates"]
    top = next((c for c in candidates if c["id"] == record["found"]), candidates[0])
    probabilities = sorted((c.get("probability", 1.0) for c in candidates), reverse=True)
    span, title = set(folded_words(record["text"])), set(folded_words(top["title"]))
    return [top.get("probability", 1.0), probabilities[1] if len(probabilities) > 1 else 0.0,
            top.get("score", 0.0), float(bool(top.get("exact_title"))), float(len(candidates)),
            float(len(span)), float(record["text"][:1].islower()),
            len(span & title) / max(1, len(span)), float(span <= title), float(bool(span & title)),
            float(sum(1 for c in candidates if span.intersection(folded_words(c["title"]))))
            ] + [float(record["label"] == label) for label in LABELS]


def linked(dump: dict) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features, "link right", "gold NIL" and set number of every linked span."""
    rows, right, nil, group = [], [], [], []
    for number, records in enumerate(dump.values()):
        for record in records:
            if record["found"] in (None, "NIL") or not record["candidates"]:
                continue
            rows.append(features(record))
            right.append(record["found"] == record["gold"])
            nil.append(record["gold"] in (None, "NIL"))
            group.append(number)
    return np.array(rows), np.array(right), np.array(nil), np.array(group)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path, help="freetext_decisions.py dump's output")
    parser.add_argument("--folds", type=int, default=10)
    args = parser.parse_args()
    dump = json.loads(args.dump.read_text(encoding="utf-8"))
    x, right, nil, group = linked(dump)
    print(f"{len(x)} linked spans of {len(dump)} sets: {int(right.sum())} right, "
          f"{int(nil.sum())} whose gold is NIL")
    blocks = np.array_split(np.arange(len(dump)), args.folds)
    for target, y, below in (("right link", right, True), ("gold NIL", nil, False)):
        predicted = np.zeros(len(x))
        for block in blocks:
            held = np.isin(group, block)
            model = LogisticRegression(max_iter=3000).fit(x[~held], y[~held])
            predicted[held] = model.predict_proba(x[held])[:, 1]
        for threshold in THRESHOLDS:
            gated = predicted < threshold if below else predicted > threshold
            fixed, broken = int((gated & nil).sum()), int((gated & right).sum())
            print(f"target {target}, threshold {threshold}: fixed {fixed}, broken {broken}, "
                  f"sign test p = {sign_test(fixed, broken):.3f}")


if __name__ == "__main__":
    main()
