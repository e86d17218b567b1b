"""The cross-encoder's learning curve: held-apart accuracy against training mentions.

Reads the ``metrics_epoch_*.json`` of an ``allennlp train`` run of
``training_configs/zeshel/curve_minilm.jsonnet`` (each "epoch" is ``batches_per_epoch`` new
batches, so epoch e's model has seen (e + 1) × batches × batch size mentions once) and prints, per
epoch, the cross-encoder's accuracy alone on the validation world's first-stage candidates with
its count and 95 % Wilson interval, beside the baselines on the same candidates: chance among
them and the first stage's own first candidate.

    python scripts/linking/cross_encoder_curve.py RUN_DIR --candidates DIR [--data
    fixtures/zeshel_demo]
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from allennlp_longent.linking.documents import read_json_lines  # noqa: E402
from allennlp_longent.linking.evaluation import count_cell as cell  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--candidates", type=Path, required=True,
                        help="the validation candidates the run read (first stage order)")
    parser.add_argument("--data", type=Path, default=Path("fixtures/zeshel_demo"))
    parser.add_argument("--split", default="val")
    args = parser.parse_args()
    config = json.loads((args.run_dir / "config.json").read_text())
    loader = config["data_loader"]
    per_epoch = loader["batches_per_epoch"] * loader["batch_size"]
    top_k = config["validation_dataset_reader"]["top_k"]
    golds = {m["mention_id"]: m["label_document_id"]
             for _, m in read_json_lines(args.data / "mentions" / f"{args.split}.json")}
    lists = {r["mention_id"]: r["tfidf_candidates"][:top_k]
             for _, r in read_json_lines(args.candidates / f"{args.split}.json")}
    total = len(golds)
    chance = sum(1 / len(lists[m]) for m in golds if golds[m] in lists[m])
    first = sum(lists[m][0] == golds[m] for m in golds)
    inside = sum(golds[m] in lists[m] for m in golds)
    print(f"{args.split}: {total} mentions, gold among the first {top_k} candidates for {inside}")
    print("| training mentions | cross-encoder alone @1 (95 % Wilson) | training loss |")
    print("|---|---|---|")
    epochs = sorted(args.run_dir.glob("metrics_epoch_*.json"),
                    key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    for path in epochs:
        metrics = json.loads(path.read_text())
        mentions = int(round(metrics["validation_mentions"]))
        hits = int(round(metrics["validation_unnormalized_acc_micro"] * mentions))
        seen = (metrics["epoch"] + 1) * per_epoch
        print(f"| {seen} | {cell(hits, mentions)} | {metrics['training_loss']:.3f} |")
    print(f"| baseline: chance among the {top_k} candidates | "
          f"{chance:.1f}/{total} = {chance / total:.3f} | |")
    print(f"| baseline: first stage @1 (same candidates) | {cell(first, total)} | |")


if __name__ == "__main__":
    main()
