"""A news-style probe of name coreference over a free-text set's knowledge base (issue 19).

Each paragraph names a person in full, then, after 0, 60 or 120 words of filler that names
nobody, by surname alone ("Magistrate Wenna Corrander ... Corrander told reporters"), the way news
prose does; both spans are gold. It measures what the linker does with the short mention when its
family shares the name with a town, an inn or a ship. The people are those of
``fixtures/freetext/dev``; the probe is for choices like dev, and it is written to test one
thing, so it says nothing of accuracy on prose in general.

    python scripts/demo_data/make_coref_probe.py fixtures/freetext/dev OUT
    longent freetext OUT --model runs/main_job/cascade/model.tar.gz
"""

import argparse
import json
import shutil
from pathlib import Path

FILLER = ("The weather on the coast had been poor for most of the month, and the boats stayed in "
          "the harbour while the prices of bread, rope and lamp oil rose week after week. Traders "
          "from the south said the roads were flooded, the carts late and the markets thin, and "
          "few expected any change before the autumn fairs. ")
# (full name, its dev KB id, the short mention, the paragraph)
CASES = [
    ("Wenna Corrander", "dev-04", "Corrander", "Magistrate {full} on Tuesday rejected an appeal "
     "by the merchants against the new rules. {fill}{short} told reporters that the rules would "
     "stand."),
    ("Aldous Corrander", "dev-03", "Corrander", "{full} was remembered at a dinner last night. "
     "{fill}Friends recalled that {short} never once missed a tide."),
    ("Ysolde Marrick", "dev-14", "Marrick", "An exhibition of work by {full} opened on Friday. "
     "{fill}{short} said she had worked on the largest canvas for three years."),
    ("Oskar Dray", "dev-22", "Dray", "{full} has raised his prices. {fill}{short} blamed the "
     "carters."),
    ("Ysolde Marrick", "dev-13", "Marrick", "The pilot {full} was praised by the council. "
     "{fill}{short} said the current had been the worst she had seen."),
    ("Hollis Dray", "dev-20", "Dray", "{full} brought the ship in late on Monday. {fill}{short} "
     "said the crew were tired but safe."),
    ("Liss Corrander", "dev-01", "Corrander", "A new lamp designed by {full} was shown to the "
     "guild. {fill}{short} said it would burn for a week without smoke."),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb_set", type=Path, help="a free-text set whose kb.jsonl has the people")
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.kb_set / "kb.jsonl", args.out / "kb.jsonl")
    ids = {json.loads(line)["id"] for line in (args.kb_set / "kb.jsonl").open()}
    lines = []
    for repeats in (0, 1, 2):
        for full, kb_id, short, template in CASES:
            if kb_id not in ids:
                raise ValueError(f"{args.kb_set / 'kb.jsonl'}: no entity {kb_id} ({full})")
            text = template.format(full=full, short=short, fill=FILLER * repeats)
            spans = [(text.index(full), full), (text.rindex(short), short)]
            lines.append(json.dumps({"text": text, "entities": [
                {"start_char": at, "end_char": at + len(name), "label": "PERSON", "kb_id": kb_id,
                 "text": name} for at, name in spans]}))
    (args.out / "paragraphs.jsonl").write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} paragraphs ({2 * len(lines)} spans) to {args.out}")


if __name__ == "__main__":
    main()
