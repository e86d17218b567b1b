"""Trains the peer, spaCy's own ``entity_linker``, on the demo's training worlds and reports it on
the validation and test worlds beside BM25 (issue 19 item 5).

The pipeline (:mod:`allennlp_longent.linking.spacy_peer`: sentencizer + ``entity_linker``, entity
vectors from the untrained all-MiniLM-L6-v2, alias candidates) trains on the gold mentions of the
training worlds in their pages, over a knowledge base of those worlds; each evaluated world gets
its own knowledge base, as the project's linker does. Writes the trained pipeline to ``--out``,
which ``longent freetext --spacy-peer`` and ``scripts/benchmarks/benchmark_spacy_linker.py`` read.

    python scripts/linking/train_spacy_peer.py --out runs/spacy_peer [--epochs 10]
"""

import argparse
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

import numpy as np
from spacy.tokens import Span

from allennlp_longent.linking.candidates import CandidateGenerator
from allennlp_longent.linking.dense_encoder import PACKAGED, DenseEncoder
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines
from allennlp_longent.linking.evaluation import wilson
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase
from allennlp_longent.linking.spacy_peer import (
    build_kb,
    link,
    new_pipeline,
    train,
    use_kb,
    word_doc,
)

REPO = Path(__file__).resolve().parents[2]


def world_docs(nlp, documents: WorldDocuments, mentions: List[dict]):
    """One doc per context page with its gold mentions; and the mentions in doc order."""
    by_page: Dict[tuple, List[dict]] = defaultdict(list)
    for mention in mentions:
        by_page[mention["corpus"], mention["context_document_id"]].append(mention)
    docs, ordered = [], []
    for (world, page), group in sorted(by_page.items()):
        words = documents.world(world)[page]["text"].split()
        spans = [(m["start_index"], m["end_index"], m["label_document_id"]) for m in group]
        doc = word_doc(nlp, words, spans)
        docs.append(doc)
        kept = {(e.start, e.end - 1) for e in doc.ents}
        ordered.append([m for m in sorted(group, key=lambda m: m["start_index"])
                        if (m["start_index"], m["end_index"]) in kept])
    return docs, ordered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--demo", type=Path, default=REPO / "fixtures" / "zeshel_demo")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--encoder", default=PACKAGED)
    args = parser.parse_args()
    started = time.process_time()
    documents = WorldDocuments(args.demo / "documents")
    splits = {s: [m for _, m in read_json_lines(args.demo / "mentions" / f"{s}.json")]
              for s in ("train", "val", "test")}
    encoder = DenseEncoder.load(args.encoder, 256)
    worlds = sorted({m["corpus"] for ms in splits.values() for m in ms})
    entities = {w: [Entity(d["document_id"], d["title"], d["text"])
                    for d in documents.world(w).values()] for w in worlds}
    vectors = {w: encoder.documents([e.document() for e in entities[w]]) for w in worlds}
    nlp = new_pipeline(int(vectors[worlds[0]].shape[1]))
    train_worlds = sorted({m["corpus"] for m in splits["train"]})
    train_entities = [e for w in train_worlds for e in entities[w]]
    train_kb = build_kb(nlp.vocab, train_entities, np.concatenate([vectors[w]
                                                                   for w in train_worlds]))
    docs, _ = world_docs(nlp, documents, splits["train"])
    losses = train(nlp, train_kb, docs, args.epochs)
    print(f"trained on {sum(len(d.ents) for d in docs)} mentions of {len(train_worlds)} worlds, "
          f"{args.epochs} epochs; losses " + ", ".join(f"{x:.2f}" for x in losses))
    for split in ("val", "test"):
        for world in sorted({m["corpus"] for m in splits[split]}):
            mentions = [m for m in splits[split] if m["corpus"] == world]
            use_kb(nlp, build_kb(nlp.vocab, entities[world], vectors[world]))
            docs, ordered = world_docs(nlp, documents, mentions)
            golds = [[e.kb_id_ for e in doc.ents] for doc in docs]
            for doc in docs:  # the spans stay, their gold ids go
                doc.ents = [Span(doc, e.start, e.end, label=e.label_) for e in doc.ents]
            linked = link(nlp, docs)
            hits = sum(e.kb_id_ == g for d, gs in zip(linked, golds) for e, g in zip(d.ents, gs))
            total = sum(map(len, golds))
            bm25 = bm25_hits(entities[world], [m for ms in ordered for m in ms])
            low, high = wilson(hits, total)
            print(f"  {split} {world}: spaCy entity_linker {hits}/{total} = {hits / total:.3f} "
                  f"[{low:.3f}, {high:.3f}]; BM25 + titles @1 {bm25}/{total}")
    nlp.to_disk(args.out)
    print(f"written to {args.out} ({time.process_time() - started:.0f} CPU s)")


def bm25_hits(entities: List[Entity], mentions: List[dict]) -> int:
    generator = CandidateGenerator.by_name("bm25")()
    generator.index_documents([e.document() for e in entities])
    kb = KnowledgeBase.indexed(entities, generator)
    found = kb.candidates([m["text"] for m in mentions], 1)
    return sum(bool(f) and f[0][0].id == m["label_document_id"] for f, m in zip(found, mentions))


if __name__ == "__main__":
    main()
