"""``longent freetext``: link the gold spans of free-text sets with every linker and print a table.

A set is a folder with ``kb.jsonl`` and ``paragraphs.jsonl`` (:mod:`allennlp_longent.linking.
freetext`; ``fixtures/freetext/{dev,test}``). Per set: retrieval alone (BM25 with its title
field), the first stage of ``--first-stage`` (cascade settings without a re-ranker, as written by
``scripts/linking/freetext_first_stage.py``) never NIL and with its calibrated NIL option, the
cascade of
``--archive`` and ``--calibration`` if given, and spaCy's ``entity_linker`` of ``--spacy-peer``
(trained by ``scripts/linking/train_spacy_peer.py``) if given: accuracy over all spans that name
something
(a NIL span is right when linked NIL) with a 95 % Wilson interval, NIL precision and recall, and
mentions per CPU second. Exits 1 when a system below fails to beat retrieval alone (``--require``).
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

from allennlp_longent.commands.safe_io import existing_dir, existing_file, reporting_errors

RETRIEVAL = "retrieval alone (BM25 + titles)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "freetext", help="evaluate linkers on hand-written free-text sets", description=__doc__)
    parser.add_argument("sets", type=Path, nargs="+", help="set folders (kb.jsonl, "
                        "paragraphs.jsonl)")
    parser.add_argument("--first-stage", type=Path, help="first-stage cascade settings")
    parser.add_argument("--archive", help="a cross_encoder_ranker archive (needs --calibration)")
    parser.add_argument("--calibration", type=Path, help="the cascade settings of --archive")
    parser.add_argument("--spacy-peer", type=Path, help="a trained spaCy entity_linker pipeline")
    parser.add_argument("--encoder", default="packaged_minilm",
                        help="sentence encoder of the spaCy peer's entity vectors")
    parser.add_argument("--errors", action="store_true", help="list every wrong link")
    parser.add_argument("--require", help="a system's name in the table that must beat "
                        "retrieval alone (exit 1 otherwise)")
    parser.set_defaults(func=reporting_errors(run))


def run(args: argparse.Namespace) -> None:
    for directory in args.sets:
        existing_dir(directory, "free-text set", "paragraphs.jsonl")
    for path, what in ((args.first_stage, "first-stage settings"),
                       (args.calibration, "cascade settings")):
        if path is not None:
            existing_file(path, what)
    if (args.archive is None) != (args.calibration is None):
        raise ValueError("--archive and --calibration go together")
    if args.spacy_peer is not None:
        existing_dir(args.spacy_peer, "spaCy pipeline", "config.cfg")
    from allennlp_longent.linking.freetext import (
        errors,
        evaluate,
        longent_linker,
        read_set,
        spacy_peer_linker,
        table_rows,
    )
    from allennlp_longent.linking.knowledge_base import KnowledgeBase

    failed = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        never_nil = None
        if args.first_stage is not None:
            settings = json.loads(args.first_stage.read_text())
            settings["nil_score"] = None
            never_nil = scratch / "first_stage_never_nil.json"
            never_nil.write_text(json.dumps(settings))
        for directory in args.sets:
            data = read_set(directory)
            kb_dir = scratch / data.name / "kb"
            kb = KnowledgeBase()
            kb.add(data.entities)
            kb.save(kb_dir)
            linkers = {RETRIEVAL: longent_linker(kb_dir)}
            if args.first_stage is not None:
                linkers["first stage (never NIL)"] = longent_linker(kb_dir, never_nil)
                linkers["first stage + NIL option"] = longent_linker(kb_dir, args.first_stage)
            if args.archive is not None:
                linkers["cascade (+ cross-encoder)"] = longent_linker(
                    kb_dir, args.calibration, args.archive)
            if args.spacy_peer is not None:
                linkers["spaCy entity_linker"] = spacy_peer_linker(
                    args.spacy_peer, data.entities, args.encoder)
            results = evaluate(data, linkers)
            gold = data.gold()
            print(f"\n{directory}: {len(data.paragraphs)} paragraphs, {len(gold)} spans "
                  f"({gold.count('NIL')} NIL), {len(data.entities)} entities")
            print("\n".join(table_rows(results)))
            for name, (_, _, found) in results.items() if args.errors else ():
                print(f"  wrong links of {name}:\n    " + "\n    ".join(errors(data, found)))
            if args.require is not None:
                if args.require not in results:
                    raise ValueError(f"--require {args.require!r}: no such system")
                if results[args.require][0].right <= results[RETRIEVAL][0].right:
                    failed.append(f"{directory}: {args.require} does not beat retrieval alone")
    for failure in failed:
        print(f"FAILED: {failure}", file=sys.stderr)
    if failed:
        sys.exit(1)
