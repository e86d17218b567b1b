"""Where an archived EntityNLM's §5.3 entity predictions go right and wrong.

    python scripts/entity_nlm_breakdown.py ARCHIVE DATA [--top 15]

Reads DATA with the archive's reader, predicts E_t at every mention of the §5.3 protocol (R_t and
the gold left context given) and prints accuracy by the gold entity's kind (the story's first
entity, which in InScript is mostly the narrator; another entity already mentioned; a new one),
by what the model chose instead, and by the mention's first word (not seen by the prediction).
"""

import argparse
from collections import Counter
from typing import Dict, List, Tuple

import torch
from allennlp.models.archival import load_archive

import allennlp_longent.components  # noqa: F401  (registers the reader and the model)
from allennlp_longent.entity_nlm.metrics.entity_prediction import protocol_mask

KINDS = ("first entity", "other existing", "new")


def kind_of(gold: int, new: int) -> str:
    return "new" if gold == new else ("first entity" if gold == 0 else "other existing")


def predictions(archive: str, data: str, batch_size: int = 16) -> List[Tuple[str, str, str]]:
    """(gold kind, predicted kind, mention word) for every mention of the §5.3 protocol."""
    loaded = load_archive(archive)
    model, reader = loaded.model.eval(), loaded.dataset_reader
    instances = list(reader.read(data))
    rows = []
    for start in range(0, len(instances), batch_size):
        chunk = instances[start : start + batch_size]
        for instance, out in zip(chunk, model.forward_on_instances(chunk)):
            fields = ("mention_starts", "sentence_ids", "entity_ids", "predicted_entities")
            starts, sentences, gold, predicted = (torch.as_tensor(out[f]) for f in fields)
            new = out["new_entity"]
            words = [token.text for token in instance["tokens"].tokens]
            for t in protocol_mask(starts[None], sentences[None])[0].nonzero().flatten().tolist():
                g, p, n = int(gold[t]), int(predicted[t]), int(new[t])
                rows.append((kind_of(g, n), "right" if p == g else kind_of(p, n), words[t]))
    return rows


def report(rows: List[Tuple[str, str, str]], top: int) -> None:
    total = Counter(kind for kind, _, _ in rows)
    outcome: Dict[str, Counter] = {kind: Counter() for kind in KINDS}
    for kind, chosen, _ in rows:
        outcome[kind][chosen] += 1
    right = sum(c["right"] for c in outcome.values())
    print(f"mentions {len(rows)}, accuracy {right / max(len(rows), 1):.3f}")
    print(f"{'gold':16} {'count':>6} {'right':>6}  wrong, chosen instead")
    for kind in KINDS:
        c = outcome[kind]
        wrong = ", ".join(f"{k} {v / total[kind]:.3f}" for k, v in c.items() if k != "right")
        print(f"{kind:16} {total[kind]:6d} {c['right'] / max(total[kind], 1):6.3f}  {wrong}")
    words = Counter((kind, word) for kind, _, word in rows)
    hits = Counter((kind, word) for kind, chosen, word in rows if chosen == "right")
    print(f"\nmost frequent mention words (top {top})")
    for (kind, word), count in words.most_common(top):
        print(f"{word:12} {kind:16} {count:5d} {hits[kind, word] / count:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("archive")
    parser.add_argument("data")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    torch.set_num_threads(1)
    report(predictions(args.archive, args.data), args.top)


if __name__ == "__main__":
    main()
