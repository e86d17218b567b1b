"""Links the demo paragraphs with spaCy and scores them against their gold links.

Each line of ``fixtures/zeshel_demo/paragraphs.jsonl`` is ``{"text", "entities": [{"start_char",
"end_char", "label", "kb_id"}]}``, set in the unseen test world. The gold spans (with their spaCy
labels, set by hand: ``labels="annotated"``) become ``doc.ents`` and ``longent_linker`` links them
against a knowledge base of that world, with the re-ranker archive and the cascade settings
calibrated by the main job; DATE and other non-entity labels must be left unlinked. The same spans
are linked by the cascade's first stage alone and by retrieval alone for comparison.

    python scripts/linking/link_paragraph.py ARCHIVE CASCADE.json --kb KB_DIR [--paragraphs FILE]
"""

import argparse
import json
import tempfile
from dataclasses import replace
from pathlib import Path

import spacy

import allennlp_longent.components  # noqa: F401  (registers the spaCy factory and the models)
from allennlp_longent.commands.kb import make_generator
from allennlp_longent.config_defaults import packaged_minilm
from allennlp_longent.linking.knowledge_base import KnowledgeBase
from allennlp_longent.linking.models.cascade_linker import write_cascade_archive
from allennlp_longent.linking.spacy_component import SKIP_LABELS

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "zeshel_demo"


def gold_docs(nlp, paragraphs: Path):
    """Docs whose ``ents`` are the gold spans, and the gold kb id of each span."""
    docs, golds = [], []
    for number, line in enumerate(paragraphs.read_text(encoding="utf-8").splitlines(), start=1):
        record = json.loads(line)
        doc = nlp.make_doc(record["text"])
        spans = []
        for entity in record["entities"]:
            span = doc.char_span(entity["start_char"], entity["end_char"], entity["label"])
            if span is None:
                raise ValueError(f"{paragraphs}:{number}: {entity} is not on token boundaries")
            spans.append(span)
        doc.ents = spans
        docs.append(doc)
        golds.append([entity["kb_id"] for entity in record["entities"]])
    return docs, golds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", help="a cascade_linker archive (longent calibrate)")
    parser.add_argument("--kb", required=True, help="where to build the test world's KB")
    parser.add_argument("--paragraphs", type=Path, default=DEMO / "paragraphs.jsonl")
    args = parser.parse_args()

    from allennlp.models.archival import load_archive

    settings = load_archive(args.archive).model.settings
    retriever = settings.validation.get("retriever", "bm25")
    mention_length = settings.validation.get("mention_length", 16)
    first_stage = Path(tempfile.mkdtemp()) / "first_stage_alone.tar.gz"
    write_cascade_archive(first_stage, replace(settings, weight=0.0), retriever=retriever)
    worlds = {json.loads(line)["corpus"] for line in (DEMO / "mentions" / "test.json").open()}
    kb = KnowledgeBase(make_generator(retriever, packaged_minilm(), 256, mention_length))
    kb.add_files([DEMO / "documents" / f"{world}.json" for world in sorted(worlds)])
    kb.save(args.kb)

    base = spacy.blank("en")
    results = {}
    for name, config in (
        ("cascade", {"model": args.archive}),
        ("first stage alone", {"model": str(first_stage)}),
        ("retrieval alone", {}),
    ):
        nlp = spacy.blank("en")
        # the paragraphs' labels were set by hand: longent_linker's label rules trust them
        nlp.add_pipe("longent_linker", config={"kb": args.kb, "labels": "annotated", **config})
        docs, golds = gold_docs(base, args.paragraphs)
        linker = nlp.get_pipe("longent_linker")
        results[name] = (list(linker.pipe(docs)), golds)

    docs, golds = results["cascade"]
    right = total = skipped_right = skipped = 0
    for doc, gold_ids, alone in zip(docs, golds, results["retrieval alone"][0]):
        print(doc.text, "\n")
        for ent, gold, plain in zip(doc.ents, gold_ids, alone.ents):
            if ent.label_ in SKIP_LABELS:
                skipped += 1
                skipped_right += ent.kb_id_ == "" and gold is None
                print(f"  {ent.text!r:<24} {ent.label_:<8} skipped (gold: no entity)")
                continue
            total += 1
            right += ent.kb_id_ == gold
            best = (ent._.longent_candidates or [{}])[0]
            mark = "right" if ent.kb_id_ == gold else f"WRONG (gold {kb[gold].title})"
            if ent.kb_id_ == "NIL":
                mark = f"WRONG: NIL likelier (gold {kb[gold].title})"
            print(f"  {ent.text!r:<24} {ent.label_:<8} -> {best.get('title', 'NIL')!r:<28} "
                  f"p={best.get('probability', 0):.2f} {mark}  [retrieval alone: "
                  f"{kb[plain.kb_id_].title if plain.kb_id_ in kb else plain.kb_id_}]")
        print()
    def right_of(name: str) -> int:
        return sum(ent.kb_id_ == gold for doc, gold_ids in zip(*results[name])
                   for ent, gold in zip(doc.ents, gold_ids) if ent.label_ not in SKIP_LABELS)

    first = (f", {right_of('first stage alone')}/{total} with its first stage alone"
             if settings.evidence else "")
    print(f"linked right: {right}/{total} ({right / max(total, 1):.0%}) with the cascade{first}, "
          f"{right_of('retrieval alone')}/{total} with {retriever} retrieval alone; non-entity "
          f"spans left unlinked: {skipped_right}/{skipped}")


if __name__ == "__main__":
    main()
