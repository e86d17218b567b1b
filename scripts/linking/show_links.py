"""Prints the ranked links of a trained linker for the first mentions of a zeshel mention file,
and the evaluation metrics written by ``allennlp evaluate --output-file``.

    python scripts/linking/show_links.py ARCHIVE MENTIONS.json [--limit 5] [--metrics METRICS.json]
"""

import argparse
import itertools
import json

from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor

import allennlp_longent.components  # noqa: F401  (registers the components)

METRICS = (
    ("normalized_acc_macro", "normalized accuracy (macro over worlds)"),
    ("unnormalized_acc_macro", "unnormalized accuracy (macro over worlds)"),
    ("normalized_acc_micro", "normalized accuracy (micro)"),
    ("recall_at_1", "BM25 alone (its first candidate)"),
    ("recall_at_4", "BM25 recall@4"),
    ("mentions", "mentions"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("mentions")
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--metrics", help="JSON written by allennlp evaluate --output-file")
    args = parser.parse_args()

    archive = load_archive(args.archive)
    predictor = Predictor.from_archive(archive, "cross_encoder_linker")
    instances = list(itertools.islice(predictor._dataset_reader.read(args.mentions), args.limit))
    outputs = predictor.predict_batch_instance(instances)
    for number, (instance, output) in enumerate(zip(instances, outputs), start=1):
        meta = instance["metadata"].metadata
        gold = meta["gold_document_id"]
        print(f"\n[{number}] mention {meta['mention']!r} (world {meta['world']})")
        for rank, candidate in enumerate(output["ranked"][:3], start=1):
            mark = "gold" if candidate["document_id"] == gold else ""
            print(
                f"    {rank}. {candidate['title']:<32} p={candidate['probability']:.3f} "
                f"score={candidate['score']:+.3f} {mark}"
            )
    if args.metrics:
        with open(args.metrics, encoding="utf-8") as handle:
            metrics = json.load(handle)
        print("\nTest metrics:")
        for key, label in METRICS:
            if key in metrics:
                print(f"    {label:<42} {metrics[key]:.3f}")


if __name__ == "__main__":
    main()
