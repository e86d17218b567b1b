"""A free-text set as a zeshel world, to train or validate the cross-encoder on hand-written prose.

Writes ``OUT/documents/<world>.json`` (the set's entities, and each paragraph as a context
document ``<world>-p<N>`` whose text is its spaCy tokens joined by spaces),
``OUT/mentions/<split>.json`` (the spans whose gold is an entity, with inclusive token offsets)
and ``OUT/first_stage_candidates/<split>.json``: each span's first ``--top-k`` candidates as the
cascade's first stage ranks them (``longent_linker`` at weight 0, no rules), the lists the
cross-encoder re-ranks when linking. Paragraphs are context documents only: no candidate list
names one.

    python scripts/demo_data/freetext_to_zeshel.py SET_DIR OUT --model CASCADE.tar.gz --split train
"""
import argparse
import json
import tempfile
from pathlib import Path

import spacy

from allennlp_longent.linking.freetext import gold_docs, longent_linker, read_set, save_kb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set_dir", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--model", required=True, help="a cascade_linker archive")
    parser.add_argument("--split", default="train")
    parser.add_argument("--world", help="the world's name (default: freetext_<set folder>)")
    parser.add_argument("--top-k", type=int, default=4)
    args = parser.parse_args()
    data = read_set(args.set_dir)
    world = args.world or f"freetext_{args.set_dir.name}"
    with tempfile.TemporaryDirectory() as scratch:
        link = longent_linker(save_kb(data.entities, Path(scratch) / "kb"), args.model,
                              weight=0.0, name_coreference=False, label_agreement=False,
                              article_agreement=False, name_agreement=False)
        docs = link(gold_docs(spacy.blank("en"), data.paragraphs))
    for sub in ("documents", "mentions", "first_stage_candidates"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
    documents = [e.document() for e in data.entities]
    mentions, candidates = [], []
    for number, (doc, paragraph) in enumerate(zip(docs, data.paragraphs)):
        keep = [t for t in doc if not t.is_space]
        index = {t.i: n for n, t in enumerate(keep)}
        context_id = f"{world}-p{number}"
        documents.append({"document_id": context_id, "title": context_id,
                          "text": " ".join(t.text for t in keep)})
        for span, gold in zip(doc.ents, paragraph.spans):
            if gold.kb_id in (None, "NIL"):
                continue
            mention_id = f"{context_id}-{span.start_char}"
            inside = [index[t.i] for t in span if t.i in index]
            mentions.append({"mention_id": mention_id, "context_document_id": context_id,
                             "corpus": world, "start_index": inside[0], "end_index": inside[-1],
                             "text": span.text, "label_document_id": gold.kb_id,
                             "category": "freetext"})
            ranked = [c["id"] for c in span._.longent_candidates][: args.top_k]
            candidates.append({"mention_id": mention_id, "tfidf_candidates": ranked})
    for name, rows in ((f"documents/{world}.json", documents),
                       (f"mentions/{args.split}.json", mentions),
                       (f"first_stage_candidates/{args.split}.json", candidates)):
        with (args.out / name).open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    inside = sum(m["label_document_id"] in c["tfidf_candidates"]
                 for m, c in zip(mentions, candidates))
    print(f"{world}: {len(mentions)} linked spans, gold among the first {args.top_k} for "
          f"{inside} -> {args.out}")


if __name__ == "__main__":
    main()
