"""The §5.3 shallow-feature baseline: its features on a known history, training, save and load."""

import json
import math

import torch
from allennlp.common.testing import ModelTestCase
from conftest import FIXTURES
from entity_nlm_helpers import batch, tiny_model

from allennlp_longent.entity_nlm.models import ShallowEntityBaseline
from allennlp_longent.entity_nlm.models.shallow_baseline import candidate_features

CONFIG = FIXTURES / "entity_nlm" / "shallow_baseline.jsonnet"
DATA = FIXTURES / "entity_nlm" / "tiny.gold_conll"


class TestShallowBaseline(ModelTestCase):
    def setup_method(self):
        super().setup_method()
        self.set_up_model(CONFIG, DATA, seed=0)

    def test_train_save_load_round_trip(self):
        overrides = {"train_data_path": str(DATA), "validation_data_path": str(DATA)}
        self.ensure_model_can_train_save_and_load(CONFIG, overrides=json.dumps(overrides), seed=0)


def test_features_of_existing_and_new_candidates():
    # two entities: 0 last mentioned at token 1 (twice in all), 1 at token 4 (once); step 6
    last = torch.tensor([[1.0, 4.0, 0.0, 0.0]])
    mentions = torch.tensor([[2.0, 1.0, 0.0, 0.0]])
    features = candidate_features(last, mentions, torch.tensor([2]), step=6)
    expected = torch.tensor([[
        [math.log(5), 1 / 5, math.log(3), 0, 0, 0],
        [math.log(2), 1 / 2, math.log(2), 1, 0, 0],
        [0, 0, 0, 0, 1, math.log(3)],
        [0, 0, 0, 0, 0, 0],
    ]])
    assert torch.allclose(features, expected)


def test_weights_on_recency_alone_predict_the_most_recent_entity():
    vocab = tiny_model().vocab
    model = ShallowEntityBaseline(vocab).eval()
    with torch.no_grad():
        model.scorer.weights.weight.copy_(torch.tensor([[0.0, 0.0, 0.0, 10.0, 0.0, 0.0]]))
    words = ["a", ".", "b", ".", "c", ".", "mary", "met", "him", ".", "she", "saw", "him", "."]
    doc = {"tokens": words, "clusters": [[[0, 0], [6, 6], [10, 10]], [[8, 8], [12, 12]]]}
    out = model(**batch(model, [doc]))
    starts = out["mention_starts"][0]
    assert out["predicted_entities"][0][starts].tolist()[1:] == [0, 0, 1, 0]  # most recent
    metrics = model.get_metrics(reset=True)
    # right at 0 (the only choice) and 6, like most-recent
    assert metrics["entity_acc_all_mentions"] == metrics["baseline_recent_acc_all_mentions"] == 0.4
