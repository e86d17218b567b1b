"""F1 of a trained ``luke_docred`` archive on DocRED-format documents against the offset b of its
decision rule (predict r iff l_r > l_TH + b; ``relations/threshold_calibration.py``), from one
pass of logits. The ``docred_threshold`` callback does the same at the end of training;
this reads an archive trained without it, or shows a test set's curve next to the chosen offset.

Usage: ``python scripts/relations/threshold_sweep.py ARCHIVE 'dev_revised.json[450:500]'
[--low -3 --high 1 --step 0.25] [--batch-size 4]``
"""

import argparse

from allennlp.data.data_loaders import SimpleDataLoader
from allennlp.models.archival import load_archive

import allennlp_longent.components  # noqa: F401
from allennlp_longent.relations.threshold_calibration import (
    best_offset,
    offset_grid,
    sweep,
    validation_logits,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive")
    parser.add_argument("data", help="DocRED-format file, optionally FILE[START:STOP]")
    parser.add_argument("--low", type=float, default=-3.0)
    parser.add_argument("--high", type=float, default=1.0)
    parser.add_argument("--step", type=float, default=0.25)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args()
    archive = load_archive(args.archive)
    model = archive.model
    instances = list(archive.validation_dataset_reader.read(args.data))
    loader = SimpleDataLoader(instances, args.batch_size, vocab=model.vocab)
    cached = validation_logits(model, loader)
    rows = sweep(model, cached, offset_grid(args.low, args.high, args.step))
    print(f"archive's threshold_offset: {model.threshold_offset:+.2f}")
    print("| offset b | precision | recall | F1 | Ign-F1 | predicted / gold |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['threshold_offset']:+.2f} | {row['precision']:.3f} | {row['recall']:.3f} | "
              f"{row['f1']:.3f} | {row.get('ign_f1', float('nan')):.3f} | "
              f"{row['predicted_per_gold']:.2f} |")
    best = best_offset(rows)
    print(f"best on this data: b = {best['threshold_offset']:+.2f}, F1 {best['f1']:.3f}")


if __name__ == "__main__":
    main()
