"""``longent end-to-end``: link free-text sets as a spaCy user does, from the spans a NER finds.

Each set (a folder with ``kb.jsonl`` and ``paragraphs.jsonl``, as for ``longent freetext``) goes
through a spaCy pipeline (``--pipeline``, en_core_web_sm by default) once; its entities are then
linked by retrieval alone and, with ``--model``, by the cascade as the ``longent_linker`` component
runs it with a NER's labels, each on the NER's spans and on the spans the ``longent_mentions``
component makes of them (a leading "the" and a trailing possessive taken off, an entity widened over
its whole word, a kind word after it, the capitalised words right after it and a title that holds
it, and the knowledge base's titles and capitalised runs that write a name word of a title or of
another name a page gives added where the NER found nothing; ``--no-trim``, ``--no-titles``,
``--no-extend`` and ``--no-names`` leave each out). A row gives precision over the links to the
knowledge base and recall over the set's spans that name one of its entities, a link right only at
exactly the gold offsets, with 95 % Wilson intervals, F1, and how many gold spans the docs hold at
all (:mod:`allennlp_longent.linking.end_to_end`). Exits 1 when ``--require`` names a row whose F1
over all the sets is not above the first row's.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from allennlp_longent.commands.link_text import DEFAULT_PIPELINE
from allennlp_longent.commands.safe_io import (
    CommandError,
    existing_dir,
    model_archive,
    reporting_errors,
)

# longent_mentions' config switches, each a --STEP / --no-STEP flag
MENTIONS_STEPS = ("trim", "titles", "extend", "names")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "end-to-end", help="link free-text sets from the spans a spaCy NER finds",
        description=__doc__)
    parser.add_argument("sets", type=Path, nargs="+", help="set folders (kb.jsonl, "
                        "paragraphs.jsonl)")
    parser.add_argument("--model", help="a cascade_linker archive (longent calibrate)")
    parser.add_argument("--pipeline", default=DEFAULT_PIPELINE,
                        help="spaCy pipeline (package or path) whose NER gives the spans")
    for step in MENTIONS_STEPS:
        parser.add_argument(f"--{step}", action=argparse.BooleanOptionalAction, default=True,
                            help=f"longent_mentions' {step} (default: on)")
    parser.add_argument("--require", help="a row's name that must beat the first row's F1 "
                        "over all the sets (exit 1 otherwise)")
    parser.set_defaults(func=reporting_errors(run))


def run(args: argparse.Namespace) -> None:
    for directory in args.sets:
        existing_dir(directory, "free-text set", "paragraphs.jsonl")
    if args.model is not None:
        model_archive(args.model)
    from allennlp_longent.linking.end_to_end import (
        HEADER,
        SpanCounts,
        ner_docs,
        run_stages,
        score,
        system_names,
        systems,
    )

    names = system_names(args.model is not None)
    if args.require is not None and args.require not in names:
        raise CommandError(f"--require {args.require!r}: no such row (rows: {names})")
    import spacy

    from allennlp_longent.linking import mentions, spacy_component  # noqa: F401 (factories)
    from allennlp_longent.linking.freetext import read_set, save_kb

    nlp = spacy.load(args.pipeline, exclude=["lemmatizer"])
    totals = {}
    with tempfile.TemporaryDirectory() as scratch:
        for directory in args.sets:
            data = read_set(directory)
            kb_dir = save_kb(data.entities, Path(scratch) / data.name / "kb")
            docs = ner_docs(nlp, data.paragraphs)
            print(f"\n{directory}: {len(data.paragraphs)} paragraphs, {len(data.entities)} "
                  f"entities, {sum(len(d.ents) for d in docs)} entities found by {args.pipeline}")
            print(HEADER)
            steps = {step: getattr(args, step) for step in MENTIONS_STEPS}
            for name, stages in systems(kb_dir, args.model, **steps).items():
                counts = score(run_stages(docs, stages), data.paragraphs)
                print(counts.row(name), flush=True)
                totals.setdefault(name, SpanCounts())
                totals[name] += counts
    if len(args.sets) > 1:
        print(f"\nall {len(args.sets)} sets")
        print(HEADER)
        for name, counts in totals.items():
            print(counts.row(name))
    if args.require is not None:
        first = next(iter(totals.values()))
        if totals[args.require].f1() <= first.f1():
            print(f"FAILED: {args.require} does not beat {next(iter(totals))}", file=sys.stderr)
            sys.exit(1)
