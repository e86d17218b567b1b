"""Measures every first-stage feature by ablation on the demo and on free text (issue 19 item 2).

Computes the first-stage features (:mod:`allennlp_longent.linking.evidence`) once for the demo's
training worlds, its validation world and the free-text sets; fits the first stage on the training
worlds with every feature, with each one left out, with the original five and with
``--features``; prints accuracy@1 of each fit on the validation world and on each free-text set.
The first stage that is used is fitted by ``allennlp train training_configs/linking/
first_stage.jsonnet`` (every feature) and calibrated, NIL option included, by ``longent
calibrate``, which writes the cascade archive that ``longent freetext --model`` reads.

    python scripts/linking/freetext_first_stage.py [--sets fixtures/freetext/dev] [--final]
        [--in-style 1 3 8]
"""

import argparse
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np
import spacy

from allennlp_longent.linking.candidates.generator import MentionQuery
from allennlp_longent.linking.cascade import Cascade, CascadeSettings
from allennlp_longent.linking.dense_encoder import PACKAGED
from allennlp_longent.linking.evaluation import NIL, wilson
from allennlp_longent.linking.evidence import FEATURES, ContextEvidence, EvidenceSettings, fit
from allennlp_longent.linking.freetext import gold_docs, read_set
from allennlp_longent.linking.knowledge_base import KnowledgeBase
from allennlp_longent.linking.spacy_component import SKIP_LABELS, _context_words
from allennlp_longent.linking.world_index import WorldIndexes, read_mentions

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = ("retrieval", "mention", "clue", "own_document", "title_match")
Case = Tuple[List[str], np.ndarray, str]  # candidate ids, feature rows, gold id (or NIL)


def demo_cases(data_dir: Path, split: str, settings: CascadeSettings) -> List[Case]:
    indexes = WorldIndexes(data_dir / "documents")
    by_world: Dict[str, List[dict]] = defaultdict(list)
    for mention in read_mentions(data_dir / "mentions" / f"{split}.json", indexes.documents):
        by_world[mention["corpus"]].append(mention)
    cases = []
    for world, group in by_world.items():
        found = Cascade(indexes.kb(world, "bm25"), None, settings).features(
            [m["query"] for m in group])
        cases += [([e.id for e in entities], rows, m["label_document_id"])
                  for m, (entities, rows) in zip(group, found)]
    return cases


def freetext_cases(directory: Path, settings: CascadeSettings, reach: int = 512
                   ) -> Tuple[List[Case], List[int]]:
    """The spans the spaCy component would link, as it builds their queries, and the index of
    each one's paragraph."""
    data = read_set(directory)
    kb = KnowledgeBase()
    kb.add(data.entities)
    queries, golds, paragraphs = [], [], []
    docs = gold_docs(spacy.blank("en"), data.paragraphs)
    for index, (doc, paragraph) in enumerate(zip(docs, data.paragraphs)):
        for ent, gold in zip(doc.ents, paragraph.spans):
            if gold.kb_id is not None and ent.label_ not in SKIP_LABELS:
                queries.append(MentionQuery(*_context_words(doc, ent, reach)))
                golds.append(gold.kb_id)
                paragraphs.append(index)
    found = Cascade(kb, None, settings).features(queries)
    cases = [([e.id for e in entities], rows, gold) for (entities, rows), gold in zip(found, golds)]
    return cases, paragraphs


def in_style(train: Sequence[Case], cases: Sequence[Case], paragraphs: Sequence[int],
             copies: int, encoder: str) -> int:
    """Right@1 on a free-text set's linked spans, each paragraph's spans linked by a first stage
    fitted on ``train`` plus ``copies`` copies of the other paragraphs' spans (leave one
    paragraph out): does supervision in the set's own style help?"""
    hits = 0
    for held in sorted(set(paragraphs)):
        extra = [c for c, p in zip(cases, paragraphs) if p != held] * copies
        fitted = fit([r for _, r, _ in [*train, *extra]], gold_index([*train, *extra]),
                     EvidenceSettings(encoder))
        hits += right_at_1(ContextEvidence(fitted),
                           [c for c, p in zip(cases, paragraphs) if p == held])
    return hits


def gold_index(cases: Sequence[Case]) -> List[int]:
    return [ids.index(gold) if gold in ids else -1 for ids, _, gold in cases]


def right_at_1(evidence: ContextEvidence, cases: Sequence[Case]) -> int:
    hits = 0
    for ids, rows, gold in cases:
        if ids:
            scores = evidence.score(rows)
            hits += ids[int(np.lexsort((np.arange(len(scores)), -scores))[0])] == gold
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=Path, default=REPO / "fixtures" / "zeshel_demo")
    parser.add_argument("--sets", type=Path, nargs="+",
                        default=[REPO / "fixtures" / "freetext" / "dev"])
    parser.add_argument("--features", nargs="+", default=list(FEATURES), choices=FEATURES)
    parser.add_argument("--final", action="store_true",
                        help="once, after every choice: the chosen fit and its baselines only, "
                             "also on the demo's test world")
    parser.add_argument("--encoder", default=PACKAGED)
    parser.add_argument("--in-style", type=int, nargs="*", default=[],
                        help="also fit on each set's other paragraphs, these many copies of them "
                             "(leave one paragraph out; not with --final)")
    args = parser.parse_args()
    if args.final and args.in_style:
        parser.error("--in-style fits on the sets' own spans: a choice, not a final figure")
    started = time.process_time()
    settings = CascadeSettings(top_k=64, evidence=EvidenceSettings(args.encoder).to_dict())
    train = demo_cases(args.demo, "train", settings)
    evaluated: Dict[str, List[Case]] = {"demo val": demo_cases(args.demo, "val", settings)}
    if args.final:
        evaluated["demo test"] = demo_cases(args.demo, "test", settings)
    paragraphs_of: Dict[str, List[int]] = {}  # per free-text set, each linked span's paragraph
    for directory in args.sets:
        cases, paragraphs = freetext_cases(directory, settings)
        linked = [i for i, c in enumerate(cases) if c[2] != NIL]
        name = f"free text {directory.name}"
        evaluated[name] = [cases[i] for i in linked]
        paragraphs_of[name] = [paragraphs[i] for i in linked]
    print(f"features computed in {time.process_time() - started:.0f} CPU s; "
          f"{len(train)} training mentions")

    fits = {"all": FEATURES, **{f"without {f}": tuple(x for x in FEATURES if x != f)
                                for f in FEATURES},
            "original five": ORIGINAL, "retrieval alone": ("retrieval",),
            "chosen": tuple(args.features)}
    if args.final:
        fits = {n: fits[n] for n in ("retrieval alone", "original five", "chosen")}
    print(f"{'fit on the training worlds':<30}" + "".join(f"{n:>24}" for n in evaluated))
    for name, features in fits.items():
        fitted = fit([r for _, r, _ in train], gold_index(train),
                     EvidenceSettings(args.encoder), features=features)
        evidence = ContextEvidence(fitted)
        cells = []
        for cases in evaluated.values():
            hits = right_at_1(evidence, cases)
            low, high = wilson(hits, len(cases))
            cells.append(f"{hits}/{len(cases)} [{low:.2f},{high:.2f}]".rjust(24))
        print(f"{name:<30}" + "".join(cells))
    print("chosen weights: " + ", ".join(f"{f} {w:.2f}" for f, w in fitted.weights.items()))
    for name, paragraphs in paragraphs_of.items():
        for copies in args.in_style:
            hits = in_style(train, evaluated[name], paragraphs, copies, args.encoder)
            print(f"{name}, fitted also on its other paragraphs ({copies} copies), "
                  f"leave one paragraph out: {hits}/{len(paragraphs)}")
    print(f"(took {time.process_time() - started:.0f} CPU s)")


if __name__ == "__main__":
    main()
