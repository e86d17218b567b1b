"""Does reading 1024 positions help? (Yao et al. 2020's claim, issue 19 item 6.)

Runs one trained ``cross_encoder_ranker`` archive over the same (mention, 4 candidates) lists
with pairs cut to 512 and to 1024 word pieces, and compares them per mention on two buckets:
mentions whose deciding fact is in the 1024-piece pair but not in the 512-piece one (the
late-fact worlds of ``zeshel_demo_extra``, written with ``make_zeshel_demo.py --extra-worlds N
--late``, where every description opens with ~300 pieces of background), and the rest (the demo
data, whose facts sit early). Accuracy is the cross-encoder's alone with the gold inserted among
the candidates (normalized); each with its count and 95 % Wilson interval, and a one-sided sign
test on the mentions where 512 and 1024 disagree.

    python scripts/linking/long_context_eval.py ARCHIVE --data DIR --split train --worlds late \
        --data fixtures/zeshel_demo --split test --candidates runs/.../candidates
"""

import argparse
import copy
import sys
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "demo_data"))
from make_zeshel_demo import build_worlds  # noqa: E402
from zeshel_demo_extra import late_fact_worlds  # noqa: E402
from zeshel_demo_windows import fact_in_pair  # noqa: E402

import allennlp_longent.components  # noqa: E402,F401
from allennlp_longent.linking.cascade import paired_sign_test  # noqa: E402
from allennlp_longent.linking.evaluation import count_cell  # noqa: E402


def correct_by_mention(model, reader, path: Path, batch_size: int, limit: int
                       ) -> Dict[str, bool]:
    import itertools

    import torch

    instances = list(itertools.islice(reader.read(str(path)), limit))
    results = {}
    with torch.no_grad():
        for start in range(0, len(instances), batch_size):
            batch = instances[start : start + batch_size]
            for instance, output in zip(batch, model.forward_on_instances(batch)):
                scores = output["scores"][: len(instance["metadata"]["candidate_ids"])]
                label = int(instance["label"].tensor)
                results[instance["metadata"]["mention_id"]] = int(scores.argmax()) == label
    return results


def row(name: str, ids: List[str], short: Dict[str, bool], long: Dict[str, bool]) -> str:
    n = len(ids)
    if n == 0:
        return f"| {name} | 0 | | | |"
    cells = [count_cell(sum(result[i] for i in ids), n) for result in (short, long)]
    seen = paired_sign_test([long[i] for i in ids], [short[i] for i in ids])
    return (f"| {name} | {n} | {cells[0]} | {cells[1]} | +{seen['fixed']} / -{seen['broken']}, "
            f"p = {seen['p_value']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("--late", type=Path, required=True,
                        help="folder written by make_zeshel_demo.py --extra-worlds N --late")
    parser.add_argument("--late-worlds", type=int, nargs=2, default=(2, 60),
                        metavar=("WORLDS", "MENTIONS"), help="what --late was written with")
    parser.add_argument("--demo", type=Path, default=Path("fixtures/zeshel_demo"))
    parser.add_argument("--demo-split", default="test")
    parser.add_argument("--demo-candidates", type=Path, required=True)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--limit", type=int, help="only the first N mentions of each set")
    args = parser.parse_args()
    from allennlp.data import DatasetReader
    from allennlp.models.archival import load_archive

    archive = load_archive(args.archive)
    model = archive.model.eval()
    base = archive.config.duplicate().as_dict()["validation_dataset_reader"]

    def reader(max_length: int, candidates: Path):
        from allennlp.common import Params

        params = copy.deepcopy(base)
        params.update(max_length=max_length, top_k=4, missing_gold="insert",
                      candidates_dir=str(candidates))
        return DatasetReader.from_params(Params(params))

    sets = {
        "late": (args.late / "mentions" / "train.json", args.late / "tfidf_candidates",
                 late_fact_worlds(*args.late_worlds)),
        "demo": (args.demo / "mentions" / f"{args.demo_split}.json", args.demo_candidates,
                 [w for w in build_worlds() if w.names.split == args.demo_split]),
    }
    results = {length: {} for length in (512, 1024)}
    beyond, rest = [], []
    for path, candidates, worlds in sets.values():
        for length in (512, 1024):
            results[length].update(correct_by_mention(model, reader(length, candidates), path,
                                                      args.batch_size, args.limit))
        probe = {length: reader(length, candidates) for length in (512, 1024)}
        for world in worlds:
            for mention in world.mentions:
                if mention.mention_id not in results[512]:
                    continue
                inside = {length: all(fact_in_pair(r, world, mention))
                          for length, r in probe.items()}
                bucket = beyond if inside[1024] and not inside[512] else rest
                bucket.append(mention.mention_id)
    print("| mentions | n | 512 pieces | 1024 pieces | 1024 vs 512 (sign test) |")
    print("|---|---|---|---|---|")
    print(row("deciding fact beyond 512 pieces", beyond, results[512], results[1024]))
    print(row("the rest", rest, results[512], results[1024]))


if __name__ == "__main__":
    main()
