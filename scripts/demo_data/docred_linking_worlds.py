"""Linking worlds in real prose from DocRED-format documents (an experiment of issue 19).

Each document becomes a zeshel world. Per entity (types PER, ORG, LOC, MISC) mentioned in two
or more sentences, one sentence where it is mentioned is held out as context: the last such
sentence whose removal leaves it, and every entity held out before it, a sentence for its page.
Each entity's page is its longest name followed by the document's sentences that mention it,
leaving out every held-out sentence, so no page repeats a context word for word. The mention to
link is the entity's first mention in its held-out sentence. Its candidates are the document's
entities that have a page (the gold first), at most ``--candidates`` of them. The context is one
document holding the held-out sentences in order.

With ``--shared-name`` every candidate carries the gold's name, as a surname shared by a family
or a town named after its founder do in free text. Each other entity's page is written again for
that mention, titled with the gold's longest name, with the two entities' mentions swapped in its
sentences: "A and B formed the band" becomes "B and A formed the band" on B's page renamed A.
Every page, the gold's too, then writes each mention of its entity as its title. The name tells
the candidates apart no more; only what a page says of its entity can.

    python scripts/demo_data/docred_linking_worlds.py RE_DOCRED.json OUT [--docs 0 250] \
        [--shared-name] [--candidates 8]

It appends to ``OUT/mentions/train.json`` and ``OUT/<candidates-dir>/train.json`` and writes
``OUT/documents/docred_<n>.json`` (``docred_shared_<n>.json`` with ``--shared-name``), so it
can extend the generated worlds of ``make_zeshel_demo.py --extra-worlds``; the main job adds both
kinds of the first 225 documents to them (450 until round 42; 450 to 500 stay apart for measuring).
"""

import argparse
import hashlib
import json
from pathlib import Path
from typing import Dict, Set

TYPES = {"PER", "ORG", "LOC", "MISC"}


def _id(*parts: object) -> str:
    return hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()[:16].upper()


def _swapped(doc: dict, sentence: int, names: Dict[int, str]) -> str:
    """Sentence ``sentence`` with each mention of an entity in ``names`` (vertexSet index -> the
    name to write) written as that name."""
    spans = sorted((m["pos"][0], m["pos"][1], names[e]) for e in names
                   for m in doc["vertexSet"][e] if m["sent_id"] == sentence)
    tokens, words, at = doc["sents"][sentence], [], 0
    for start, end, name in spans:
        if start < at:  # overlapping mentions: keep the first
            continue
        words += tokens[at:start] + [name]
        at = end
    return " ".join(" ".join(words + tokens[at:]).split())


def world_name(index: int, shared_name: bool = False) -> str:
    """Both kinds of world from one document can sit in one folder."""
    return f"docred_{'shared_' if shared_name else ''}{index:04d}"


def world(doc: dict, index: int, max_candidates: int, shared_name: bool = False) -> tuple:
    """``(documents, mentions, candidates)`` of one document; empty when nothing is linkable.
    ``shared_name``: each mention's other candidates are pages renamed to the gold's name."""
    sentences = [" ".join(" ".join(s).split()) for s in doc["sents"]]
    positions = [i for i, v in enumerate(doc["vertexSet"]) if v[0]["type"] in TYPES]
    entities = [doc["vertexSet"][i] for i in positions]
    held: Dict[int, int] = {}  # entity position -> held-out sentence
    taken: Set[int] = set()
    sentence_sets = [{m["sent_id"] for m in mentions} for mentions in entities]
    for e, ids in enumerate(sentence_sets):
        for s in sorted(ids - taken, reverse=True):
            if all(sentence_sets[h] - taken - {s} for h in [*held, e] if s in sentence_sets[h]):
                held[e] = s
                taken.add(s)
                break
    name = world_name(index, shared_name)
    pages: Dict[int, dict] = {}
    kept: Dict[int, list] = {}
    titles: Dict[int, str] = {}
    for e, mentions in enumerate(entities):
        kept[e] = sorted({m["sent_id"] for m in mentions} - taken)
        if not kept[e]:
            continue
        titles[e] = max((m["name"] for m in mentions), key=len)
        # renamed pages write every mention as the title; so does the gold's, or that would tell
        written = ([_swapped(doc, s, {positions[e]: titles[e]}) for s in kept[e]] if shared_name
                   else [sentences[s] for s in kept[e]])
        text = " ".join([titles[e]] + written)
        pages[e] = {"document_id": _id(name, e), "title": titles[e], "text": text}
    queries = {e: s for e, s in held.items() if e in pages}
    if not queries or len(pages) < 2:
        return [], [], []
    order = sorted(set(queries.values()))
    spans, words = {}, []  # (sentence, token) -> its first and last word in the context
    for s in order:
        for t, token in enumerate(doc["sents"][s]):
            parts = token.split() or ["_"]  # a token may hold spaces; the reader splits on them
            spans[s, t] = (len(words), len(words) + len(parts) - 1)
            words += parts
    context = {"document_id": _id(name, "context"), "title": f"{doc['title']} (context)",
               "text": " ".join(words)}
    mentions_out, candidates_out, renamed = [], [], []
    for e, s in sorted(queries.items()):
        first = min((m for m in entities[e] if m["sent_id"] == s), key=lambda m: m["pos"][0])
        start, end = spans[s, first["pos"][0]][0], spans[s, first["pos"][1] - 1][1]
        mention_id = _id(name, e, "mention")
        gold = pages[e]["document_id"]
        mentions_out.append({"mention_id": mention_id, "context_document_id":
                             context["document_id"], "corpus": name, "start_index": start,
                             "end_index": end, "text": " ".join(words[start:end + 1]),
                             "label_document_id": gold, "category": "DOCRED"})
        others = [o for o in pages if o != e]
        if shared_name:  # the gold's type first: a person among persons
            others.sort(key=lambda o: entities[o][0]["type"] != entities[e][0]["type"])
            others = others[:max_candidates - 1]
            ids = []
            for o in others:
                names = {positions[o]: titles[e], positions[e]: titles[o]}
                text = " ".join([titles[e]] + [_swapped(doc, t, names) for t in kept[o]])
                ids.append(_id(name, o, "as", e))
                renamed.append({"document_id": ids[-1], "title": titles[e], "text": text})
        else:
            ids = [pages[o]["document_id"] for o in others]
        candidates_out.append({"mention_id": mention_id,
                               "tfidf_candidates": [gold, *ids][:max_candidates]})
    return [*pages.values(), *renamed, context], mentions_out, candidates_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--docs", type=int, nargs=2, default=[0, 250], metavar=("FROM", "TO"))
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument("--candidates-dir", default="first_stage_candidates")
    parser.add_argument("--shared-name", action="store_true",
                        help="every candidate carries the gold's name (pages renamed, mentions "
                             "swapped)")
    args = parser.parse_args()
    docs = json.loads(args.source.read_text())[slice(*args.docs)]
    (args.out / "documents").mkdir(parents=True, exist_ok=True)
    (args.out / "mentions").mkdir(exist_ok=True)
    (args.out / args.candidates_dir).mkdir(exist_ok=True)
    count = worlds = 0
    with open(args.out / "mentions" / "train.json", "a") as mentions_file, \
            open(args.out / args.candidates_dir / "train.json", "a") as candidates_file:
        for index, doc in enumerate(docs, args.docs[0]):
            documents, mentions, candidates = world(doc, index, args.candidates, args.shared_name)
            if not mentions:
                continue
            worlds += 1
            count += len(mentions)
            (args.out / "documents" / f"{world_name(index, args.shared_name)}.json").write_text(
                "".join(json.dumps(d) + "\n" for d in documents))
            mentions_file.writelines(json.dumps(m) + "\n" for m in mentions)
            candidates_file.writelines(json.dumps(c) + "\n" for c in candidates)
    print(f"wrote {count} mentions in {worlds} worlds to {args.out}")


if __name__ == "__main__":
    main()

