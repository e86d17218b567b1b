"""TACRED and DocRED readers on the real shared data and on bad input."""

import json
import logging

import pytest
from conftest import piece_starts, positions, shared_data

from allennlp_longent.relations.dataset_readers import DocredReader, TacredReader


def test_tacred_sample(tiny_luke):
    path = shared_data("formats", "tacred_sample.json")
    instances = list(TacredReader(transformer_model_name=tiny_luke).read(str(path)))
    labels = [i["label"].label for i in instances]
    assert labels == ["per:title", "no_relation", "per:city_of_death"]
    first = instances[0]
    assert first["entity_ids"].tensor.tolist() == [1, 2]  # head [MASK], tail [MASK2]
    assert (first["metadata"]["head"], first["metadata"]["tail"]) == ("Douglas Flint", "chairman")
    starts = piece_starts(tiny_luke, json.loads(path.read_text())[0]["token"])
    assert positions(first) == [list(range(starts[8], starts[10])), [starts[12]]]


def test_tacred_bad_input_names_the_record(tiny_luke, tmp_path):
    record = json.loads(shared_data("formats", "tacred_sample.json").read_text())[0]
    path = tmp_path / "tacred.json"
    path.write_text(json.dumps([record]))
    reader = TacredReader(transformer_model_name=tiny_luke, relation_labels=["no_relation"])
    with pytest.raises(ValueError, match=r"tacred.json record 0 .*unknown relation label 'per:t"):
        list(reader.read(str(path)))
    path.write_text(json.dumps([dict(record, obj_end=99)]))
    with pytest.raises(ValueError, match=r"record 0 .*mention span \[12, 100\) is out of range"):
        list(TacredReader(transformer_model_name=tiny_luke).read(str(path)))


def test_docred_pairs_and_labels_on_re_docred(tiny_luke):
    path = shared_data("re-docred", "dev_revised.json")
    document = json.loads(path.read_text())[0]
    (instance,) = DocredReader(transformer_model_name=tiny_luke).read(f"{path}[0:1]")
    count = len(document["vertexSet"])
    pairs = instance["pair_indices"].tensor.tolist()
    assert len(pairs) == count * (count - 1) and all(h != t for h, t in pairs)
    gold = {(label["h"], label["t"], label["r"]) for label in document["labels"]}
    assert instance["metadata"]["gold"] == gold
    for head, tail, relation in gold:
        assert relation in instance["pair_labels"][pairs.index([head, tail])].labels
    labelled = sum(1 for field in instance["pair_labels"] if field.labels)
    assert labelled == len({(h, t) for h, t, _ in gold})


def test_docred_truncation_keeps_gold_and_logs(tiny_luke, caplog):
    path = shared_data("re-docred", "dev_revised.json")
    document = json.loads(path.read_text())[0]
    reader = DocredReader(transformer_model_name=tiny_luke, max_length=48)
    with caplog.at_level(logging.WARNING):
        (instance,) = reader.read(f"{path}[:1]")
    kept = instance["metadata"]["entities"]
    assert 2 <= len(kept) < len(document["vertexSet"])
    assert len(instance["pair_indices"].tensor) == len(kept) * (len(kept) - 1)
    assert len(instance["metadata"]["gold"]) == len(document["labels"])  # misses still count
    assert f"{len(document['vertexSet']) - len(kept)} entities past the cut" in caplog.text


def test_docred_unknown_relation_and_empty_entities(tiny_luke, tmp_path):
    document = json.loads(shared_data("re-docred", "dev_revised.json").read_text())[0]
    path = tmp_path / "docred.json"
    path.write_text(json.dumps([document]))
    reader = DocredReader(transformer_model_name=tiny_luke, relation_labels=["P17"])
    with pytest.raises(ValueError, match=r"docred.json record 0 \('Willi.*unknown relation label"):
        list(reader.read(str(path)))
    path.write_text(json.dumps([dict(document, vertexSet=[])]))
    with pytest.raises(ValueError, match=r"record 0 .*non-empty 'sents' and 'vertexSet'"):
        list(DocredReader(transformer_model_name=tiny_luke).read(str(path)))
