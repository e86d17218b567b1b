"""Fits the first stage for free text and measures every feature by ablation (issue 19 item 2).

Computes the first-stage features (:mod:`allennlp_longent.linking.evidence`) once for the demo's
training worlds, its validation world and the free-text sets; fits the first stage on the training
worlds with every feature, with each one left out, and with the original five (the first stage of
the main job); prints accuracy@1 of each fit on the validation world and on each free-text set;
then calibrates the NIL option of the chosen fit (``--features``, default all) on the validation
world (:func:`allennlp_longent.linking.cascade.calibrate`, no re-ranker: weight 0) and writes
those cascade settings, which ``longent freetext --calibration`` and the spaCy component read.

    python scripts/linking/freetext_first_stage.py --out FIRST_STAGE.json [--sets
    fixtures/freetext/dev]
"""

import argparse
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np
import spacy

sys.path.insert(0, str(Path(__file__).resolve().parent))

from main_job_cascade import read_split  # noqa: E402
from main_job_first_stage import bm25_index, by_world  # noqa: E402

from allennlp_longent.linking.candidates.generator import MentionQuery  # noqa: E402
from allennlp_longent.linking.cascade import Cascade, CascadeSettings, Scored, calibrate  # noqa: E402
from allennlp_longent.linking.dense_encoder import PACKAGED  # noqa: E402
from allennlp_longent.linking.documents import WorldDocuments  # noqa: E402
from allennlp_longent.linking.evaluation import NIL, wilson  # noqa: E402
from allennlp_longent.linking.evidence import (  # noqa: E402
    FEATURES,
    ContextEvidence,
    EvidenceSettings,
    fit,
)
from allennlp_longent.linking.freetext import gold_docs, read_set  # noqa: E402
from allennlp_longent.linking.knowledge_base import KnowledgeBase  # noqa: E402
from allennlp_longent.linking.spacy_component import SKIP_LABELS, _context_words  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = ("retrieval", "mention", "clue", "own_document", "title_match")
Case = Tuple[List[str], np.ndarray, str]  # candidate ids, feature rows, gold id (or NIL)


def demo_cases(data_dir: Path, split: str, settings: CascadeSettings) -> List[Case]:
    documents = WorldDocuments(data_dir / "documents")
    cases = []
    for world, group in by_world(read_split(data_dir, split, documents)).items():
        found = Cascade(bm25_index(documents, world), None, settings).features(
            [m["query"] for m in group])
        cases += [([e.id for e in entities], rows, m["label_document_id"])
                  for m, (entities, rows) in zip(group, found)]
    return cases


def freetext_cases(directory: Path, settings: CascadeSettings, reach: int = 512) -> List[Case]:
    """The spans the spaCy component would link, as it builds their queries."""
    data = read_set(directory)
    kb = KnowledgeBase()
    kb.add(data.entities)
    queries, golds = [], []
    for doc, paragraph in zip(gold_docs(spacy.blank("en"), data.paragraphs), data.paragraphs):
        for ent, gold in zip(doc.ents, paragraph.spans):
            if gold.kb_id is not None and ent.label_ not in SKIP_LABELS:
                queries.append(MentionQuery(*_context_words(doc, ent, reach)))
                golds.append(gold.kb_id)
    found = Cascade(kb, None, settings).features(queries)
    return [([e.id for e in entities], rows, gold) for (entities, rows), gold in zip(found, golds)]


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
    parser.add_argument("--out", type=Path, required=True, help="cascade settings written")
    parser.add_argument("--demo", type=Path, default=REPO / "fixtures" / "zeshel_demo")
    parser.add_argument("--sets", type=Path, nargs="+",
                        default=[REPO / "fixtures" / "freetext" / "dev"])
    parser.add_argument("--features", nargs="+", default=list(FEATURES), choices=FEATURES)
    parser.add_argument("--final", action="store_true",
                        help="once, after every choice: the chosen fit and its baselines only, "
                             "also on the demo's test world")
    parser.add_argument("--encoder", default=PACKAGED)
    parser.add_argument("--rerank-k", type=int, default=4)
    parser.add_argument("--nil-rate", type=float, nargs="+", default=[0.1],
                        help="expected share of NIL mentions; with several, --out gets the "
                             "first and OUT_nil<rate>.json each")
    args = parser.parse_args()
    started = time.process_time()
    settings = CascadeSettings(top_k=64, rerank_k=args.rerank_k,
                               evidence=EvidenceSettings(args.encoder).to_dict())
    train = demo_cases(args.demo, "train", settings)
    evaluated: Dict[str, List[Case]] = {"demo val": demo_cases(args.demo, "val", settings)}
    if args.final:
        evaluated["demo test"] = demo_cases(args.demo, "test", settings)
    for directory in args.sets:
        evaluated[f"free text {directory.name}"] = [
            c for c in freetext_cases(directory, settings) if c[2] != NIL]
    print(f"features computed in {time.process_time() - started:.0f} CPU s; "
          f"{len(train)} training mentions")

    fits = {"all": FEATURES, **{f"without {f}": tuple(x for x in FEATURES if x != f)
                                for f in FEATURES},
            "original five (main job)": ORIGINAL, "retrieval alone": ("retrieval",),
            "chosen": tuple(args.features)}
    if args.final:
        fits = {n: fits[n] for n in ("retrieval alone", "original five (main job)", "chosen")}
    print(f"{'fit on the training worlds':<30}" + "".join(f"{n:>24}" for n in evaluated))
    chosen = None
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
        if name == "chosen":
            chosen = fitted
    print("chosen weights: " + ", ".join(f"{f} {w:.2f}" for f, w in chosen.weights.items()))

    settings.evidence = chosen.to_dict()
    evidence = ContextEvidence(chosen)
    scored = []
    for ids, rows, _ in evaluated["demo val"]:
        first = evidence.score(rows) if ids else np.zeros(0)
        order = np.lexsort((np.arange(len(first)), -first))[: args.rerank_k]
        scored.append(Scored([_Id(ids[i]) for i in order], first[order], None))
    for rate in args.nil_rate:
        fitted = calibrate(scored, [g for _, _, g in evaluated["demo val"]], settings,
                           nil_rate=rate)
        fitted.validation["retriever"] = "bm25"
        out = args.out if rate == args.nil_rate[0] else args.out.with_name(
            f"{args.out.stem}_nil{rate}.json")
        fitted.save(out)
        v = fitted.validation
        print(f"NIL option calibrated on the validation world with NIL rate {rate}: "
              f"b = {fitted.nil_score}, T = {fitted.temperature}; right on "
              f"{v['nil_decision_correct']}/{v['nil_decision_total']} cases against "
              f"{v['never_nil_correct']} never NIL; written to {out}")
    print(f"(took {time.process_time() - started:.0f} CPU s)")


class _Id:
    """What :func:`calibrate` reads of a candidate: its id."""

    def __init__(self, id: str) -> None:
        self.id = id


if __name__ == "__main__":
    main()
