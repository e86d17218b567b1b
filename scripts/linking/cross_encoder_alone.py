"""The cross-encoder alone @1 on given candidate lists, for choosing a re-ranker's recipe.

Ranks each mention's first ``--top-k`` candidates (the first stage's, as the cascade re-ranks
them) with a trained ``cross_encoder_ranker`` archive and prints, per mentions file and in
total, how many it ranks right at 1 with the 95 % Wilson interval; a gold outside the list counts
as wrong (unnormalized, as in the cascade). Beside it: the list's own first candidate, chance
among the candidates and how often the gold is among them. ``--save`` writes each mention's
result; ``--against`` compares with such a file of another run on the same mentions (mentions
only this run gets right, only the other gets right, one-sided sign test each way); ``--scores``
writes each mention's candidates with the cross-encoder's score of each, to see what a run reads.

    python scripts/linking/cross_encoder_alone.py ARCHIVE fixtures/zeshel_demo/mentions/val.json \
        fixtures/zeshel_demo/mentions/train.json --candidates runs/base/candidates \
        [--save runs/x/alone.json] [--against runs/y/alone.json] [--scores runs/x/scores.jsonl]
"""

import argparse
import json
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import allennlp_longent.components  # noqa: F401
from allennlp_longent.linking.cascade import sign_test
from allennlp_longent.linking.evaluation import wilson

# per mention: (mentions file name, gold id, the cross-encoder's first, the list's first, list size,
# gold in the list)
Ranked = Dict[str, Tuple[str, str, Optional[str], Optional[str], int, bool]]


def rank_alone(archive_path: str, mentions: List[Path], candidates: Path, top_k: int = 4,
               batch_size: int = 8, max_length: Optional[int] = None,
               scores: Optional[Dict[str, dict]] = None) -> Ranked:
    """The archive's first choice among each mention's ``top_k`` candidates of ``candidates``;
    ``scores``, if given, receives per mention its gold, candidate ids and their scores."""
    import torch
    from allennlp.common import Params
    from allennlp.data import DatasetReader
    from allennlp.models.archival import load_archive

    archive = load_archive(archive_path)
    model = archive.model.eval()
    params = archive.config.duplicate().as_dict()["validation_dataset_reader"]
    params.update(top_k=top_k, missing_gold="keep", candidates_dir=str(candidates))
    if max_length is not None:
        params["max_length"] = max_length
    reader = DatasetReader.from_params(Params(params))
    ranked: Ranked = {}
    for path in mentions:
        instances = list(reader.read(str(path)))
        with torch.no_grad():
            for start in range(0, len(instances), batch_size):
                batch = instances[start : start + batch_size]
                for instance, output in zip(batch, model.forward_on_instances(batch)):
                    meta = instance["metadata"].metadata
                    ids = meta["candidate_ids"]
                    ranked[meta["mention_id"]] = (
                        path.name, meta["gold_document_id"], output["predicted_document_id"],
                        ids[0] if ids else None, len(ids), meta["gold_document_id"] in ids)
                    if scores is not None:
                        scores[meta["mention_id"]] = {
                            "gold": meta["gold_document_id"], "candidates": list(ids),
                            "scores": [round(float(x), 4) for x in output["scores"][:len(ids)]]}
    return ranked


def cell(hits: float, total: int) -> str:
    low, high = wilson(round(hits), total)
    return f"{hits:g}/{total} = {hits / total:.3f} [{low:.3f}, {high:.3f}]"


def summary(ranked: Ranked) -> List[str]:
    """Markdown rows per mentions file and in total."""
    groups: Dict[str, List[tuple]] = {}
    for row in ranked.values():
        groups.setdefault(row[0], []).append(row)
    if len(groups) > 1:
        groups["all"] = list(ranked.values())
    lines = ["| mentions | n | cross-encoder alone @1 | the list's first @1 | chance "
             "| gold in list |", "|---|---|---|---|---|---|"]
    for name, rows in groups.items():
        n = len(rows)
        alone = sum(gold == first for _, gold, first, _, _, _ in rows)
        listed = sum(gold == top for _, gold, _, top, _, _ in rows)
        chance = sum(1 / size for *_, size, inside in rows if inside)
        inside = sum(row[5] for row in rows)
        lines.append(f"| {name} | {n} | {cell(alone, n)} | {cell(listed, n)} | "
                     f"{chance:.1f} | {inside} |")
    return lines


def compare(ours: Dict[str, bool], theirs: Dict[str, bool]) -> str:
    if set(ours) != set(theirs):
        raise SystemExit("--against holds other mentions than this run")
    better = sum(ours[m] and not theirs[m] for m in ours)
    worse = sum(theirs[m] and not ours[m] for m in ours)
    return (f"against the other run: right only here {better}, right only there {worse}; "
            f"sign test p(here better) = {sign_test(better, worse):.3f}, "
            f"p(there better) = {sign_test(worse, better):.3f}")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("mentions", type=Path, nargs="+")
    parser.add_argument("--candidates", type=Path, required=True,
                        help="folder of <mentions file name> candidate lists (first stage order)")
    parser.add_argument("--top-k", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-length", type=int, help="pair length (default: the archive's)")
    parser.add_argument("--save", type=Path, help="write {mention id: right} here")
    parser.add_argument("--against", type=Path, help="a --save file of another run")
    parser.add_argument("--scores", type=Path,
                        help="write one JSON line per mention: its gold, candidates and scores")
    args = parser.parse_args(argv)
    scores: Optional[Dict[str, dict]] = {} if args.scores else None
    ranked = rank_alone(args.archive, args.mentions, args.candidates, args.top_k,
                        args.batch_size, args.max_length, scores)
    print("\n".join(summary(ranked)))
    right = {m: row[1] == row[2] for m, row in ranked.items()}
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(right, indent=0, sort_keys=True) + "\n")
    if args.scores:
        args.scores.parent.mkdir(parents=True, exist_ok=True)
        with args.scores.open("w", encoding="utf-8") as out:
            for mention, row in scores.items():
                out.write(json.dumps({"mention_id": mention, **row}) + "\n")
    if args.against:
        print(compare(right, json.loads(args.against.read_text())))


if __name__ == "__main__":
    main()
