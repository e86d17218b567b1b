"""The main job's first stage: BM25 per world, re-scored by context evidence fitted on training.

Fits the first stage (:mod:`allennlp_longent.linking.evidence`: BM25 score, the untrained
sentence encoder's cosine with the mention string and with the sentences around the mention,
and whether the candidate is the mention's own page) on the training worlds, writes its settings,
and writes each split's candidates in the first stage's order (zeshel ``tfidf_candidates``
JSON lines), so the cross-encoder trains on the negatives it will be asked to separate.

    python scripts/main_job_first_stage.py DATA_DIR --settings OUT.json --candidates-dir DIR
"""

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))

from main_job_cascade import read_split  # noqa: E402

from allennlp_longent.linking.candidates import CandidateGenerator  # noqa: E402
from allennlp_longent.linking.cascade import Cascade, CascadeSettings  # noqa: E402
from allennlp_longent.linking.dense_encoder import PACKAGED  # noqa: E402
from allennlp_longent.linking.documents import WorldDocuments  # noqa: E402
from allennlp_longent.linking.evidence import ContextEvidence, EvidenceSettings, fit  # noqa: E402
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase  # noqa: E402

SPLITS = ("train", "val", "test")


def bm25_index(documents: WorldDocuments, world: str) -> KnowledgeBase:
    entities = [Entity(d["document_id"], d["title"], d["text"])
                for d in documents.world(world).values()]
    generator = CandidateGenerator.by_name("bm25")()
    generator.index_documents([e.document() for e in entities])
    return KnowledgeBase.indexed(entities, generator)


def by_world(mentions: List[dict]) -> Dict[str, List[dict]]:
    groups = defaultdict(list)
    for mention in mentions:
        groups[mention["corpus"]].append(mention)
    return dict(sorted(groups.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--settings", type=Path, required=True, help="first-stage settings out")
    parser.add_argument("--candidates-dir", type=Path, required=True)
    parser.add_argument("--encoder", default=PACKAGED)
    parser.add_argument("--window", type=int, default=48)
    parser.add_argument("--top-k", type=int, default=64)
    args = parser.parse_args()
    started = time.process_time()
    documents = WorldDocuments(args.data_dir / "documents")
    splits = {split: read_split(args.data_dir, split, documents) for split in SPLITS}
    indexes = {world: bm25_index(documents, world)
               for mentions in splits.values() for world in by_world(mentions)}

    settings = CascadeSettings(top_k=args.top_k, evidence=EvidenceSettings(
        args.encoder, window=args.window).to_dict())
    features = {}  # (split, mention id) -> (candidates, feature rows), computed once
    for split, mentions in splits.items():
        for world, group in by_world(mentions).items():
            found = Cascade(indexes[world], None, settings).features([m["query"] for m in group])
            features.update(((split, m["mention_id"]), f) for m, f in zip(group, found))
    rows, golds = [], []
    for mention in splits["train"]:
        entities, rows_of_mention = features["train", mention["mention_id"]]
        ids = [e.id for e in entities]
        rows.append(rows_of_mention)
        golds.append(ids.index(mention["label_document_id"])
                     if mention["label_document_id"] in ids else -1)
    fitted = fit(rows, golds, EvidenceSettings(**settings.evidence))
    print(f"first stage fitted on {fitted.fitted['mentions']} training mentions: @1 "
          f"{fitted.fitted['first_stage_at_1']} against BM25's {fitted.fitted['retrieval_at_1']};"
          " weights " + ", ".join(f"{n} {w:.2f}" for n, w in fitted.weights.items()))
    args.settings.parent.mkdir(parents=True, exist_ok=True)
    args.settings.write_text(json.dumps(fitted.to_dict(), indent=2) + "\n")

    first_stage = ContextEvidence(fitted)
    args.candidates_dir.mkdir(parents=True, exist_ok=True)
    for split, mentions in splits.items():
        ranked = {}
        for mention in mentions:
            entities, rows_of_mention = features[split, mention["mention_id"]]
            scores = first_stage.score(rows_of_mention) if entities else []
            order = sorted(range(len(entities)), key=lambda i: (-scores[i], i))
            ranked[mention["mention_id"]] = [entities[i].id for i in order]
        with open(args.candidates_dir / f"{split}.json", "w", encoding="utf-8") as out:
            for mention in mentions:
                out.write(json.dumps({"mention_id": mention["mention_id"],
                                      "tfidf_candidates": ranked[mention["mention_id"]]}) + "\n")
        cells = [sum(m["label_document_id"] in ranked[m["mention_id"]][:k] for m in mentions)
                 for k in (1, 4, 16)]
        print(f"  {split}: {len(mentions)} mentions, first-stage recall@1/4/16 "
              + "/".join(map(str, cells)))
    print(f"(first stage took {time.process_time() - started:.0f} CPU s)")


if __name__ == "__main__":
    main()
