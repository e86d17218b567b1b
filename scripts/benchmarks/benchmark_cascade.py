"""Cascade against the cross-encoder over all candidates: mentions/s and accuracy.

On the demo test world, for each of the first ``--mentions`` mentions (in file order), the
cascade (retrieval top 64, cross-encoder on the first k' of the calibrated settings, combined)
and the cross-encoder alone over all 64 retrieved candidates link the same mention one after the
other, so load from other processes falls on both alike; retrieval time counts for both. Prints
mentions/s (wall and CPU), accuracy of both and the speed ratio.

    python scripts/benchmarks/benchmark_cascade.py ARCHIVE CASCADE.json [--mentions 20]
"""

import argparse
import time
from pathlib import Path

from allennlp.models.archival import load_archive

import allennlp_longent.components  # noqa: F401  (registers the reader and the models)
from allennlp_longent.commands.kb import make_generator
from allennlp_longent.config_defaults import packaged_minilm
from allennlp_longent.linking.candidates import MentionQuery
from allennlp_longent.linking.cascade import Cascade, CascadeSettings, combine
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "zeshel_demo"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("cascade")
    parser.add_argument("--mentions", type=int, default=20)
    args = parser.parse_args()
    settings = CascadeSettings.load(args.cascade)
    archive = load_archive(args.archive)
    archive.model.eval()
    ranker = (archive.model, archive.validation_dataset_reader)
    documents = WorldDocuments(DEMO / "documents")
    mentions = [m for _, m in read_json_lines(DEMO / "mentions" / "test.json")][: args.mentions]
    world = mentions[0]["corpus"]
    retriever = settings.validation.get("retriever", "bm25")
    kb = KnowledgeBase(make_generator(retriever, packaged_minilm(), 256,
                                      settings.validation.get("mention_length", 16)))
    kb.add(Entity(d["document_id"], d["title"], d["text"]) for d in documents.world(world).values())
    all_64 = CascadeSettings(**{**vars(settings), "rerank_k": settings.top_k})
    systems = {f"cascade (k'={settings.rerank_k})": (Cascade(kb, ranker, settings, 16),
                                                     settings.weight),
               f"cross-encoder over all {settings.top_k}": (Cascade(kb, ranker, all_64, 16), 1.0)}
    spent = {name: [0.0, 0.0] for name in systems}
    right = dict.fromkeys(systems, 0)
    for mention in mentions:
        words = documents.world(world)[mention["context_document_id"]]["text"].split()
        query = MentionQuery(tuple(words), mention["start_index"], mention["end_index"],
                             mention["context_document_id"])
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
