"""Typing metric on a hand-built batch; the typing model trains, saves and loads (smoke configs)."""

import json
from pathlib import Path

import pytest
import torch
from allennlp.common.testing import ModelTestCase
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
