"""Relation models train, save and load on the smoke configs; `allennlp train` and
`allennlp predict` run end to end on Re-DocRED documents."""

import json
import subprocess
import sys
from pathlib import Path

import _jsonnet
import pytest
from allennlp.commands.train import train_model_from_file
from allennlp.common.testing import ModelTestCase
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
from conftest import shared_data

import allennlp_longent  # noqa: F401  (registers the readers and models)
from allennlp_longent.config_defaults import config_defaults

CONFIGS = Path(__file__).resolve().parents[2] / "training_configs" / "relations"


def small_docred(train: str = "[0:4]", validation: str = "[40:42]") -> str:
    """Overrides: the smoke config on a few Re-DocRED documents, one epoch."""
    dev = str(shared_data("re-docred", "dev_revised.json"))
    return json.dumps(
        {
            "train_data_path": dev + train,
            "validation_data_path": dev + validation,
            "model.ign_train_file": dev + train,
            "trainer.num_epochs": 1,
        }
    )
# TACRED uses entity tokens only, so the last layer's word queries get no gradient.
LAST_LAYER_WORD_QUERIES = {
    f"embedder.encoder.luke.encoder.layer.1.attention.self.{name}.{kind}"
    for name in ("query", "w2e_query")
    for kind in ("weight", "bias")
}


@pytest.fixture(autouse=True)
def shared_data_env(tiny_luke, monkeypatch):
    monkeypatch.setenv("LONGENT_SHARED_DATA", str(shared_data()))


class TestRelationModels(ModelTestCase):
    def test_tacred_smoke_config_trains_saves_and_loads(self):
        config = CONFIGS / "tacred_smoke.jsonnet"
        self.set_up_model(config, shared_data("formats", "tacred_sample.json"))
        self.ensure_model_can_train_save_and_load(
            config,
            overrides='{"trainer.num_epochs": 1}',
            gradients_to_ignore=LAST_LAYER_WORD_QUERIES,
        )
        self.ensure_batch_predictions_are_consistent()

    def test_docred_smoke_config_trains_saves_and_loads(self):
        config = CONFIGS / "docred_smoke.jsonnet"
        self.set_up_model(config, str(shared_data("re-docred", "dev_revised.json")) + "[0:4]")
        self.ensure_model_can_train_save_and_load(config, overrides=small_docred())
        self.ensure_batch_predictions_are_consistent(keys_to_ignore=("metadata",))

    def test_docred_smoke_config_with_context_pooling_trains_saves_and_loads(self):
        config = self.TEST_DIR / "docred_context_pooling.jsonnet"
        smoke = CONFIGS / "docred_smoke.jsonnet"
        config.write_text(f"(import '{smoke}') + {{ model+: {{ context_pooling: true }} }}")
        self.set_up_model(config, str(shared_data("re-docred", "dev_revised.json")) + "[0:4]")
        assert self.model.context_attention is not None
        self.ensure_model_can_train_save_and_load(config, overrides=small_docred())
        self.ensure_batch_predictions_are_consistent(keys_to_ignore=("metadata",))


def run(*args: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "allennlp", *args, "--include-package", "allennlp_longent"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_allennlp_train_and_predict_docred_smoke(tmp_path):
    run(
        "train",
        str(CONFIGS / "docred_smoke.jsonnet"),
        "-s",
        str(tmp_path / "run"),
        "-o",
        small_docred(),
    )
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    documents = json.loads(shared_data("re-docred", "dev_revised.json").read_text())[40:42]
    inputs = tmp_path / "documents.jsonl"
    inputs.write_text(
        "".join(
            json.dumps({k: d[k] for k in ("title", "sents", "vertexSet")}) + "\n" for d in documents
        )
    )
    run(
        "predict",
        str(tmp_path / "run" / "model.tar.gz"),
        str(inputs),
        "--predictor",
        "relation_extraction",
        "--output-file",
        str(tmp_path / "out.jsonl"),
        "--silent",
    )
    outputs = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [o["title"] for o in outputs] == [d["title"] for d in documents]
    archive = load_archive(tmp_path / "run" / "model.tar.gz")
    archive.model.eval()
    for output, document in zip(outputs, documents):
        (instance,) = archive.dataset_reader.record_to_instances(document, "test")
        logits = archive.model.forward_on_instance(instance)["logits"]
        expected = expected_relations(
            logits, instance["pair_indices"].tensor.tolist(), instance["metadata"]["entities"],
            archive.model.vocab.get_index_to_token_vocabulary("relation_labels"),
        )
        found = {(r["h_idx"], r["t_idx"], r["r"]): r["score"] for r in output["relations"]}
        assert set(found) == set(expected)
        for triple, margin in expected.items():  # float32 logits, rounded to 6 places
            assert found[triple] == pytest.approx(margin, abs=2e-6)
    # The run's validation metrics (documents 40-41, the one epoch's model) recounted from the
    # predictions against the documents' labels.
    gold = [{(x["h"], x["t"], x["r"]) for x in d["labels"]} for d in documents]
    guessed = [{(r["h_idx"], r["t_idx"], r["r"]) for r in o["relations"]} for o in outputs]
    correct = sum(len(g & p) for g, p in zip(gold, guessed))
    predicted, gold_count = sum(map(len, guessed)), sum(map(len, gold))
    assert metrics["validation_precision"] == pytest.approx(correct / predicted, abs=1e-9)
    assert metrics["validation_recall"] == pytest.approx(correct / gold_count, abs=1e-9)
    assert metrics["validation_predicted_per_gold"] == pytest.approx(predicted / gold_count,
                                                                     abs=1e-9)


def expected_relations(logits, pairs, entities, labels, top_k=4):
    """The decision rule written out: for each pair, relations whose logit beats the threshold
    class (column 0), only among the pair's ``top_k`` highest relation logits, with its margin."""
    relations = {}
    for (head, tail), row in zip(pairs, logits.tolist()):
        if head < 0:
            continue
        ranked = sorted(range(1, len(row)), key=lambda c: -row[c])[:top_k]
        for column in ranked:
            if row[column] > row[0]:
                triple = (entities[head], entities[tail], labels[column - 1])
                relations[triple] = row[column] - row[0]
    return relations


def test_relation_extraction_predictor_on_tacred(tmp_path):
    train_model_from_file(str(CONFIGS / "tacred_smoke.jsonnet"), str(tmp_path / "run"))
    predictor = Predictor.from_archive(
        load_archive(tmp_path / "run" / "model.tar.gz"), "relation_extraction"
    )
    record = json.loads(shared_data("formats", "tacred_sample.json").read_text())[2]
    record.pop("relation")
    output = predictor.predict_json(record)
    labels = {"per:title", "no_relation", "per:city_of_death"}
    assert set(output["probabilities"]) == labels
    assert output["relation"] == max(output["probabilities"], key=output["probabilities"].get)
    assert sum(output["probabilities"].values()) == pytest.approx(1.0, abs=1e-4)


def test_context_pooling_ablation_differs_from_the_recipe_in_that_one_key():
    base, variant = (
        json.loads(_jsonnet.evaluate_file(str(CONFIGS / name), ext_vars=config_defaults()))
        for name in ("redocred_minilm_cpu.jsonnet", "redocred_minilm_cpu_context_pooling.jsonnet")
    )
    assert base["model"]["context_pooling"] is False
    assert variant["model"].pop("context_pooling") is True
    base["model"].pop("context_pooling")
    assert variant == base
