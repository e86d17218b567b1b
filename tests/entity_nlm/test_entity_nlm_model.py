"""ModelTestCase round trip, batching consistency, §5.3 entity-prediction metrics, predictor."""

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


def test_baselines_and_model_predictions_at_targets_and_all_mentions():
    model = tiny_model()
    # entity 0 = a, mary, she; entity 1 = him, him; targets: the mentions from "mary" on
    words = ["a", ".", "b", ".", "c", ".", "mary", "met", "him", ".", "she", "saw", "him", "."]
    doc = {"tokens": words, "clusters": [[[0, 0], [6, 6], [10, 10]], [[8, 8], [12, 12]]]}
    data = batch(model, [doc])
    data["targets"] = torch.zeros_like(data["entity_ids"])
    data["targets"][0, [6, 8, 10, 12]] = 1
    out = model(**data)
    starts = out["mention_starts"][0]
    assert starts.nonzero().squeeze(1).tolist() == [0, 6, 8, 10, 12]
    assert out["new_entity"][0][starts].tolist() == [0, 1, 1, 2, 2]
    assert out["most_recent"][0][starts].tolist() == [0, 0, 0, 1, 0]
    predicted = out["predicted_entities"][0][starts]
    assert predicted[0] == 0  # with no entity yet, the only choice is a new one
    metrics = model.get_metrics(reset=True)
    assert metrics["baseline_new_acc"] == 0.25  # gold 0, 1, 0, 1 at 6, 8, 10, 12: right at 8
    assert metrics["baseline_recent_acc"] == 0.25  # right only at 6
    assert metrics["baseline_new_acc_all_mentions"] == 0.4  # and at 0
    assert metrics["baseline_recent_acc_all_mentions"] == 0.4  # and at 0 ("new" when none)
    gold = torch.tensor([0, 0, 1, 0, 1])
    correct = (predicted == gold).tolist()
    assert metrics["entity_acc"] == sum(correct[1:]) / 4
    assert metrics["entity_acc_all_mentions"] == sum(correct) / 5


def test_entity_prediction_metric_counts_targets_and_all_mentions():
    metric = EntityPredictionAccuracy()
    predicted, gold = torch.tensor([[0, 1, 0, 2]]), torch.tensor([[0, 1, 1, 2]])
    starts = torch.tensor([[True, True, True, True]])
    targets = torch.tensor([[0, 1, 1, 0]])
    new, recent = torch.tensor([[0, 1, 2, 2]]), torch.tensor([[0, 0, 1, 0]])
    shallow = torch.tensor([[0, 0, 1, 2]])
    metric(predicted, gold, starts, new, recent, targets, None, shallow)
    assert metric.get_metric(reset=True) == {
        "entity_acc": 0.5, "entity_acc_all_mentions": 0.75, "baseline_new_acc": 0.5,
        "baseline_new_acc_all_mentions": 0.75, "baseline_recent_acc": 0.5,
        "baseline_recent_acc_all_mentions": 0.5, "shallow_baseline_acc": 0.5,
        "shallow_baseline_acc_all_mentions": 0.75, "entity_acc_new": 1.0,
        "entity_acc_existing": 0.0, "num_targets": 2.0,
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
