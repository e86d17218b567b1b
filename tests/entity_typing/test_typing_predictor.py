"""The entity_typing predictor on an archive trained from the FIGER smoke config."""

from pathlib import Path

from allennlp.commands.train import train_model_from_file
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor

import allennlp_longent  # noqa: F401  (registers the readers, models and predictors)

CONFIG = (
    Path(__file__).resolve().parents[2]
    / "training_configs"
    / "entity_typing"
    / "figer_smoke.jsonnet"
)


def test_predictor_types_every_mention_of_a_record(tiny_luke, tmp_path):
    train_model_from_file(str(CONFIG), str(tmp_path / "run"), overrides='{"trainer.num_epochs": 1}')
    predictor = Predictor.from_archive(
        load_archive(tmp_path / "run" / "model.tar.gz"), "entity_typing"
    )
    record = {
        "tokens": ["Obama", "visited", "Boston", "."],
        "mentions": [{"start": 0, "end": 1}, {"start": 2, "end": 3}],
    }
    output = predictor.predict_json(record)
    vocabulary = set(predictor._model.vocab.get_token_to_index_vocabulary("labels"))
    assert [e["mentions"] for e in output["entities"]] == [["Obama"], ["Boston"]]
    for entity in output["entities"]:
        assert set(entity["probabilities"]) == vocabulary
        assert entity["labels"] == [k for k, p in entity["probabilities"].items() if p > 0.5]
