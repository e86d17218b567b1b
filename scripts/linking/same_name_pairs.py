"""Who tells apart two pages that both write a span's name, on free text: the component's rules,
the first stage or the cross-encoder? The question behind the re-ranker's free-text weight of 0
(docs/linking.md, "Round 34").

For each span the component links to its first candidate A, where A and the second candidate B
both write every name word of the span (no ``unwritten`` words), neither clashes with the span's
label, and the gold is A or B, the script counts how often each of the three puts the gold
ahead: the rules (the component's decision, A), the first stage (A's ``first_stage_score``
against B's) and the cross-encoder (``rerank_score``, read in a second pass at weight 1). It
then counts what the cross-encoder would fix and break as a tie-breaker: B over A when B's
``rerank_score`` is ahead by more than a margin, with the one-sided sign test.

    python scripts/linking/same_name_pairs.py ARCHIVE SET... [--labels ner]

Both passes run the cross-encoder's archive on every span: dev..dev55 (12,137 spans) took 30
minutes of wall time on the 2-core machine, beside other work.
"""
import argparse
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

MARGINS = (0.0, 0.5, 1.0, 2.0, 3.0)

Pair = Tuple[bool, float, float, float, float]  # A is gold, A's and B's first-stage, rerank


def pairs(archive: str, directory: Path, scratch: Path, labels: str) -> List[Pair]:
    """The set's pairs (module docstring) with the scores the comparison reads."""
    import spacy

    from allennlp_longent.linking.freetext import (
        gold_docs,
        longent_linker,
        named_spans,
        read_set,
        save_kb,
    )
    from allennlp_longent.linking.span_diff import decisions

    data = read_set(directory)
    kb = save_kb(data.entities, scratch / directory.name / "kb")
    records = decisions(data, longent_linker(kb, archive, labels=labels))
    scored = longent_linker(kb, archive, weight=1.0, labels=labels)
    docs = scored(gold_docs(spacy.blank("en"), data.paragraphs))
    scores: List[Dict[str, Tuple[float, float]]] = [
        {c["id"]: (c.get("first_stage_score"), c.get("rerank_score"))
         for c in (ent._.longent_candidates or [])}
        for _, ent, _ in named_spans(docs, data.paragraphs)]
    found = []
    for record, by_id in zip(records, scores):
        candidates = record["candidates"]
        if len(candidates) < 2 or record["found"] != candidates[0]["id"]:
            continue
        a, b = candidates[0], candidates[1]
        if any("unwritten" in c or any(key.endswith("clash") for key in c) for c in (a, b)):
            continue
        if record["gold"] not in (a["id"], b["id"]):
            continue
        (fa, ra), (fb, rb) = by_id.get(a["id"], (None, None)), by_id.get(b["id"], (None, None))
        if None in (fa, ra, fb, rb):
            continue
        found.append((record["gold"] == a["id"], fa, fb, ra, rb))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive")
    parser.add_argument("sets", type=Path, nargs="+")
    parser.add_argument("--labels", choices=("annotated", "ner"), default="annotated")
    args = parser.parse_args()
    from allennlp_longent.linking.cascade import sign_test

    found: List[Pair] = []
    with tempfile.TemporaryDirectory() as scratch:
        for directory in args.sets:
            found += pairs(args.archive, directory, Path(scratch), args.labels)
            print(f"{directory}: {len(found)} pairs so far", flush=True)
    n = len(found)
    if not n:
        raise SystemExit("no span has two candidates that both write its name")
    rules = sum(a for a, *_ in found)
    first = sum((fa > fb) == a for a, fa, fb, _, _ in found)
    cross = sum((ra > rb) == a for a, _, _, ra, rb in found)
    print(f"{n} pairs: gold put first by the rules {rules} ({rules / n:.3f}), "
          f"the first stage {first} ({first / n:.3f}), the cross-encoder {cross} ({cross / n:.3f})")
    for margin in MARGINS:
        fixed = sum(1 for a, _, _, ra, rb in found if rb - ra > margin and not a)
        broken = sum(1 for a, _, _, ra, rb in found if rb - ra > margin and a)
        print(f"cross-encoder as tie-breaker, margin {margin}: fixed {fixed}, broken {broken}, "
              f"sign test p = {sign_test(fixed, broken):.3f}")


if __name__ == "__main__":
    main()
