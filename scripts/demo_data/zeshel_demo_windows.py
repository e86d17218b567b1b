"""Does the cross-encoder's input hold what decides a demo mention?

For each mention of the demo worlds (rebuilt by ``make_zeshel_demo.build_worlds``, which knows
the fact each clue quotes), builds the reader's (mention, gold) pair at each ``max_length`` and
``context_share`` and counts the pairs whose context side holds the clue's fact and whose
description side holds the same fact, as word pieces. A cross-encoder can only match the two when
both are in its input.

    python scripts/demo_data/zeshel_demo_windows.py MODEL [--lengths 192 256 512 1024] [--shares
    0.5]
        [--late WORLDS MENTIONS]   # the late-fact worlds of zeshel_demo_extra instead
"""

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_zeshel_demo import Mention, World, build_worlds  # noqa: E402
from zeshel_demo_extra import late_fact_worlds  # noqa: E402

from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader  # noqa: E402
from allennlp_longent.modules.extended_transformer import (  # noqa: E402
    ExtendedPretrainedTransformerTokenizer,
)


def contains(sequence: Sequence[int], part: Sequence[int]) -> bool:
    width, part = len(part), list(part)
    return any(list(sequence[i : i + width]) == part for i in range(len(sequence) - width + 1))


def fact_in_pair(reader: ZeshelReader, world: World, mention: Mention) -> Tuple[bool, bool]:
    """Whether the (mention, gold) pair holds the clue's fact on its context side and on its
    description side."""
    pieces = reader.pieces(mention.context.document_id, world.texts[mention.context.document_id])
    gold = mention.gold
    document = {"document_id": gold.document_id, "title": gold.title,
                "text": world.texts[gold.document_id]}
    context_ids, entity_ids = reader._split_budget(
        pieces, mention.start, mention.end, reader._entity_ids(document))
    fact = reader.tokenize_words(mention.fact.split()).ids
    return contains(context_ids, fact), contains(entity_ids, fact)


def window_counts(model: str, max_length: int, share: float, splits: Sequence[str],
                  worlds: List[World]) -> Dict:
    """split -> counts of pairs with the fact in the context side / description side / both."""
    reader = ZeshelReader(ExtendedPretrainedTransformerTokenizer(model, max_length=1024),
                          max_length=max_length, context_share=share)
    counts: Dict[str, Dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for world in worlds:
        if world.names.split not in splits:
            continue
        for mention in world.mentions:
            in_context, in_entity = fact_in_pair(reader, world, mention)
            row = counts[world.names.split]
            row["mentions"] += 1
            row["context"] += in_context
            row["description"] += in_entity
            row["both"] += in_context and in_entity
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--lengths", type=int, nargs="+", default=[128, 192, 256, 512, 1024])
    parser.add_argument("--shares", type=float, nargs="+", default=[0.5])
    parser.add_argument("--splits", nargs="+", default=["train", "val", "test"])
    parser.add_argument("--late", type=int, nargs=2, metavar=("WORLDS", "MENTIONS"),
                        help="count the late-fact worlds of zeshel_demo_extra instead")
    args = parser.parse_args()
    worlds = late_fact_worlds(*args.late) if args.late else build_worlds()
    print("| max_length | context share | split | mentions | clue in context | fact in "
          "description | both |")
    print("|---|---|---|---|---|---|---|")
    for length in args.lengths:
        for share in args.shares:
            for split, row in window_counts(args.model, length, share, args.splits,
                                                    worlds).items():
                cells: List[str] = [f"{row[key]} ({row[key] / row['mentions']:.2f})"
                                    for key in ("context", "description", "both")]
                print(f"| {length} | {share} | {split} | {row['mentions']} | "
                      + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
