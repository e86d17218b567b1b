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
from pathlib import Path

SPAN = re.compile(r"\[([^\[\]|]+)\|([A-Z_]+)\|([^\[\]|]+)\]")


def parse_block(block: str, where: str) -> dict:
    text, entities, last = [], [], 0
    length = 0
    for match in SPAN.finditer(block):
        before = block[last:match.start()]
        if "[" in before or "]" in before:
            raise ValueError(f"{where}: a bracket outside a [surface|LABEL|kb] span: {before!r}")
        text.append(before)
        length += len(before)
        surface, label, kb = match.groups()
        entities.append({"start_char": length, "end_char": length + len(surface), "label": label,
                         "kb_id": None if kb == "-" else kb, "text": surface})
        text.append(surface)
        length += len(surface)
        last = match.end()
    rest = block[last:]
    if "[" in rest or "]" in rest:
        raise ValueError(f"{where}: a bracket outside a [surface|LABEL|kb] span: {rest!r}")
    text.append(rest)
    return {"text": "".join(text), "entities": entities}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("markup", type=Path)
    parser.add_argument("output", type=Path)
    args = parser.parse_args()
    blocks, line_of_block, current, start = [], [], [], 1
    for number, line in enumerate(args.markup.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            if not current:
                start = number
            current.append(line.strip())
        elif current:
            blocks.append(" ".join(current))
            line_of_block.append(start)
            current = []
    if current:
        blocks.append(" ".join(current))
        line_of_block.append(start)
    rows = [parse_block(block, f"{args.markup}:{line}")
            for block, line in zip(blocks, line_of_block)]
    with args.output.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    spans = sum(len(row["entities"]) for row in rows)
    nil = sum(entity["kb_id"] == "NIL" for row in rows for entity in row["entities"])
    print(f"{len(rows)} paragraphs, {spans} spans ({nil} NIL) -> {args.output}")


if __name__ == "__main__":
    main()
