"""Would a first stage fitted on free text link free text better than the one fitted on the
generated worlds? Measured by leaving sets out: the free-text sets are dealt into ``--folds``
folds by name; for each fold, the first stage's weights
(:func:`allennlp_longent.linking.evidence.fit`, the same loss and sign check as on the worlds)
are fitted on the gold spans of the other folds,
written into a copy of the archive, and the fold's sets are linked span by span with the
archive as it is and with the copy (the spaCy component, every rule on).

    python scripts/linking/text_first_stage_cv.py ARCHIVE SET... [--folds 4] [--labels ner]

Prints per fold the first stage's right first candidates (of the spans whose gold it
retrieved) and the links fixed and broken, then the totals with the one-sided sign test of the
text fit being better (:func:`~allennlp_longent.linking.cascade.sign_test`).
"""
import argparse
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from allennlp_longent.linking.cascade import CascadeSettings, sign_test
from allennlp_longent.linking.evidence import ContextEvidence, EvidenceSettings, fit
from allennlp_longent.linking.freetext import longent_linker, read_set, save_kb
from allennlp_longent.linking.models.cascade_linker import write_cascade_archive
from allennlp_longent.linking.span_diff import compare, decisions

Rows = List[Tuple[np.ndarray, int]]


def span_rows(archive: str, directory: Path, scratch: Path, labels: str) -> Rows:
    """The first stage's feature rows and the gold's index among them (-1: not retrieved) for
    each span of the set that names an entity of its knowledge base."""
    import spacy

    from allennlp_longent.linking.candidates.generator import MentionQuery
    from allennlp_longent.linking.freetext import gold_docs
    from allennlp_longent.linking.spacy_component import _context_words

    data = read_set(directory)
    kb = save_kb(data.entities, scratch / data.name / "kb")
    component = spacy.blank("en").add_pipe(
        "longent_linker", config={"kb": str(kb), "model": archive, "labels": labels})
    cascade = component.cascade()
    reach = cascade.ranker[1].max_length if cascade.ranker else 512
    queries, golds = [], []
    for doc, paragraph in zip(gold_docs(spacy.blank("en"), data.paragraphs), data.paragraphs):
        for span, gold in zip(doc.ents, paragraph.spans):
            if gold.kb_id not in (None, "NIL"):
                queries.append(MentionQuery(*_context_words(doc, span, reach)))
                golds.append(gold.kb_id)
    rows = []
    for (entities, features), gold in zip(cascade.features(queries), golds):
        ids = [e.id for e in entities]
        rows.append((np.asarray(features), ids.index(gold) if gold in ids else -1))
    return rows


def right_first(settings: EvidenceSettings, rows: Rows) -> int:
    first_stage = ContextEvidence(settings)
    return sum(g >= 0 and int(np.argmax(first_stage.score(r))) == g for r, g in rows)


def archived(path: Path) -> Tuple[CascadeSettings, Optional[str], dict]:
    """The ``cascade_linker`` archive's settings, its cross-encoder archive and its other
    constructor arguments, as :func:`write_cascade_archive` takes them."""
    from allennlp.models.archival import load_archive

    import allennlp_longent.registered  # noqa: F401  (registers the archived model)

    loaded = load_archive(str(path))
    model = {key: value for key, value in loaded.config.as_dict()["model"].items()
             if key not in ("type", "calibration", "cross_encoder")}
    return loaded.model.settings, loaded.model.cross_encoder, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", type=Path, help="a cascade_linker archive (longent calibrate)")
    parser.add_argument("sets", type=Path, nargs="+")
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--labels", choices=("annotated", "ner"), default="annotated")
    args = parser.parse_args()
    if not 2 <= args.folds <= len(args.sets):
        parser.error(f"--folds must be between 2 and the number of sets ({len(args.sets)})")
    settings, cross_encoder, model = archived(args.archive)
    world = EvidenceSettings(**settings.evidence)
    sets = sorted(args.sets, key=lambda p: p.name)
    totals: Dict[str, int] = dict.fromkeys(("spans", "world", "text", "fixed", "broken"), 0)
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        rows = {d: span_rows(str(args.archive), d, scratch, args.labels) for d in sets}
        for k in range(args.folds):
            held = sets[k::args.folds]
            train = [r for d in sets if d not in held for r in rows[d]]
            text = fit([r for r, _ in train], [g for _, g in train], world)
            copy = write_cascade_archive(scratch / f"fold{k}.tar.gz",
                                         replace(settings, evidence=text.to_dict()),
                                         cross_encoder, **model)
            test = [r for d in held for r in rows[d]]
            counts = {"spans": len(test), "world": right_first(world, test),
                      "text": right_first(text, test), "fixed": 0, "broken": 0}
            for d in held:
                data, kb = read_set(d), scratch / d.name / "kb"  # written by span_rows
                before = decisions(data, longent_linker(kb, str(args.archive),
                                                        labels=args.labels))
                after = decisions(data, longent_linker(kb, str(copy), labels=args.labels))
                changed = compare(before, after)
                counts["fixed"] += len(changed["fixed"])
                counts["broken"] += len(changed["broken"])
            print(f"fold {k} ({', '.join(d.name for d in held)}): first stage right first on "
                  f"{counts['world']} (worlds' fit) and {counts['text']} (text fit) of "
                  f"{counts['spans']} spans; links fixed {counts['fixed']}, broken "
                  f"{counts['broken']}", flush=True)
            totals = {key: totals[key] + counts[key] for key in totals}
    p = sign_test(totals["fixed"], totals["broken"])
    print(f"all folds: first stage right first {totals['world']} -> {totals['text']} of "
          f"{totals['spans']}; links fixed {totals['fixed']}, broken {totals['broken']}, "
          f"sign test p = {p:.3f}")


if __name__ == "__main__":
    main()
