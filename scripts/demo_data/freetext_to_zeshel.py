"""Free-text sets as zeshel worlds, to train or validate the cross-encoder on hand-written prose.

For each set, writes ``OUT/documents/<world>.json`` (the set's entities, and each paragraph as a
context document ``<world>-p<N>`` whose text is its spaCy tokens joined by spaces); all sets'
spans whose gold is an entity go to one ``OUT/mentions/<split>.json`` (inclusive token offsets),
and each span's first ``--top-k`` candidates, as the cascade's first stage ranks them
(``longent_linker`` at weight 0, no rules), to ``OUT/first_stage_candidates/<split>.json``: the
lists the cross-encoder re-ranks when linking. Paragraphs are context documents only: no
candidate list names one. A span with no candidate at all (no page shares a word with it) is left
out and counted, as the zeshel reader refuses a mention with an empty list.

    python scripts/demo_data/freetext_to_zeshel.py SET_DIR... OUT --model CASCADE.tar.gz \
        --split train
"""
import argparse
import json
import tempfile
from pathlib import Path
from typing import List, Tuple

import spacy

from allennlp_longent.linking.freetext import gold_docs, longent_linker, read_set, save_kb

Rows = Tuple[List[dict], List[dict], List[dict], int]  # documents, mentions, candidates, left out


def world_rows(set_dir: Path, world: str, model: str, top_k: int) -> Rows:
    """One set's context documents, linked spans, candidate lists and spans left out."""
    data = read_set(set_dir)
    with tempfile.TemporaryDirectory() as scratch:
        link = longent_linker(save_kb(data.entities, Path(scratch) / "kb"), model,
                              weight=0.0, name_coreference=False, label_agreement=False,
                              article_agreement=False, name_agreement=False)
        docs = link(gold_docs(spacy.blank("en"), data.paragraphs))
    documents = [e.document() for e in data.entities]
    mentions, candidates, left_out = [], [], 0
    for number, (doc, paragraph) in enumerate(zip(docs, data.paragraphs)):
        keep = [t for t in doc if not t.is_space]
        index = {t.i: n for n, t in enumerate(keep)}
        context_id = f"{world}-p{number}"
        documents.append({"document_id": context_id, "title": context_id,
                          "text": " ".join(t.text for t in keep)})
        for span, gold in zip(doc.ents, paragraph.spans):
            if gold.kb_id in (None, "NIL"):
                continue
            ranked = [c["id"] for c in span._.longent_candidates or []][:top_k]
            if not ranked:
                left_out += 1
                continue
            mention_id = f"{context_id}-{span.start_char}"
            inside = [index[t.i] for t in span if t.i in index]
            mentions.append({"mention_id": mention_id, "context_document_id": context_id,
                             "corpus": world, "start_index": inside[0], "end_index": inside[-1],
                             "text": span.text, "label_document_id": gold.kb_id,
                             "category": "freetext"})
            candidates.append({"mention_id": mention_id, "tfidf_candidates": ranked})
    return documents, mentions, candidates, left_out


def _write(path: Path, rows: List[dict]) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set_dirs", type=Path, nargs="+", metavar="SET_DIR")
    parser.add_argument("out", type=Path)
    parser.add_argument("--model", required=True, help="a cascade_linker archive")
    parser.add_argument("--split", default="train")
    parser.add_argument("--world", help="the world's name, with one set only (default: "
                        "freetext_<set folder>)")
    parser.add_argument("--top-k", type=int, default=4)
    args = parser.parse_args()
    if args.world and len(args.set_dirs) > 1:
        parser.error("--world names one set's world; leave it out with several sets")
    for sub in ("documents", "mentions", "first_stage_candidates"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
    mentions: List[dict] = []
    candidates: List[dict] = []
    for set_dir in args.set_dirs:
        world = args.world or f"freetext_{set_dir.name}"
        documents, found, lists, left_out = world_rows(set_dir, world, args.model, args.top_k)
        _write(args.out / "documents" / f"{world}.json", documents)
        mentions += found
        candidates += lists
        inside = sum(m["label_document_id"] in c["tfidf_candidates"]
                     for m, c in zip(found, lists))
        print(f"{world}: {len(found)} linked spans, gold among the first {args.top_k} for "
              f"{inside}; {left_out} without any candidate left out", flush=True)
    _write(args.out / "mentions" / f"{args.split}.json", mentions)
    _write(args.out / "first_stage_candidates" / f"{args.split}.json", candidates)
    print(f"{len(mentions)} spans of {len(args.set_dirs)} sets -> {args.out}")


if __name__ == "__main__":
    main()
