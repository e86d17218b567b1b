"""``longent kb``: build a local knowledge base, add entities to it, search it."""

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

from allennlp_longent.commands.safe_io import (
    CommandError,
    atomic_dir,
    existing_dir,
    existing_file,
    refuse_existing,
    reporting_errors,
)
from allennlp_longent.paths import describe

if TYPE_CHECKING:
    from allennlp_longent.linking.candidates import CandidateGenerator

ENTITIES_FILE = "entities.jsonl"  # allennlp_longent.linking.knowledge_base.ENTITIES_FILE

RETRIEVERS = ("bm25", "dense", "hybrid")


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
    add_retriever_arguments(build)
    build.add_argument("--overwrite", action="store_true", help="replace an existing KB")
    build.set_defaults(func=reporting_errors(run_build))

    add = commands.add_parser(
        "add", help="append entities and update the index (running linkers see them at once); "
        "dense vectors are computed for the new entities only"
    )
    add.add_argument("kb_dir", type=Path)
    add.add_argument("entities", type=Path, nargs="+", help="JSON-lines entity files")
    add.set_defaults(func=reporting_errors(run_add))

    search = commands.add_parser("search", help="print the candidates for a query")
    search.add_argument("kb_dir", type=Path)
    search.add_argument("query")
    search.add_argument("--top-k", type=int, default=10)
    search.set_defaults(func=reporting_errors(run_search))


def run_build(args: argparse.Namespace) -> None:
    files = [existing_file(path, "entity file") for path in args.entities]
    refuse_existing([args.kb_dir], args.overwrite)
    from allennlp_longent.linking.knowledge_base import KnowledgeBase

    entities = read_entity_files(files)
    kb = KnowledgeBase(generator_from_args(args, k1=args.k1, b=args.b))
    count = kb.add(entities)
    with atomic_dir(args.kb_dir) as partial:
        kb.save(partial)
    print(f"{args.kb_dir}: {count} entities")


def run_add(args: argparse.Namespace) -> None:
    """Every file is read and checked before the KB changes; the entity file is replaced
    atomically, in place, so running linkers watching it see the new entities."""
    existing_dir(args.kb_dir, "knowledge base", ENTITIES_FILE)
    files = [existing_file(path, "entity file") for path in args.entities]
    from allennlp_longent.linking.knowledge_base import KnowledgeBase

    entities = read_entity_files(files)
    kb = KnowledgeBase.load(args.kb_dir)
    count = kb.add(entities)
    kb.save(args.kb_dir)
    print(f"{args.kb_dir}: added {count} entities, {len(kb)} in all")


def run_search(args: argparse.Namespace) -> None:
    existing_dir(args.kb_dir, "knowledge base", ENTITIES_FILE)
    from allennlp_longent.linking.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.load(args.kb_dir)
    for entity, score in kb.candidates([args.query], args.top_k)[0]:
        print(f"{score:8.4f}  {entity.id}  {entity.title}")


def read_entity_files(files: List[Path]) -> list:
    """``(file:line, entity)`` pairs of every file; a file without any entity (empty, or only
    blank lines) is an error naming it: it is almost always the wrong file."""
    from allennlp_longent.linking.knowledge_base import read_entities

    read = {path: read_entities(path) for path in files}
    empty = [describe(path) for path, pairs in read.items() if not pairs]
    if empty:
        raise CommandError(f"entity file holds no entity: {', '.join(empty)}")
    return [pair for pairs in read.values() for pair in pairs]


def add_retriever_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--retriever", choices=RETRIEVERS, default="bm25",
                        help="candidate generator: BM25, dense vectors, or both fused (RRF)")
    parser.add_argument("--encoder", help="dense/hybrid: a bi_encoder archive or a "
                        "sentence-transformers checkpoint folder (vectors stored with the index)")
    parser.add_argument("--max-length", type=int, default=256,
                        help="dense/hybrid: word pieces per entity")
    parser.add_argument("--mention-length", type=int, default=16,
                        help="dense/hybrid: word pieces of the window around a mention")
    parser.add_argument("--ann-threshold", type=int,
                        help="dense/hybrid: search an HNSW graph (faiss-cpu) from this many "
                             "entities on (default: always exact)")


def generator_from_args(args: argparse.Namespace, **bm25: float) -> "CandidateGenerator":
    return make_generator(args.retriever, args.encoder, args.max_length, args.mention_length,
                          getattr(args, "ann_threshold", None), **bm25)


def make_generator(retriever: str, encoder: Optional[str] = None, max_length: int = 256,
                   mention_length: int = 16, ann_threshold: Optional[int] = None,
                   **bm25: float) -> "CandidateGenerator":
    """``bm25``, ``dense`` (needs ``encoder``) or ``hybrid`` (both, fused by reciprocal rank)."""
    from allennlp_longent.linking.candidates import CandidateGenerator

    if retriever not in RETRIEVERS:
        raise ValueError(f"retriever must be one of {RETRIEVERS}, got {retriever!r}")
    if retriever == "bm25":
        return CandidateGenerator.by_name("bm25")(**bm25)
    if not encoder:
        raise ValueError(f"the {retriever} retriever needs an encoder (--encoder)")
    dense = CandidateGenerator.by_name("dense")(
        encoder=encoder, max_length=max_length, mention_length=mention_length,
        ann_threshold=ann_threshold,
    )
    if retriever == "dense":
        return dense
    return CandidateGenerator.by_name("hybrid")([CandidateGenerator.by_name("bm25")(**bm25), dense])
