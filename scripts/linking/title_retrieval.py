"""Recall@1/4 of BM25 with and without the title field (issue 19 item 3) on the demo's
validation and test worlds and on the free-text sets; only spans whose gold is an entity count.

    python scripts/linking/title_retrieval.py [--demo DEMO_DIR] [--sets SET_DIR ...]
"""

import argparse
from pathlib import Path
from typing import List, Sequence, Tuple

from allennlp_longent.linking.candidates import CandidateGenerator
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines
from allennlp_longent.linking.evaluation import NIL, wilson
from allennlp_longent.linking.freetext import read_set
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase

REPO = Path(__file__).resolve().parents[2]
KS = (1, 4)


def recall(entities: Sequence[Entity], cases: List[Tuple[str, str]], title_weight: float
           ) -> List[int]:
    generator = CandidateGenerator.by_name("bm25")(title_weight=title_weight)
    generator.index_documents([e.document() for e in entities])
    kb = KnowledgeBase.indexed(list(entities), generator)
    found = kb.candidates([mention for mention, _ in cases], max(KS))
    return [sum(gold in [e.id for e, _ in f[:k]] for (_, gold), f in zip(cases, found))
            for k in KS]


def demo_cases(demo: Path, split: str):
    documents = WorldDocuments(demo / "documents")
    by_world = {}
    for _, m in read_json_lines(demo / "mentions" / f"{split}.json"):
        by_world.setdefault(m["corpus"], []).append((m["text"], m["label_document_id"]))
    for world, cases in sorted(by_world.items()):
        entities = [Entity(d["document_id"], d["title"], d["text"])
                    for d in documents.world(world).values()]
        yield f"demo {split} ({world})", entities, cases


def freetext_cases(directory: Path):
    data = read_set(directory)
    cases = [(p.text[s.start_char:s.end_char], s.kb_id) for p in data.paragraphs
             for s in p.spans if s.kb_id not in (None, NIL)]
    yield f"free text {data.name}", data.entities, cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=Path, default=REPO / "fixtures" / "zeshel_demo")
    parser.add_argument("--sets", type=Path, nargs="+",
                        default=[REPO / "fixtures" / "freetext" / s for s in ("dev", "test")])
    args = parser.parse_args()
    print(f"{'':<28}{'mentions':>9}  {'plain BM25 @1 / @4':<28}{'with title field @1 / @4':<28}")
    sources = [c for split in ("val", "test") for c in demo_cases(args.demo, split)]
    sources += [c for directory in args.sets for c in freetext_cases(directory)]
    for name, entities, cases in sources:
        cells = []
        for weight in (0.0, 1.0):
            hits = recall(entities, cases, weight)
            low, high = wilson(hits[0], len(cases))
            cells.append(f"{hits[0]:>3} [{low:.2f}, {high:.2f}] / {hits[1]:>3}".ljust(28))
        print(f"{name:<28}{len(cases):>9}  " + "".join(cells))


if __name__ == "__main__":
    main()
