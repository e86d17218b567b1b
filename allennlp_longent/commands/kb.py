"""``longent kb``: build a local knowledge base, add entities to it, search it."""

import argparse
from pathlib import Path
from typing import Callable

from allennlp_longent.linking.candidates import CandidateGenerator
from allennlp_longent.linking.knowledge_base import ENTITIES_FILE, KnowledgeBase


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "kb", help="build, extend and search a local knowledge base", description=__doc__
    )
    commands = parser.add_subparsers(title="kb commands", metavar="KB_COMMAND", required=True)

    build = commands.add_parser(
        "build",
        help="create a knowledge base from entity files",
        description="Entity files are JSON lines {id, title, description}, or zeshel "
        "documents/<world>.json {document_id, title, text}.",
    )
    build.add_argument("kb_dir", type=Path)
    build.add_argument("entities", type=Path, nargs="+", help="JSON-lines entity files")
    build.add_argument("--k1", type=float, default=1.2, help="BM25 term-frequency saturation")
    build.add_argument("--b", type=float, default=0.75, help="BM25 length normalisation")
    build.add_argument("--overwrite", action="store_true", help="replace an existing KB")
    build.set_defaults(func=reporting_errors(run_build))

    add = commands.add_parser(
        "add", help="append entities and update the index (running linkers see them at once)"
    )
    add.add_argument("kb_dir", type=Path)
    add.add_argument("entities", type=Path, nargs="+", help="JSON-lines entity files")
    add.set_defaults(func=reporting_errors(run_add))

    search = commands.add_parser("search", help="print the BM25 candidates for a query")
    search.add_argument("kb_dir", type=Path)
    search.add_argument("query")
    search.add_argument("--top-k", type=int, default=10)
    search.set_defaults(func=reporting_errors(run_search))


def reporting_errors(command: Callable[[argparse.Namespace], None]) -> Callable:
    """Bad input ends the command with its message (file and line), not a traceback."""

    def run(args: argparse.Namespace) -> None:
        try:
            command(args)
        except (ValueError, FileNotFoundError) as error:
            raise SystemExit(f"error: {error}") from error

    return run


def run_build(args: argparse.Namespace) -> None:
    if (args.kb_dir / ENTITIES_FILE).exists() and not args.overwrite:
        raise SystemExit(f"{args.kb_dir} already holds a knowledge base (pass --overwrite)")
    kb = KnowledgeBase(CandidateGenerator.by_name("bm25")(k1=args.k1, b=args.b))
    count = kb.add_files(args.entities)
    kb.save(args.kb_dir)
    print(f"{args.kb_dir}: {count} entities")


def run_add(args: argparse.Namespace) -> None:
    kb = KnowledgeBase.load(args.kb_dir)
    count = kb.add_files(args.entities)
    kb.save(args.kb_dir)
    print(f"{args.kb_dir}: added {count} entities, {len(kb)} in all")


def run_search(args: argparse.Namespace) -> None:
    kb = KnowledgeBase.load(args.kb_dir)
    for entity, score in kb.candidates([args.query], args.top_k)[0]:
        print(f"{score:8.4f}  {entity.id}  {entity.title}")
