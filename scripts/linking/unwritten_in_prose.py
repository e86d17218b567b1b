"""How often the unwritten-name rule's evidence is wrong in real prose (issue 19).

In Re-DocRED's documents every entity mention has an entity. For each mention of an entity
(PER, ORG, LOC, MISC) named in two or more sentences, the entity's page is its longest name and
the document's other sentences that mention it; a name word of the mention that this page does
not write (:func:`allennlp_longent.linking.names.unwritten_names`) would make the rule call the
mention NIL if the other candidates did not write it either. So the count is an upper bound on
the rule's wrong NILs in such prose; the script prints it and the words behind it.

It also counts, for label agreement (:mod:`allennlp_longent.linking.kinds`), the mentions whose
DocRED type (PER as PERSON, LOC as a place) clashes with their own entity's page read by its
pronouns: an upper bound on the gold candidates that label agreement would move down.

    python scripts/linking/unwritten_in_prose.py RE_DOCRED.json [--show 30]
"""

import argparse
import collections
import json
from pathlib import Path

from allennlp_longent.linking.kinds import clashes, kind
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.names import page_forms, unwritten_names

TYPES = {"PER", "ORG", "LOC", "MISC"}
LABELS = {"PER": "PERSON", "LOC": "LOC"}  # the DocRED types label agreement reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--show", type=int, default=30, help="examples printed")
    args = parser.parse_args()
    mentions = 0
    misses = []
    labelled = 0
    clashing = []
    for doc in json.loads(args.source.read_text()):
        sentences = [" ".join(s) for s in doc["sents"]]
        for e, vertex in enumerate(doc["vertexSet"]):
            ids = {m["sent_id"] for m in vertex}
            if vertex[0]["type"] not in TYPES or len(ids) < 2:
                continue
            title = max((m["name"] for m in vertex), key=len)
            for m in vertex:
                page = " ".join(sentences[s] for s in sorted(ids - {m["sent_id"]}))
                entity = Entity(f"{doc['title']}/{e}/{m['sent_id']}", title, page)
                mentions += 1
                if m["type"] in LABELS:
                    labelled += 1
                    if clashes(LABELS[m["type"]], kind(entity)):
                        clashing.append((m["name"], m["type"], kind(entity)))
                unwritten = unwritten_names(m["name"], page_forms(entity))
                if unwritten:
                    misses.append((m["name"], title, sorted(unwritten)))
    words = collections.Counter(w for _, _, ws in misses for w in ws)
    print(f"{mentions} mentions; the gold page leaves a name word unwritten in {len(misses)} "
          f"({len(misses) / max(mentions, 1):.3f})")
    print("most common:", ", ".join(f"{w} {n}" for w, n in words.most_common(20)))
    for mention, title, unwritten in misses[: args.show]:
        print(f"  {mention!r} of {title!r}: {unwritten}")
    print(f"{labelled} mentions typed PER or LOC; their own page clashes with the type in "
          f"{len(clashing)} ({len(clashing) / max(labelled, 1):.3f})")
    for mention, label, read in clashing[: args.show]:
        print(f"  {mention!r} ({label}): the page reads as a {read}")


if __name__ == "__main__":
    main()
