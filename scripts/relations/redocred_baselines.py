"""Baselines without a model for the Re-DocRED CPU recipes, on the same split (records
``--train`` / ``--validation`` of one file, default dev_revised.json 0-449 / 450-499).

Relation extraction (official DocRED F1 over (head, tail, relation) triples):
* ``type_pair``: for every ordered entity pair, predict the relations r whose share among the
  training pairs with the same (head type, tail type) reaches a threshold; the threshold is the
  one of a fixed grid that maximises training F1 (nothing is fitted on the validation part).

Entity typing (loose micro F1 over an entity's set of mention types, and the single-label
accuracies of the typing metric: one type per entity, right when among the entity's mention types
(over entities) or counted once per mention of that type (over mentions)):
* ``majority``: every entity gets the most frequent type of training mentions.
* ``name_lookup``: the types that the entity's mention names had in training, else ``majority``;
  its single type is the most frequent of them in training.
"""

import argparse
import collections
from typing import Dict, List, Set, Tuple

from allennlp_longent.modules.entity_fields import iter_json_records

Triple = Tuple[int, int, str]


def entity_type(entity: List[dict]) -> str:
    return collections.Counter(m["type"] for m in entity).most_common(1)[0][0]


def f1(correct: int, predicted: int, gold: int) -> Dict[str, float]:
    p = correct / predicted if predicted else 0.0
    r = correct / gold if gold else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def type_pair_shares(documents) -> Dict[Tuple[str, str], Dict[str, float]]:
    pairs: Dict[Tuple[str, str], int] = collections.Counter()
    relations: Dict[Tuple[str, str], collections.Counter] = collections.defaultdict(
        collections.Counter
    )
    for document in documents:
        types = [entity_type(e) for e in document["vertexSet"]]
        gold = {(x["h"], x["t"], x["r"]) for x in document["labels"]}
        for h in range(len(types)):
            for t in range(len(types)):
                if h != t:
                    pairs[types[h], types[t]] += 1
        for h, t, r in gold:
            relations[types[h], types[t]][r] += 1
    return {k: {r: c / pairs[k] for r, c in v.items()} for k, v in relations.items()}


def predict_type_pair(documents, shares, threshold: float):
    correct = predicted = gold_count = 0
    for document in documents:
        types = [entity_type(e) for e in document["vertexSet"]]
        gold: Set[Triple] = {(x["h"], x["t"], x["r"]) for x in document["labels"]}
        guess = {
            (h, t, r)
            for h in range(len(types))
            for t in range(len(types))
            if h != t
            for r, share in shares.get((types[h], types[t]), {}).items()
            if share >= threshold
        }
        correct += len(guess & gold)
        predicted += len(guess)
        gold_count += len(gold)
    return f1(correct, predicted, gold_count) | {"predicted_per_gold": predicted / gold_count}


def typing_scores(documents, guess, single) -> Dict[str, float]:
    """Loose micro P/R/F1 of the type sets ``guess(entity)`` and the accuracies of the single
    type ``single(entity)``."""
    correct = predicted = gold_count = 0
    entities = entity_right = mentions = mention_right = 0
    for document in documents:
        for entity in document["vertexSet"]:
            types = [m["type"] for m in entity]
            gold = set(types)
            predicted_types = guess(entity)
            correct += len(predicted_types & gold)
            predicted += len(predicted_types)
            gold_count += len(gold)
            top = single(entity)
            entities += 1
            entity_right += top in gold
            mentions += len(types)
            mention_right += types.count(top)
    return f1(correct, predicted, gold_count) | {
        "accuracy": entity_right / entities, "mention_accuracy": mention_right / mentions
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/re-docred/dev_revised.json")
    parser.add_argument("--train", default="0:450")
    parser.add_argument("--validation", default="450:500")
    args = parser.parse_args()
    train = [r for _, r in iter_json_records(f"{args.data}[{args.train}]")]
    validation = [r for _, r in iter_json_records(f"{args.data}[{args.validation}]")]
    print(f"train documents {len(train)}, validation documents {len(validation)}")

    shares = type_pair_shares(train)
    grid = [0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5]
    best = max(grid, key=lambda x: predict_type_pair(train, shares, x)["f1"])
    scores = predict_type_pair(validation, shares, best)
    print(f"relations type_pair (threshold {best}, chosen on train): "
          + ", ".join(f"{k} {v:.3f}" for k, v in scores.items()))

    counts = collections.Counter(m["type"] for d in train for e in d["vertexSet"] for m in e)
    majority = counts.most_common(1)[0][0]
    names: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for document in train:
        for entity in document["vertexSet"]:
            for mention in entity:
                names[mention["name"]][mention["type"]] += 1

    def lookup_counts(entity) -> collections.Counter:
        return sum((names.get(m["name"], collections.Counter()) for m in entity),
                   collections.Counter())

    def lookup(entity):
        return set(lookup_counts(entity)) or {majority}

    def lookup_single(entity):
        counts = lookup_counts(entity)
        return counts.most_common(1)[0][0] if counts else majority

    baselines = (("majority", lambda e: {majority}, lambda e: majority),
                 ("name_lookup", lookup, lookup_single))
    for name, guess, single in baselines:
        scores = typing_scores(validation, guess, single)
        print(f"typing {name} ({majority} as majority): "
              + ", ".join(f"{k} {v:.3f}" for k, v in scores.items()))


if __name__ == "__main__":
    main()
