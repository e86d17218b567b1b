"""Links the entities of a paragraph with spaCy: ``spacy.blank("en")`` + ``entity_ruler`` finds
the mentions, ``longent_linker`` ranks knowledge-base candidates with a trained archive.

    python scripts/link_paragraph.py ARCHIVE KB_DIR [--text "..."]
"""

import argparse

import spacy

import allennlp_longent.components  # noqa: F401  (registers the spaCy factory and the model)

PARAGRAPH = (
    "Before dawn the caravan left the ring of palms and turned east along the Salt Way . "
    "Mara had warned the drivers that the wind would move the dunes again , and nobody wanted "
    "to repeat the night crossing she once led through the Glass Dunes . At the next market the "
    "caravan masters met to renew the Compact , arguing about tolls and the water of Tel Mara ."
)
MENTIONS = ["Salt Way", "Mara", "Glass Dunes", "Compact", "Tel Mara"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("kb")
    parser.add_argument("--text", default=PARAGRAPH)
    args = parser.parse_args()

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "ENTITY", "pattern": mention} for mention in MENTIONS])
    nlp.add_pipe("longent_linker", config={"archive": args.archive, "kb": args.kb, "top_k": 4})
    doc = nlp(args.text)
    print(args.text)
    print()
    for ent in doc.ents:
        candidates = ent._.longent_candidates or []
        best = candidates[0] if candidates else None
        title = best["title"] if best else "-"
        probability = f"p={best['probability']:.2f}" if best else ""
        runner_up = f"(next: {candidates[1]['title']})" if len(candidates) > 1 else ""
        print(f"  {ent.text!r:<16} -> {ent.kb_id_:<17} {title:<22} {probability} {runner_up}")


if __name__ == "__main__":
    main()
