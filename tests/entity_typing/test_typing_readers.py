"""Entity-typing readers on the real shared samples, the FIGER fixture and bad input."""

import json
import logging
from pathlib import Path

import pytest
from conftest import piece_starts, positions, shared_data

from allennlp_longent.entity_typing.dataset_readers import (
    DocredEntityTypingReader,
    FigerReader,
    OpenEntityReader,
)

FIGER = Path(__file__).resolve().parents[2] / "fixtures" / "entity_typing" / "figer_sample.json"


def test_open_entity_sample(tiny_luke):
    reader = OpenEntityReader(transformer_model_name=tiny_luke)
    first, second = reader.read(shared_data("formats", "open_entity_sample.json"))
    # "Web users" (characters 55-64) and "he" (69-71), word pieces counted after [CLS].
    assert first["metadata"]["mentions"] == [["Web users"]]
    assert positions(first) == [[9, 10]]
    assert positions(second) == [[17]]
    assert [f.labels for f in first["labels"]] == [["person"]]
    assert first["entity_ids"].tensor.tolist() == [1]


def test_open_entity_offsets_must_be_word_boundaries(tiny_luke, tmp_path):
    path = tmp_path / "bad.json"
    record = {"sent": "Tushar Gandhi said", "start": 1, "end": 6, "labels": ["person"]}
    path.write_text(json.dumps([record]))
    with pytest.raises(ValueError, match=r"bad.json record 0: characters \[1, 6\)"):
        list(OpenEntityReader(transformer_model_name=tiny_luke).read(str(path)))


def test_figer_fixture(tiny_luke):
    instances = list(FigerReader(transformer_model_name=tiny_luke).read(str(FIGER)))
    assert len(instances) == 8  # one per mention
    words = json.loads(FIGER.read_text().splitlines()[1])["tokens"]
    starts = piece_starts(tiny_luke, words)
    boston = instances[3]
    assert boston["metadata"]["mentions"] == [["Boston Red Sox"]]
    assert positions(boston) == [list(range(starts[1], starts[4]))]
    assert boston["labels"][0].labels == ["/organization", "/organization/sports_team"]


def test_figer_span_out_of_range_names_line(tiny_luke, tmp_path):
    path = tmp_path / "figer.json"
    record = {"tokens": ["a", "b"], "mentions": [{"start": 1, "end": 3, "labels": ["/x"]}]}
    path.write_text("\n" + json.dumps(record) + "\n")
    with pytest.raises(ValueError, match=r"figer.json:2 mention 0: mention span \[1, 3\)"):
        list(FigerReader(transformer_model_name=tiny_luke).read(str(path)))


def test_docred_typing_on_re_docred(tiny_luke):
    path = shared_data("re-docred", "dev_revised.json")
    document = json.loads(path.read_text())[0]
    reader = DocredEntityTypingReader(transformer_model_name=tiny_luke)
    (instance,) = reader.read(f"{path}[0:1]")
    vertex_set = document["vertexSet"]
    assert len(instance["entity_ids"].tensor) == len(vertex_set)
    words = [word for sentence in document["sents"] for word in sentence]
    starts = piece_starts(tiny_luke, words)
    offsets = [0]
    for sentence in document["sents"]:
        offsets.append(offsets[-1] + len(sentence))
    expected = []
    for mention in vertex_set[0]:
        begin = offsets[mention["sent_id"]] + mention["pos"][0]
        end = offsets[mention["sent_id"]] + mention["pos"][1]
        expected.extend(p for p in range(starts[begin], starts[end]) if p not in expected)
    assert positions(instance)[0] == expected
    types = [sorted({m["type"] for m in entity}) for entity in vertex_set]
    assert [f.labels for f in instance["labels"]] == types


def test_truncation_is_counted_and_logged(tiny_luke, caplog):
    path = shared_data("re-docred", "dev_revised.json")
    reader = DocredEntityTypingReader(transformer_model_name=tiny_luke, max_length=64)
    with caplog.at_level(logging.WARNING):
        instances = list(reader.read(f"{path}[0:3]"))
    documents = json.loads(path.read_text())[:3]
    kept = sum(len(i["entity_ids"].tensor) for i in instances)
    total = sum(len(d["vertexSet"]) for d in documents)
    assert kept < total
    assert all(len(i["tokens"].tokens) <= 64 for i in instances)
    assert "dropped" in caplog.text and f"{total - kept} entities" in caplog.text
    strict = DocredEntityTypingReader(
        transformer_model_name=tiny_luke, max_length=64, truncate=False
    )
    with pytest.raises(ValueError, match=r"record 0 \('Willi Schneider.*exceed max_length=64"):
        list(strict.read(str(path)))
