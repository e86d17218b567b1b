"""The threshold offset of the DocRED decision rule: the rule written out, the grid and the choice,
and the ``docred_threshold`` callback end to end (the archive predicts with the offset it chose)."""

import json
from pathlib import Path

import pytest
import torch
from allennlp.commands.train import train_model_from_file
from allennlp.data import Batch
from allennlp.models.archival import load_archive
from conftest import shared_data

import allennlp_longent  # noqa: F401
from allennlp_longent.relations.threshold_calibration import (
    SWEEP_FILE,
    best_offset,
    offset_grid,
    sweep,
    validation_logits,
)

CONFIGS = Path(__file__).resolve().parents[2] / "training_configs" / "relations"


def test_offset_grid_holds_its_ends_and_zero():
    assert offset_grid(-1.0, 0.5, 0.25) == [-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5]
    assert offset_grid(-1.0, 0.2, 0.5) == [-1.0, -0.5, 0.0]
    assert offset_grid(-3.0, -2.0, 0.5) == [-3.0, -2.5, -2.0]
    with pytest.raises(ValueError):
        offset_grid(0.0, 1.0, 0.0)


def test_best_offset_takes_the_highest_f1_then_the_offset_nearest_zero():
    rows = [{"threshold_offset": b, "f1": f} for b, f in
            [(-1.0, 0.4), (-0.5, 0.5), (0.0, 0.3), (0.5, 0.5)]]
    assert best_offset(rows)["threshold_offset"] == -0.5
    rows.append({"threshold_offset": 0.25, "f1": 0.5})
    assert best_offset(rows)["threshold_offset"] == 0.25


def rule_written_out(logits, pairs, offset, top_k):
    """ATLOP's rule with the offset b: r for a real pair iff l_r > l_TH + b, among the pair's
    ``top_k`` highest relation logits."""
    chosen = set()
    for row, document in enumerate(logits.tolist()):
        for pair, scores in enumerate(document):
            if pairs[row][pair][0] < 0:
                continue
            ranked = sorted(range(1, len(scores)), key=lambda c: -scores[c])[:top_k]
            chosen.update((row, pair, c - 1) for c in ranked if scores[c] > scores[0] + offset)
    return chosen


@pytest.fixture(scope="module")
def calibrated_run(tiny_luke, tmp_path_factory):
    """The smoke config on four documents, one epoch, with the callback on a grid without 0 (so
    the archive must carry an offset other than ATLOP's)."""
    dev = str(shared_data("re-docred", "dev_revised.json"))
    run = tmp_path_factory.mktemp("threshold") / "run"
    overrides = {
        "train_data_path": dev + "[0:4]",
        "validation_data_path": dev + "[40:43]",
        "model.ign_train_file": dev + "[0:4]",
        "trainer.num_epochs": 1,
        "trainer.callbacks": [{"type": "docred_threshold", "low": -3.0, "high": -0.5, "step": 0.5}],
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LONGENT_SHARED_DATA", str(shared_data()))
        train_model_from_file(str(CONFIGS / "docred_smoke.jsonnet"), str(run),
                              overrides=json.dumps(overrides))
    return run, dev + "[40:43]"


def validation_batches(archive, data):
    instances = list(archive.validation_dataset_reader.read(data))
    batch = Batch(instances)
    batch.index_instances(archive.model.vocab)
    return [batch.as_tensor_dict()]


def margin_quantiles(logits, pairs):
    """Offsets at the quartiles of the real pairs' top margins l_r - l_TH, so that the predicted
    sets differ between them whatever the trained weights are."""
    real = pairs[..., 0] >= 0
    margins = (logits[..., 1:] - logits[..., :1])[real].flatten()
    return [margins.quantile(q).item() for q in (0.9, 0.97, 0.995)]


def test_decide_is_the_rule_written_out(calibrated_run):
    run, data = calibrated_run
    archive = load_archive(run / "model.tar.gz")
    ((logits, pairs, _),) = validation_logits(archive.model, validation_batches(archive, data))
    found = []
    for offset in [0.0, *margin_quantiles(logits, pairs)]:
        got = {tuple(x) for x in archive.model.decide(logits, pairs, offset).nonzero().tolist()}
        assert got == rule_written_out(logits, pairs.tolist(), offset, archive.model.top_k)
        found.append(got)
    assert len({frozenset(x) for x in found[1:]}) == 3  # the offsets change the decisions


def test_forward_decides_with_the_models_threshold_offset(calibrated_run):
    run, data = calibrated_run
    archive = load_archive(run / "model.tar.gz")
    model = archive.model.eval()
    cached = validation_logits(model, validation_batches(archive, data))
    offset = margin_quantiles(*cached[0][:2])[1]
    expected, at_zero = sweep(model, cached, [offset, 0.0])
    assert expected["predicted_per_gold"] < at_zero["predicted_per_gold"]
    model.threshold_offset = offset
    with torch.no_grad():
        for batch in validation_batches(archive, data):
            model(**batch)
    counted = model.get_metrics(reset=True)
    for key in ("precision", "recall", "f1", "predicted_per_gold"):
        assert counted[key] == pytest.approx(expected[key], abs=1e-12)


def test_the_callback_writes_the_best_offset_into_the_archive(calibrated_run):
    run, data = calibrated_run
    saved = json.loads((run / SWEEP_FILE).read_text())
    offsets = [row["threshold_offset"] for row in saved["sweep"]]
    assert offsets == [-3.0, -2.5, -2.0, -1.5, -1.0, -0.5]
    assert saved["chosen"] == best_offset(saved["sweep"])
    chosen = saved["chosen"]["threshold_offset"]
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["threshold_offset"] == chosen
    assert metrics["validation_calibrated_f1"] == saved["chosen"]["f1"]

    archive = load_archive(run / "model.tar.gz")
    model = archive.model.eval()
    assert model.threshold_offset == chosen != 0.0
    # At b = 0 the sweep recounts what the trainer validated with (ATLOP's rule, same weights).
    cached = validation_logits(model, validation_batches(archive, data))
    (at_zero,) = sweep(model, cached, [0.0])
    for key in ("precision", "recall", "f1"):
        assert at_zero[key] == pytest.approx(metrics[f"best_validation_{key}"], abs=1e-12)
