"""Where an archived EntityNLM's entity predictions (Ji et al. 2017, §5.3) go right and wrong.

    python scripts/entity_nlm/entity_nlm_breakdown.py ARCHIVE DATA [--targets FILE] [--top 15]

Reads DATA with the archive's validation reader (``inscript_tacl`` with its targets file, or
``--targets``), predicts E_t at every target (R_t and the gold left context given) and prints
accuracy by the gold entity's kind (the story's first-mentioned entity, in InScript mostly the
narrator; another entity already mentioned; a new one) with what the model chose instead, by the
distance in tokens to the gold entity's latest mention, and by the target's word (which the
prediction does not see).
"""

import argparse
import json
from bisect import bisect_left
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

import torch
from allennlp.models.archival import load_archive

import allennlp_longent.components  # noqa: F401  (registers the reader and the model)

KINDS = ("first entity", "other existing", "new")
BOUNDS = (5, 15, 40)  # distance buckets 1-5, 6-15, 16-40, 41+ tokens
BUCKETS = ("1-5", "6-15", "16-40", "41+")

Row = Tuple[str, str, str, str]  # gold kind, outcome ("right" or the kind chosen), distance, word


def kind_of(gold: int, new: int) -> str:
    return "new" if gold == new else ("first entity" if gold == 0 else "other existing")


def distance_bucket(entity_ids: Sequence[int], t: int) -> str:
    """Tokens from ``t`` back to the latest earlier token of the entity at ``t`` ("new" if none),
    as one of ``BUCKETS``."""
    earlier = [s for s in range(t) if entity_ids[s] == entity_ids[t]]
    return BUCKETS[bisect_left(BOUNDS, t - earlier[-1])] if earlier else "new"


def predictions(archive: str, data: str, targets: Optional[str] = None,
                batch_size: int = 16) -> List[Row]:
    """One row per target of DATA."""
    overrides = {"validation_dataset_reader.targets_file": targets} if targets else {}
    loaded = load_archive(archive, overrides=json.dumps(overrides))
    model, reader = loaded.model.eval(), loaded.validation_dataset_reader
    instances = list(reader.read(data))
    rows = []
    for start in range(0, len(instances), batch_size):
        chunk = instances[start : start + batch_size]
        for instance, out in zip(chunk, model.forward_on_instances(chunk)):
            if "targets" not in out:
                raise ValueError(f"{data}: no targets; give the reader a targets_file "
                                 f"(--targets)")
            gold = torch.as_tensor(out["entity_ids"]).tolist()
            words = [token.text for token in instance["tokens"].tokens]
            for t in torch.as_tensor(out["targets"]).nonzero().flatten().tolist():
                g, p, n = gold[t], int(out["predicted_entities"][t]), int(out["new_entity"][t])
                outcome = "right" if p == g else kind_of(p, n)
                rows.append((kind_of(g, n), outcome, distance_bucket(gold, t), words[t]))
    return rows


def _table(rows: List[Row], key: int, title: str, order: Sequence[str]) -> None:
    total = Counter(row[key] for row in rows)
    outcome: Dict[str, Counter] = {value: Counter() for value in order}
    for row in rows:
        outcome[row[key]][row[1]] += 1
    print(f"{title:16} {'count':>6} {'right':>6}  wrong, chosen instead")
    for value in order:
        c, n = outcome[value], total[value]
        wrong = ", ".join(f"{k} {v / n:.3f}" for k, v in c.items() if k != "right")
        print(f"{value:16} {n:6d} {c['right'] / max(n, 1):6.3f}  {wrong}")


def report(rows: List[Row], top: int) -> None:
    right = sum(row[1] == "right" for row in rows)
    print(f"targets {len(rows)}, accuracy {right / max(len(rows), 1):.3f}")
    _table(rows, 0, "gold", KINDS)
    print()
    _table(rows, 2, "distance", ("new",) + BUCKETS)
    words = Counter((kind, word) for kind, _, _, word in rows)
    hits = Counter((kind, word) for kind, outcome, _, word in rows if outcome == "right")
    print(f"\nmost frequent target words (top {top})")
    for (kind, word), count in words.most_common(top):
        print(f"{word:12} {kind:16} {count:5d} {hits[kind, word] / count:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("archive")
    parser.add_argument("data")
    parser.add_argument("--targets", help="targets file (default: the archive's validation one)")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    torch.set_num_threads(1)
    report(predictions(args.archive, args.data, args.targets), args.top)


if __name__ == "__main__":
    main()
