"""Write a free-text set's paragraphs.jsonl from paragraphs marked up by hand.

One paragraph per block (blocks are separated by a blank line). A gold span is written
``[surface|LABEL|kb]`` where ``kb`` is an entity id of the set's kb.jsonl, ``NIL`` (the name's
entity is not in the knowledge base) or ``-`` (not linked, e.g. a date). The output has the
format that ``allennlp_longent.linking.freetext.read_set`` reads and checks.

    python scripts/demo_data/freetext_from_markup.py MARKUP.txt SET_DIR/paragraphs.jsonl
"""
import argparse
import json
import re
from itertools import groupby
from pathlib import Path
from typing import Iterator, List, Tuple

SPAN = re.compile(r"\[([^\[\]|]+)\|([A-Z_]+)\|([^\[\]|]+)\]")
STRAY = re.compile(r"[\[\]]")


def parse_block(block: str, where: str) -> dict:
    """One paragraph's text and spans; a bracket outside a span is refused, naming ``where``."""
    stray = STRAY.search(SPAN.sub("", block))
    if stray:
        raise ValueError(f"{where}: a bracket outside a [surface|LABEL|kb] span: "
                         f"{stray.string[max(0, stray.start() - 30):stray.end() + 30]!r}")
    text, entities, last = "", [], 0
    for match in SPAN.finditer(block):
        text += block[last:match.start()]
        surface, label, kb = match.groups()
        entities.append({"start_char": len(text), "end_char": len(text) + len(surface),
                         "label": label, "kb_id": None if kb == "-" else kb, "text": surface})
        text += surface
        last = match.end()
    return {"text": text + block[last:], "entities": entities}


def blocks(lines: List[str]) -> Iterator[Tuple[int, str]]:
    """``(first line number, the block's lines joined)`` of each run of non-blank lines."""
    numbered = groupby(enumerate(lines, 1), key=lambda item: bool(item[1].strip()))
    for filled, run in numbered:
        if filled:
            run = list(run)
            yield run[0][0], " ".join(line.strip() for _, line in run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("markup", type=Path)
    parser.add_argument("output", type=Path)
    args = parser.parse_args()
    lines = args.markup.read_text(encoding="utf-8").splitlines()
    rows = [parse_block(block, f"{args.markup}:{number}") for number, block in blocks(lines)]
    with args.output.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    spans = sum(len(row["entities"]) for row in rows)
    nil = sum(entity["kb_id"] == "NIL" for row in rows for entity in row["entities"])
    print(f"{len(rows)} paragraphs, {spans} spans ({nil} NIL) -> {args.output}")


if __name__ == "__main__":
    main()
