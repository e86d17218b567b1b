"""Smoke training of the shipped configs with `allennlp train` semantics (tiny sizes, one epoch)."""

import json
import math
from pathlib import Path

from allennlp.commands.train import train_model_from_file
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
from conftest import REPO_ROOT, shared_data
from entity_nlm_helpers import recompute_validation_metrics

import allennlp_longent  # noqa: F401  (registers components, sets config defaults)

CONFIGS = REPO_ROOT / "training_configs" / "entity_nlm"


def _check_against_recomputed(run: Path, names) -> dict:
    metrics = json.loads((run / "metrics.json").read_text())
    again = recompute_validation_metrics(str(run / "model.tar.gz"))
    for name in names:
        assert math.isclose(metrics[f"validation_{name}"], again[name], rel_tol=1e-4), name
    return metrics


def test_inscript_tacl_smoke_config_trains_and_reports_entity_prediction(tmp_path: Path):
    data = shared_data("inscript_tacl")
    overrides = {"train_data_path": str(data / "train"), "validation_data_path": str(data / "dev"),
                 "validation_dataset_reader.targets_file": str(data / "dev_targets.json")}
    train_model_from_file(
        CONFIGS / "inscript_tacl_smoke.jsonnet", tmp_path / "run", overrides=json.dumps(overrides),
    )
    metrics = _check_against_recomputed(tmp_path / "run", ("perplexity", "word_ppl", "entity_acc"))
    for name in ("baseline_new_acc", "baseline_recent_acc", "shallow_baseline_acc",
                 "marginal_perplexity", "num_targets"):
        assert f"validation_{name}" in metrics, name
    assert "validation_human_majority_acc" not in metrics  # dev targets carry no guesses

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
    # the marginal itself is checked against exact enumeration in test_entity_nlm_marginal.py
    _check_against_recomputed(tmp_path / "run", ("perplexity", "word_ppl"))
