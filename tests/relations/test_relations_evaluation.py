"""Per-mention entities (exactness against single-token mode), the relation schema in the
vocabulary, and evaluation that reads every record of the file it is given."""

import json
import os
from pathlib import Path

import pytest
import torch
from allennlp.commands.evaluate import evaluate_from_archive
from allennlp.commands.train import train_model_from_file
from allennlp.data import Batch, Vocabulary
from allennlp.models.archival import load_archive
from conftest import shared_data

from allennlp_longent.entity_typing.dataset_readers import DocredEntityTypingReader
from allennlp_longent.entity_typing.models.entity_typing_model import LukeEntityTyping
from allennlp_longent.modules.entity_features import (
    ConcatExtractor,
    EntityTokenExtractor,
    MentionPoolExtractor,
)
from allennlp_longent.modules.entity_fields import split_record_slice
from allennlp_longent.modules.long_luke import LongLukeEmbedder
from allennlp_longent.relations.dataset_readers import DocredReader
from allennlp_longent.relations.dataset_readers.schema import load_relation_schema
from allennlp_longent.relations.models.docred_model import LukeDocred

REPO = Path(__file__).resolve().parents[2]
SCHEMA = str(REPO / "fixtures" / "relations" / "docred_rel_info.json")
CONFIGS = REPO / "training_configs" / "relations"


def documents(*indices: int):
    data = json.loads(shared_data("re-docred", "dev_revised.json").read_text())
    return [data[i] for i in indices]


def features_model(tiny_luke, vocab, model_class, **kwargs):
    torch.manual_seed(0)
    embedder = LongLukeEmbedder(tiny_luke, num_task_entities=2, attention_window=8)
    extractor = ConcatExtractor([EntityTokenExtractor(), MentionPoolExtractor()])
    return model_class(vocab, embedder, extractor, **kwargs).eval()


def test_record_slice_in_the_path(tmp_path):
    assert split_record_slice("a/dev.json[450:500]") == ("a/dev.json", slice(450, 500))
    assert split_record_slice("dev.json[:4]") == ("dev.json", slice(None, 4))
    assert split_record_slice("dev.json") == ("dev.json", slice(None))
    odd = tmp_path / "odd[1:2]"
    odd.write_text("[]")
    assert split_record_slice(str(odd)) == (str(odd), slice(None))  # a real file name wins


def test_per_mention_tokens_and_index(tiny_luke, tmp_path):
    (document,) = documents(0)
    path = tmp_path / "doc.json"
    path.write_text(json.dumps([document]))
    single = next(iter(DocredReader(transformer_model_name=tiny_luke).read(str(path))))
    per_mention = next(
        iter(DocredReader(transformer_model_name=tiny_luke, per_mention=True).read(str(path)))
    )
    counts = [len(entity) for entity in document["vertexSet"]]
    assert max(counts) > 1
    assert len(per_mention["entity_ids"].tensor) == sum(counts)
    index = per_mention["entity_mention_index"].tensor.tolist()
    rows = [[r for r in row if r >= 0] for row in index]
    assert [len(r) for r in rows] == counts
    assert sorted(r for row in rows for r in row) == list(range(sum(counts)))
    single_positions = single["entity_position_ids"].tensor.tolist()
    mention_positions = per_mention["entity_position_ids"].tensor.tolist()
    for entity, entity_rows in enumerate(rows):
        union = [p for r in entity_rows for p in mention_positions[r] if p >= 0]
        assert sorted(set(union)) == sorted(p for p in single_positions[entity] if p >= 0)
    assert "entity_mention_index" not in single.fields


def one_mention_per_entity(tmp_path, count: int = 2) -> str:
    """Re-DocRED documents whose entities keep only their first mention (labels unchanged)."""
    kept = [dict(d, vertexSet=[entity[:1] for entity in d["vertexSet"]]) for d in documents(0, 1)]
    path = tmp_path / "first_mentions.json"
    path.write_text(json.dumps(kept[:count]))
    return str(path)


@pytest.mark.parametrize("task", ["relations", "typing"])
def test_one_mention_per_entity_per_mention_equals_single_token(tiny_luke, tmp_path, task):
    path = one_mention_per_entity(tmp_path)
    reader_class, model_class, kwargs = (
        (DocredReader, LukeDocred, {"projection_dim": 8, "block_size": 4})
        if task == "relations"
        else (DocredEntityTypingReader, LukeEntityTyping, {})
    )
    outputs = []
    for per_mention in (False, True):
        reader = reader_class(transformer_model_name=tiny_luke, per_mention=per_mention)
        instances = list(reader.read(path))
        vocab = Vocabulary.from_instances(instances)
        model = features_model(tiny_luke, vocab, model_class, **kwargs)
        batch = Batch(instances)
        batch.index_instances(vocab)
        tensors = batch.as_tensor_dict()
        with torch.no_grad():
            output = model(**tensors)
        # Padding rows (the second document has fewer entities) are not outputs of either mode.
        valid = tensors["pair_indices"][..., 0] >= 0 if task == "relations" else tensors[
            "entity_mask"
        ].bool()
        outputs.append((output["logits"][valid], output["loss"]))
    assert "entity_mention_index" in tensors and valid.sum() < valid.numel()
    assert torch.equal(outputs[0][0], outputs[1][0])
    assert torch.equal(outputs[0][1], outputs[1][1])


def test_per_mention_features_are_log_sum_exp_over_mention_tokens(tiny_luke, tmp_path):
    """ATLOP Eq. 2: e = log sum_j exp(m_j) over the mention features m_j of the entity."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(documents(0)))
    reader = DocredReader(transformer_model_name=tiny_luke, per_mention=True)
    instances = list(reader.read(str(path)))
    vocab = Vocabulary.from_instances(instances)
    model = features_model(tiny_luke, vocab, LukeDocred, projection_dim=8)
    batch = Batch(instances)
    batch.index_instances(vocab)
    tensors = batch.as_tensor_dict()
    args = [tensors[k] for k in ("tokens", "entity_ids", "entity_position_ids", "entity_mask")]
    with torch.no_grad():
        tokens, _ = model.entity_features(*args)  # every mention token on its own
        pooled, mask = model.entity_features(*args, tensors["entity_mention_index"])
    for entity, row in enumerate(tensors["entity_mention_index"][0].tolist()):
        mentions = tokens[0, [r for r in row if r >= 0]]
        expected = torch.log(torch.exp(mentions.double()).sum(0)).float()
        assert torch.allclose(pooled[0, entity], expected, atol=1e-5)
    assert mask.all()


def test_schema_labels_and_unknown_relation(tiny_luke, tmp_path):
    labels = load_relation_schema(SCHEMA)
    assert len(labels) == 96 and "P1198" in labels
    (document,) = documents(0)
    bad = dict(document, labels=document["labels"] + [{"h": 0, "t": 1, "r": "P9999"}])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([document, bad]))
    reader = DocredReader(transformer_model_name=tiny_luke, relation_schema=SCHEMA)
    message = r"bad.json record 1 \('Willi.*unknown relation label 'P9999' \(not in the relation"
    with pytest.raises(ValueError, match=message):
        list(reader.read(str(path)))
    path.write_text("[1]")
    with pytest.raises(ValueError, match="non-empty JSON object"):
        load_relation_schema(str(path))


@pytest.fixture(scope="module")
def smoke_archive(tiny_luke, tmp_path_factory):
    """The DocRED smoke config (record slices in its data paths) trained for one epoch."""
    dev = str(shared_data("re-docred", "dev_revised.json"))
    overrides = {
        "train_data_path": dev + "[0:4]",
        "validation_data_path": dev + "[40:42]",
        "model.ign_train_file": dev + "[0:4]",
        "trainer.num_epochs": 1,
    }
    directory = tmp_path_factory.mktemp("docred_smoke") / "run"
    os.environ["LONGENT_SHARED_DATA"] = str(shared_data())
    train_model_from_file(
        str(CONFIGS / "docred_smoke.jsonnet"), str(directory), overrides=json.dumps(overrides)
    )
    return directory / "model.tar.gz"


def test_evaluate_reads_all_records_and_relations_missing_from_training(smoke_archive, tmp_path):
    train = documents(0, 1, 2, 3)
    seen = {label["r"] for d in train for label in d["labels"]}
    assert "P1198" not in seen
    evaluation = documents(40, 41, 42)
    evaluation[0] = dict(evaluation[0], labels=evaluation[0]["labels"] + [
        {"h": 0, "t": 1, "r": "P1198", "evidence": []}
    ])
    path = tmp_path / "evaluation.json"
    path.write_text(json.dumps(evaluation))
    archive = load_archive(smoke_archive)
    vocab = archive.model.vocab
    assert vocab.get_vocab_size("relation_labels") == 96  # the schema, not only seen labels
    instances = list(archive.validation_dataset_reader.read(str(path)))
    assert len(instances) == len(evaluation)  # the validation slice [40:42] is not inherited
    predictions = tmp_path / "predictions.jsonl"
    metrics = evaluate_from_archive(
        str(smoke_archive), str(path), predictions_output_file=str(predictions)
    )
    # One line per batch, each with the DocRED submission of its documents.
    lines = [json.loads(line) for line in predictions.open()]
    submitted = [document for line in lines for document in line["prediction"]]
    assert [d["title"] for d in submitted] == [d["title"] for d in evaluation]
    # The metrics recounted from the submission against the file's labels.
    gold = [{(x["h"], x["t"], x["r"]) for x in d["labels"]} for d in evaluation]
    guessed = [{(x["h_idx"], x["t_idx"], x["r"]) for x in d["relations"]} for d in submitted]
    predicted = sum(map(len, guessed))
    correct = sum(len(g & p) for g, p in zip(gold, guessed))
    gold_count = sum(map(len, gold))
    assert gold_count == 1 + sum(len(d["labels"]) for d in documents(40, 41, 42))
    assert predicted > 0
    assert metrics["predicted_per_gold"] == pytest.approx(predicted / gold_count, abs=1e-12)
    assert metrics["precision"] == pytest.approx(correct / predicted, abs=1e-12)
    assert metrics["recall"] == pytest.approx(correct / gold_count, abs=1e-12)
