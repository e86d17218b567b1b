"""ModelTestCase round trip, batching consistency, entity-prediction metrics and the predictor."""

import json
import tarfile

import torch
from allennlp.common.testing import ModelTestCase
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
from conftest import FIXTURES
from entity_nlm_helpers import batch, tiny_model

from allennlp_longent.entity_nlm.metrics import EntityPredictionAccuracy

CONFIG = FIXTURES / "entity_nlm" / "experiment.jsonnet"
DATA = FIXTURES / "entity_nlm" / "tiny.gold_conll"
OVERRIDES = json.dumps({"train_data_path": str(DATA), "validation_data_path": str(DATA)})


class TestEntityNlmModel(ModelTestCase):
    def setup_method(self):
        super().setup_method()
        self.set_up_model(CONFIG, DATA, seed=0)

    def test_train_save_load_round_trip(self):
        self.ensure_model_can_train_save_and_load(CONFIG, overrides=OVERRIDES, seed=0)

    def test_batch_predictions_are_consistent(self):
        self.ensure_batch_predictions_are_consistent(keys_to_ignore=("loss",))


def test_baselines_and_model_predictions_on_a_known_structure():
    model = tiny_model()
    # entity ids at mention starts: 0 (new), 1 (new), 0, 1
    doc = {"tokens": ["mary", "met", "her", "she", "him"],
           "clusters": [[[0, 0], [3, 3]], [[2, 2], [4, 4]]]}
    out = model(**batch(model, [doc]))
    starts = out["mention_starts"][0]
    assert starts.tolist() == [True, False, True, True, True]
    assert out["new_entity"][0][starts].tolist() == [0, 1, 2, 2]
    assert out["most_recent"][0][starts].tolist() == [0, 0, 1, 0]
    predicted = out["predicted_entities"][0][starts]
    assert predicted[0] == 0  # with no entity yet, the only choice is a new one
    metrics = model.get_metrics(reset=True)
    assert metrics["baseline_new_acc"] == 0.5  # right on the two first mentions
    assert metrics["baseline_recent_acc"] == 0.25  # right only at t=0
    gold = torch.tensor([0, 1, 0, 1])
    assert metrics["entity_acc"] == float((predicted == gold).float().mean())


def test_entity_prediction_metric_counts_only_masked_positions():
    metric = EntityPredictionAccuracy()
    metric(torch.tensor([1, 0, 5]), torch.tensor([1, 1, 5]), torch.tensor([1, 2, 0]),
           torch.tensor([0, 1, 0]), torch.tensor([True, True, False]))
    assert metric.get_metric(reset=True) == {
        "entity_acc": 0.5, "baseline_new_acc": 0.5, "baseline_recent_acc": 0.5,
    }


def test_predictor_scores_and_reranks_structures(tmp_path):
    model = tiny_model()
    torch.save(model.state_dict(), tmp_path / "weights.th")
    model.vocab.save_to_files(tmp_path / "vocabulary")
    config = {
        "dataset_reader": {"type": "entity_nlm_conll", "singletons": True},
        "model": {"type": "entity_nlm", "embedding_dim": 4, "hidden_dim": 4},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    with tarfile.open(tmp_path / "model.tar.gz", "w:gz") as archive:
        for name in ("config.json", "weights.th", "vocabulary"):
            archive.add(tmp_path / name, arcname=name)
    predictor = Predictor.from_archive(load_archive(str(tmp_path / "model.tar.gz")))
    gold = [[[0, 0], [3, 3]], [[2, 2]]]
    candidates = [gold, [[[0, 0], [2, 2], [3, 3]]], []]
    result = predictor.predict_json(
        {"tokens": ["mary", "met", "her", "she", "."], "clusters": gold, "candidates": candidates}
    )
    assert [m["start"] for m in result["mentions"]] == [0, 2, 3]
    assert [m["gold_entity"] for m in result["mentions"]] == [0, 1, 0]
    assert result["mentions"][0]["text"] == "mary"
    scores = result["candidate_log_likelihoods"]
    assert abs(scores[0] - result["log_likelihood"]) < 1e-4
    assert result["ranking"] == sorted(range(3), key=lambda i: -scores[i])
    assert len(set(round(s, 4) for s in scores)) == 3
