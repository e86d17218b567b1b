"""Smoke training of the shipped configs with `allennlp train` semantics (tiny sizes, one epoch)."""

import json
from pathlib import Path

from allennlp.commands.train import train_model_from_file
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
from conftest import REPO_ROOT, shared_data

import allennlp_longent  # noqa: F401  (registers components, sets config defaults)

CONFIGS = REPO_ROOT / "training_configs" / "entity_nlm"


def test_inscript_smoke_config_trains_and_reports_entity_prediction(tmp_path: Path):
    data = shared_data("inscript")
    overrides = {"train_data_path": str(data / "train"), "validation_data_path": str(data / "val")}
    train_model_from_file(
        CONFIGS / "inscript_entity_prediction_smoke.jsonnet", tmp_path / "run",
        overrides=json.dumps(overrides),
    )
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    for name in ("entity_acc", "baseline_new_acc", "baseline_recent_acc", "marginal_perplexity"):
        assert 0 < metrics[f"validation_{name}"], name
    assert metrics["validation_perplexity"] > metrics["validation_word_ppl"]

    predictor = Predictor.from_archive(load_archive(str(tmp_path / "run" / "model.tar.gz")))
    out = predictor.predict_json(
        {"tokens": ["I", "took", "a", "bath", ".", "I", "liked", "it"],
         "clusters": [[[0, 0], [5, 5]], [[3, 3], [7, 7]]]}
    )
    assert [m["gold_entity"] for m in out["mentions"]] == [0, 1, 0, 1]


def test_conll_smoke_config_trains(tmp_path: Path):
    sample = str(shared_data("conll2012", "coref.gold_conll"))
    overrides = {"train_data_path": sample, "validation_data_path": sample}
    train_model_from_file(
        CONFIGS / "conll2012_lm_smoke.jsonnet", tmp_path / "run", overrides=json.dumps(overrides)
    )
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["validation_marginal_perplexity"] < metrics["validation_perplexity"]
