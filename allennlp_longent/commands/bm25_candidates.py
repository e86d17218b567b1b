"""``longent candidates`` (alias ``bm25-candidates``): candidate files for zeshel-format data from
BM25, dense or hybrid retrieval, with recall@k; ``longent retrieval-recall``: recall@1/4/16/64 of
several retrievers side by side."""

import argparse
from pathlib import Path
from typing import Dict, Tuple

from allennlp_longent.commands.kb import (
    RETRIEVERS,
    add_retriever_arguments,
    generator_from_args,
    make_generator,
)
from allennlp_longent.commands.safe_io import (
    atomic_file,
    existing_dir,
    existing_file,
    refuse_existing,
    reporting_errors,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "candidates",
        aliases=["bm25-candidates"],
        help="write tfidf_candidates/<split>.json for zeshel data with a per-world index",
        description=__doc__,
    )
    add_retriever_arguments(parser)
    parser.add_argument("data_dir", type=Path, help="holds documents/<world>.json and mentions/")
    parser.add_argument(
        "--splits", nargs="+", help="mention files to process (default: all of mentions/)"
    )
    parser.add_argument("--top-k", type=int, default=64, help="candidates per mention")
    parser.add_argument(
        "--context-words",
        type=int,
        default=0,
        help="words of the mention's context on each side added to the query",
    )
    parser.add_argument(
        "--output-dir", type=Path, help="where <split>.json go (default: DATA_DIR/tfidf_candidates)"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace existing files")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=reporting_errors(run))

    recall = subparsers.add_parser(
        "retrieval-recall",
        help="recall@1/4/16/64 of BM25, dense and hybrid retrieval on zeshel-format mentions",
    )
    recall.add_argument("data_dir", type=Path, help="holds documents/<world>.json and mentions/")
    recall.add_argument("--splits", nargs="+", default=["test"])
    recall.add_argument("--retrievers", nargs="+", choices=RETRIEVERS, default=list(RETRIEVERS))
    recall.add_argument("--encoder", help="dense/hybrid: bi_encoder archive or checkpoint folder "
                        "(default: the packaged all-MiniLM-L6-v2, untrained)")
    recall.add_argument("--max-length", type=int, default=256)
    recall.add_argument("--mention-length", type=int, default=16)
    recall.set_defaults(func=reporting_errors(run_recall))


def run(args: argparse.Namespace) -> None:
    from allennlp_longent.linking.candidates.zeshel import (
        ZeshelCandidates,
        recall_by_world,
        write_candidates,
    )

    existing_dir(args.data_dir, "zeshel data folder", "documents")
    mentions = existing_dir(args.data_dir / "mentions", "mentions folder")
    splits = args.splits or sorted(p.stem for p in mentions.glob("*.json"))
    if not splits:
        raise SystemExit(f"no mention files in {args.data_dir / 'mentions'}")
    for split in splits:
        existing_file(mentions / f"{split}.json", f"mention file of split {split!r}")
    output_dir = args.output_dir or args.data_dir / "tfidf_candidates"
    targets = {split: output_dir / f"{split}.json" for split in splits}
    refuse_existing(targets.values(), args.overwrite)
    generator = ZeshelCandidates(
        args.data_dir, args.top_k, args.context_words,
        lambda: generator_from_args(args),
    )
    for split, target in targets.items():
        with atomic_file(target) as partial:
            results = write_candidates(generator.split(split, not args.no_progress), partial)
        print(f"{target}: {len(results)} mentions")
        print(format_recall(recall_by_world(results), args.top_k))


def format_recall(recall: Dict[str, Tuple[int, int]], top_k: int) -> str:
    """A table of recall@k per world, then macro and micro averages."""
    lines = [f"{'world':<24}{'mentions':>10}{f'recall@{top_k}':>12}"]
    for world, (hits, total) in recall.items():
        lines.append(f"{world:<24}{total:>10}{hits / total:>12.4f}")
    if recall:
        macro = sum(hits / total for hits, total in recall.values()) / len(recall)
        hits = sum(hits for hits, _ in recall.values())
        total = sum(total for _, total in recall.values())
        lines.append(f"{'macro average':<24}{total:>10}{macro:>12.4f}")
        lines.append(f"{'micro average':<24}{total:>10}{hits / total:>12.4f}")
    return "\n".join(lines)


def run_recall(args: argparse.Namespace) -> None:
    from allennlp_longent.config_defaults import packaged_minilm
    from allennlp_longent.linking.candidates.zeshel import ZeshelCandidates, recall_at_k

    existing_dir(args.data_dir, "zeshel data folder", "documents")
    encoder = args.encoder or packaged_minilm()
    for split in args.splits:
        print(f"{args.data_dir} {split}: recall@k (mentions with a gold)")
        print(f"{'retriever':<10}" + "".join(f"{f'@{k}':>14}" for k in (1, 4, 16, 64)))
        for retriever in args.retrievers:
            generator = ZeshelCandidates(
                args.data_dir, 64, 0, lambda r=retriever: make_generator(
                    r, encoder, args.max_length, args.mention_length
                ),
            )
            recall = recall_at_k(generator.split(split, progress=False))
            cells = "".join(f"{f'{h}/{n} {h / max(n, 1):.3f}':>14}" for h, n in recall.values())
            print(f"{retriever:<10}{cells}")
