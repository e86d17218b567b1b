"""The main job's evaluation: retrieval, cross-encoder and cascade on the unseen test world.

Builds one index per world (BM25, dense vectors from the untrained sentence encoder, and their
reciprocal-rank fusion) and picks the cascade's retriever on the validation world (BM25 under a
first stage fitted by ``scripts/main_job_first_stage.py``, if given); calibrates the cascade
(weight, temperature, NIL threshold) on the validation world and writes the settings beside the
archive; then prints on the test world chance, BM25@1, dense@1, the first stage, the
cross-encoder alone and the cascade, each with its count and 95 % Wilson interval, and recall@k
of each retriever. Exits 1 when the cascade is below max(BM25@1, dense@1) or its lower bound is
not above chance.

    python scripts/main_job_cascade.py ARCHIVE DATA_DIR --encoder DIR --settings OUT.json \
        [--first-stage FIRST_STAGE.json]
"""

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

import allennlp_longent.components  # noqa: F401  (registers the reader and the models)
from allennlp_longent.linking.candidates import CandidateGenerator, MentionQuery
from allennlp_longent.linking.candidates.dense import DenseCandidateGenerator
from allennlp_longent.linking.candidates.hybrid import HybridCandidateGenerator
from allennlp_longent.linking.cascade import Cascade, CascadeSettings, accuracy, calibrate
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase

RETRIEVERS = ("bm25", "dense", "hybrid")


def wilson(hits: int, total: int, z: float = 1.96) -> Tuple[float, float]:
    """95 % Wilson score interval of a proportion (Wilson 1927)."""
    if total == 0:
        return 0.0, 1.0
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def world_indexes(documents: WorldDocuments, world: str, encoder: str, mention_length: int
                  ) -> Dict[str, KnowledgeBase]:
    """BM25, dense and hybrid knowledge bases of one world; the vectors are computed once."""
    entities = [Entity(d["document_id"], d["title"], d["text"])
                for d in documents.world(world).values()]
    docs = [e.document() for e in entities]
    bm25 = CandidateGenerator.by_name("bm25")()
    bm25.index_documents(docs)
    dense = DenseCandidateGenerator(encoder, max_length=256, mention_length=mention_length)
    dense.index_documents(docs)
    hybrid = HybridCandidateGenerator([bm25, dense])
    return {name: KnowledgeBase.indexed(entities, generator)
            for name, generator in (("bm25", bm25), ("dense", dense), ("hybrid", hybrid))}


def read_split(data_dir: Path, split: str, documents: WorldDocuments) -> List[dict]:
    mentions = []
    for _, mention in read_json_lines(data_dir / "mentions" / f"{split}.json"):
        words = documents.world(mention["corpus"])[mention["context_document_id"]]["text"].split()
        mention["query"] = MentionQuery(tuple(words), mention["start_index"], mention["end_index"],
                                        mention["context_document_id"])
        mentions.append(mention)
    return mentions


def line(name: str, hits: int, total: int) -> str:
    low, high = wilson(hits, total)
    return f"  {name:<34}{hits:>4}/{total:<4}{hits / total:>8.3f}   [{low:.3f}, {high:.3f}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--encoder", required=True, help="sentence-transformers folder")
    parser.add_argument("--settings", type=Path, required=True, help="where to write them")
    parser.add_argument("--rerank-k", type=int, default=4)
    parser.add_argument("--mention-length", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--first-stage", type=Path,
                        help="settings written by scripts/main_job_first_stage.py (none: BM25, "
                             "dense or hybrid retrieval straight to the cross-encoder)")
    args = parser.parse_args()
    from allennlp.models.archival import load_archive

    started = time.process_time()
    archive = load_archive(args.archive)
    archive.model.eval()
    ranker = (archive.model, archive.validation_dataset_reader)
    documents = WorldDocuments(args.data_dir / "documents")
    splits = {split: read_split(args.data_dir, split, documents) for split in ("val", "test")}
    indexes = {}
    for mentions in splits.values():
        for world in {m["corpus"] for m in mentions}:
            indexes[world] = world_indexes(documents, world, args.encoder, args.mention_length)

    retrieved = {}  # (split, retriever) -> ranked entity ids per mention
    for split, mentions in splits.items():
        for name in RETRIEVERS:
            rows = []
            for mention in mentions:
                found = indexes[mention["corpus"]][name].candidates([mention["query"]], 64)[0]
                rows.append([entity.id for entity, _ in found])
            retrieved[split, name] = rows

    def hits_at(split: str, name: str, k: int) -> int:
        return sum(m["label_document_id"] in ids[:k]
                   for m, ids in zip(splits[split], retrieved[split, name]))

    k = args.rerank_k
    settings = CascadeSettings(top_k=64, rerank_k=k)
    if args.first_stage is not None:
        chosen = "bm25"  # what the first stage was fitted on
        settings.evidence = json.loads(args.first_stage.read_text())
        print(f"cascade: BM25, then the first stage of {args.first_stage} (fitted on the "
              "training worlds)")
    else:
        chosen = max(RETRIEVERS, key=lambda n: (hits_at("val", n, 1), hits_at("val", n, k)))
        print(f"cascade retriever, chosen on validation by accuracy@1 then recall@{k}: {chosen}")
    scored = {}
    for split, mentions in splits.items():
        by_world = defaultdict(list)
        for i, mention in enumerate(mentions):
            by_world[mention["corpus"]].append(i)
        scored[split] = [None] * len(mentions)
        for world, rows in by_world.items():
            cascade = Cascade(indexes[world][chosen], ranker, settings, args.batch_size)
            for i, item in zip(rows, cascade.score([mentions[i]["query"] for i in rows])):
                scored[split][i] = item
        if split == "val":
            golds = [m["label_document_id"] for m in mentions]
            settings = calibrate(scored["val"], golds, settings)
            settings.validation["retriever"] = chosen
            settings.validation["mention_length"] = args.mention_length
            settings.save(args.settings)
            v = settings.validation
            print(f"validation ({v['mentions']} mentions, gold in the first {k}: "
                  f"{v['gold_in_reranked']}): first stage@1 {v['retrieval_at_1']}, cross-encoder "
                  f"alone {v['reranker_alone_at_1']}, cascade {v['cascade_at_1']} with weight "
                  f"{settings.weight}; temperature {settings.temperature}")
            t = v["sign_test"]
            print(f"the most accurate weight {t['weight']} fixed {t['fixed']} and broke "
                  f"{t['broken']} validation mentions against weight 0: sign test p = "
                  f"{t['p_value']:.3f} ({'kept' if settings.weight else 'not kept'} at "
                  f"{t['significance']})")
            print(f"NIL option (b = {settings.nil_score}, expected NIL rate "
                  f"{v['nil_rate']}): right on {v['nil_decision_correct']}/"
                  f"{v['nil_decision_total']} validation cases (mentions as they are and with "
                  f"the gold removed from the KB) against {v['never_nil_correct']} never NIL; "
                  f"written to {args.settings}")

    test = splits["test"]
    golds = [m["label_document_id"] for m in test]
    total = len(test)
    world_sizes = {m["corpus"]: len(documents.world(m["corpus"])) for m in test}
    chance = sum(1 / world_sizes[m["corpus"]] for m in test) / total
    cascade_hits = accuracy(scored["test"], golds, settings.weight, settings)
    rows = {
        "BM25@1": hits_at("test", "bm25", 1),
        "dense@1 (untrained MiniLM)": hits_at("test", "dense", 1),
        "hybrid@1 (RRF)": hits_at("test", "hybrid", 1),
        **({"first stage (context evidence)": accuracy(scored["test"], golds, 0.0, settings)}
           if settings.evidence else {}),
        f"cross-encoder alone (top {k})": accuracy(scored["test"], golds, 1.0, settings),
        f"cascade (weight {settings.weight})": cascade_hits,
    }
    worlds = ", ".join(sorted(world_sizes))
    print(f"\nUnseen test world ({worlds}; {total} mentions), accuracy with 95 % Wilson interval")
    print(f"  {'chance (1 / entities in the world)':<34}{'':>9}{chance:>8.3f}")
    for name, hits in rows.items():
        print(line(name, hits, total))
    print("\nrecall@k on the test world (validation in brackets)")
    print(f"  {'retriever':<10}" + "".join(f"{f'@{n}':>16}" for n in (1, 4, 16, 64)))
    for name in RETRIEVERS:
        cells = "".join(
            f"{hits_at('test', name, n)}/{total} ({hits_at('val', name, n)})".rjust(16)
            for n in (1, 4, 16, 64)
        )
        print(f"  {name:<10}{cells}")
    print(f"\n(evaluation took {time.process_time() - started:.0f} CPU s)")

    best_retrieval = max(rows["BM25@1"], rows["dense@1 (untrained MiniLM)"])
    low, _ = wilson(cascade_hits, total)
    failures = []
    if cascade_hits < best_retrieval:
        failures.append(f"the cascade ({cascade_hits}) is below max(BM25@1, dense@1) "
                        f"({best_retrieval})")
    if low <= chance:
        failures.append(f"the lower 95 % bound {low:.3f} is not above chance {chance:.3f}")
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    table = {"chance": chance, "total": total, **rows, "settings": str(args.settings)}
    args.settings.with_name("test_table.json").write_text(json.dumps(table, indent=2) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
