"""Candidates of a fitted first stage for another data folder (hard negatives for training).

Applies first-stage settings written by ``scripts/main_job_first_stage.py`` (BM25 re-scored by
context evidence, :mod:`allennlp_longent.linking.evidence`) unchanged to each world of
``DATA_DIR/mentions/<split>.json`` and writes the candidates in the first stage's order, as the
main job does for the demo worlds, so a cross-encoder trained on extra worlds sees the negatives
it will be asked to separate.

    python scripts/first_stage_candidates.py DATA_DIR --settings FIRST_STAGE.json \
        --output-dir DIR [--split train] [--top-k 16] [--limit N]
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from main_job_cascade import read_split  # noqa: E402
from main_job_first_stage import bm25_index, by_world  # noqa: E402

from allennlp_longent.linking.cascade import Cascade, CascadeSettings  # noqa: E402
from allennlp_longent.linking.documents import WorldDocuments  # noqa: E402
from allennlp_longent.linking.evidence import ContextEvidence, EvidenceSettings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--settings", type=Path, required=True)
    parser.add_argument("--output-dir", type=Path, required=True)
    parser.add_argument("--split", default="train")
    parser.add_argument("--top-k", type=int, default=16)
    parser.add_argument("--limit", type=int, help="only the first N mentions of the split")
    args = parser.parse_args()
    started = time.process_time()
    documents = WorldDocuments(args.data_dir / "documents")
    mentions = read_split(args.data_dir, args.split, documents)[: args.limit]
    evidence = EvidenceSettings(**json.loads(args.settings.read_text()))
    settings = CascadeSettings(top_k=64, evidence=evidence.to_dict())
    first_stage = ContextEvidence(evidence)
    ranked = {}
    for world, group in by_world(mentions).items():
        found = Cascade(bm25_index(documents, world), None, settings).features(
            [m["query"] for m in group])
        for mention, (entities, rows) in zip(group, found):
            scores = first_stage.score(rows) if entities else []
            order = sorted(range(len(entities)), key=lambda i: (-scores[i], i))
            ranked[mention["mention_id"]] = [entities[i].id for i in order[: args.top_k]]
    args.output_dir.mkdir(parents=True, exist_ok=True)
    with open(args.output_dir / f"{args.split}.json", "w", encoding="utf-8") as out:
        for mention in mentions:
            out.write(json.dumps({"mention_id": mention["mention_id"],
                                  "tfidf_candidates": ranked[mention["mention_id"]]}) + "\n")
    hits = [sum(m["label_document_id"] in ranked[m["mention_id"]][:k] for m in mentions)
            for k in (1, 4)]
    print(f"{len(mentions)} mentions: first-stage recall@1 {hits[0]}, @4 {hits[1]} "
          f"({time.process_time() - started:.0f} CPU s)")


if __name__ == "__main__":
    main()
