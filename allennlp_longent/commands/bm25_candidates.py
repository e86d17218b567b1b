"""``longent bm25-candidates``: BM25 candidate files for zeshel-format data, with recall@k."""

import argparse
from pathlib import Path
from typing import Dict, Tuple

from allennlp_longent.commands.safe_io import (
    atomic_file,
    existing_dir,
    existing_file,
    refuse_existing,
    reporting_errors,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bm25-candidates",
        help="write tfidf_candidates/<split>.json for zeshel data with a per-world BM25 index",
        description=__doc__,
    )
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
    generator = ZeshelCandidates(args.data_dir, args.top_k, args.context_words)
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
