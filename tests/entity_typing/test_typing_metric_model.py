"""Typing metric on a hand-built batch; the typing model trains, saves and loads (smoke configs)."""

import json
from pathlib import Path

import pytest
import torch
from allennlp.commands.train import train_model_from_file
from allennlp.common.testing import ModelTestCase
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
from conftest import shared_data

from allennlp_longent.entity_typing.metrics import EntityTypingMetric

# With entity-token features the last layer's word outputs are unused, so its word queries
# (word-to-word and word-to-entity) get no gradient; every other parameter must.
LAST_LAYER_WORD_QUERIES = {
    f"embedder.encoder.luke.encoder.layer.1.attention.self.{name}.{kind}"
    for name in ("query", "w2e_query")
    for kind in ("weight", "bias")
}
CONFIGS = Path(__file__).resolve().parents[2] / "training_configs" / "entity_typing"


def test_loose_micro_and_strict_accuracy_by_hand():
    # labels a, b, c; entity 4 is padding and must not count.
    predictions = torch.tensor([[[1, 1, 0], [0, 0, 1]], [[0, 0, 0], [1, 1, 1]]])
    gold = torch.tensor([[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 0, 0]]])
    mask = torch.tensor([[1, 1], [1, 0]])
    metric = EntityTypingMetric()
    metric(predictions, gold, mask)
    # correct = 1 + 1 + 0, predicted = 2 + 1 + 0, gold = 1 + 1 + 1; exact: only entity 2.
    values = metric.get_metric(reset=True)
    assert values["precision"] == pytest.approx(2 / 3)
    assert values["recall"] == pytest.approx(2 / 3)
    assert values["f1"] == pytest.approx(2 / 3)
    assert values["strict_accuracy"] == pytest.approx(1 / 3)
    metric(predictions[:1, :1], gold[:1, :1])  # pred {a, b}, gold {a}
    values = metric.get_metric()
    assert (values["precision"], values["recall"], values["strict_accuracy"]) == (0.5, 1.0, 0.0)
    assert values["f1"] == pytest.approx(2 * 0.5 / 1.5)


def test_single_label_accuracy_over_entities_and_mentions_by_hand():
    # labels a, b, c; entity 4 is padding. Top types: b, c, a (and c for the padding).
    scores = torch.tensor([[[0.2, 0.7, 0.1], [0.1, 0.3, 0.6]], [[0.9, 0.05, 0.05], [0, 0, 1.0]]])
    gold = torch.tensor([[[0, 1, 0], [1, 0, 0]], [[1, 0, 1], [0, 0, 1]]])
    # entity 1: 3 mentions typed b; entity 2: 1 a; entity 3: 1 a and 2 c; padding: 5 c
    counts = torch.tensor([[[0, 3, 0], [1, 0, 0]], [[1, 0, 2], [0, 0, 5]]])
    mask = torch.tensor([[1, 1], [1, 0]])
    metric = EntityTypingMetric()
    metric(scores > 0.5, gold, mask, scores, counts)
    values = metric.get_metric(reset=True)
    # entities: b in {b}, c not in {a}, a in {a, c} -> 2 / 3; mentions: 3 + 0 + 1 of 3 + 1 + 3
    assert values["accuracy"] == pytest.approx(2 / 3)
    assert values["mention_accuracy"] == pytest.approx(4 / 7)
    metric(scores > 0.5, gold, mask)
    assert "accuracy" not in metric.get_metric(reset=True)
    with pytest.raises(ValueError, match="mention_counts needs scores"):
        metric(scores > 0.5, gold, mask, None, counts)


class TestLukeEntityTyping(ModelTestCase):
    @pytest.fixture(autouse=True)
    def _env(self, tiny_luke, monkeypatch):
        monkeypatch.setenv("LONGENT_SHARED_DATA", str(shared_data()))

    def test_figer_smoke_config_trains_saves_and_loads(self):
        config = CONFIGS / "figer_smoke.jsonnet"
        self.set_up_model(config, Path(__file__).resolve().parents[2] / "fixtures"
                          / "entity_typing" / "figer_sample.json")
        self.ensure_model_can_train_save_and_load(
            config,
            overrides='{"trainer.num_epochs": 1}',
            gradients_to_ignore=LAST_LAYER_WORD_QUERIES,
        )
        self.ensure_batch_predictions_are_consistent()

    def test_docred_typing_smoke_config_trains_saves_and_loads(self):
        config = CONFIGS / "docred_typing_smoke.jsonnet"
        dev = str(shared_data("re-docred", "dev_revised.json"))
        self.set_up_model(config, dev + "[0:3]")
        small = json.dumps(
            {
                "train_data_path": dev + "[0:3]",
                "validation_data_path": dev + "[40:42]",
                "trainer.num_epochs": 1,
            }
        )
        self.ensure_model_can_train_save_and_load(
            config, overrides=small, gradients_to_ignore=LAST_LAYER_WORD_QUERIES
        )


def test_docred_typing_accuracies_equal_those_recounted_from_predictions(
    tiny_luke, tmp_path, monkeypatch
):
    """The validation accuracies of a smoke run, recounted from the predictor's probabilities on
    the same documents against the data file's mention types."""
    dev = shared_data("re-docred", "dev_revised.json")
    overrides = {"train_data_path": f"{dev}[0:3]", "validation_data_path": f"{dev}[40:42]",
                 "trainer.num_epochs": 1}
    monkeypatch.setenv("LONGENT_SHARED_DATA", str(shared_data()))
    train_model_from_file(str(CONFIGS / "docred_typing_smoke.jsonnet"), str(tmp_path / "run"),
                          overrides=json.dumps(overrides))
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    predictor = Predictor.from_archive(load_archive(tmp_path / "run" / "model.tar.gz"),
                                       "entity_typing")
    entities = mentions = entity_right = mention_right = 0
    for document in json.loads(dev.read_text())[40:42]:
        for entity in predictor.predict_json(document)["entities"]:
            top = max(entity["probabilities"], key=entity["probabilities"].get)
            types = [m["type"] for m in document["vertexSet"][entity["entity"]]]
            entities += 1
            entity_right += top in types
            mentions += len(types)
            mention_right += types.count(top)
    assert entities > 20
    assert metrics["validation_accuracy"] == pytest.approx(entity_right / entities, abs=1e-9)
    assert metrics["validation_mention_accuracy"] == pytest.approx(mention_right / mentions,
                                                                   abs=1e-9)
