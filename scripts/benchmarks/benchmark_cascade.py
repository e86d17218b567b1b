"""Cascade against the cross-encoder over all candidates: mentions/s and accuracy.

On the demo test world, for each of the first ``--mentions`` mentions (in file order), the
cascade of a ``cascade_linker`` archive (``longent calibrate``: retrieval top 64 re-scored by its
first stage, its cross-encoder on the first k' if the calibrated weight is above 0, combined with
that weight) and its cross-encoder alone over all 64 first-stage candidates link the same mention
one after the other, so load from other processes falls on both alike; retrieval and first-stage
time count for both. Prints mentions/s (wall and CPU), accuracy of both and the speed ratio.

    python scripts/benchmarks/benchmark_cascade.py CASCADE_ARCHIVE [--mentions 20]
"""

import argparse
import time
from pathlib import Path

from allennlp.models.archival import load_archive

import allennlp_longent.components  # noqa: F401  (registers the reader and the models)
from allennlp_longent.linking.cascade import Cascade, CascadeSettings, combine
from allennlp_longent.linking.models.cascade_linker import CascadeLinker
from allennlp_longent.linking.world_index import WorldIndexes, read_mentions
from allennlp_longent.paths import check_archive

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "zeshel_demo"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a cascade_linker archive (longent calibrate)")
    parser.add_argument("--mentions", type=int, default=20)
    args = parser.parse_args()
    check_archive(args.model)
    linker = load_archive(args.model).model
    if not isinstance(linker, CascadeLinker) or linker.cross_encoder is None:
        parser.error(f"{args.model} is not a cascade_linker archive with a cross-encoder")
    linker.eval()
    settings, ranker = linker.settings, linker.ranker()
    indexes = WorldIndexes(DEMO / "documents", linker.kbs.encoder, linker.kbs.mention_length)
    mentions = read_mentions(DEMO / "mentions" / "test.json", indexes.documents)[: args.mentions]
    world = mentions[0]["corpus"]
    kb = indexes.kb(world, linker.kbs.retriever)
    all_64 = CascadeSettings(**{**vars(settings), "rerank_k": settings.top_k})
    systems = {f"cascade (k'={settings.rerank_k})": (
                   Cascade(kb, ranker if settings.weight > 0 else None, settings, 16,
                           evidence=linker.evidence), settings.weight),
               f"cross-encoder over all {settings.top_k}": (
                   Cascade(kb, ranker, all_64, 16, evidence=linker.evidence), 1.0)}
    spent = {name: [0.0, 0.0] for name in systems}
    right = dict.fromkeys(systems, 0)
    for mention in mentions:
        query = mention["query"]
        for name, (cascade, weight) in systems.items():
            wall, cpu = time.perf_counter(), time.process_time()
            [scored] = cascade.score([query])
            order, _, _ = combine(scored, weight, settings)
            spent[name][0] += time.perf_counter() - wall
            spent[name][1] += time.process_time() - cpu
            right[name] += bool(scored.entities) and (
                scored.entities[order[0]].id == mention["label_document_id"])
    n = len(mentions)
    for name in systems:
        wall, cpu = spent[name]
        print(f"{name:<32} {n / wall:7.3f} mentions/s wall {n / cpu:7.3f} per CPU s   "
              f"accuracy {right[name]}/{n} = {right[name] / n:.3f}")
    (fast, slow) = list(systems)
    print(f"speed ratio (wall) {spent[slow][0] / spent[fast][0]:.2f}x, (CPU) "
          f"{spent[slow][1] / spent[fast][1]:.2f}x; accuracy difference "
          f"{(right[fast] - right[slow]) / n * 100:+.1f} points ({n} mentions of {world})")


if __name__ == "__main__":
    main()
