"""The CoNLL-2012 reader and the handling of bad input (InScript: test_inscript_tacl.py)."""

import logging
from collections import Counter
from pathlib import Path

import pytest
import torch
from conftest import FIXTURES, shared_data
from entity_nlm_helpers import batch, tiny_model

from allennlp_longent.entity_nlm.dataset_readers import EntityNlmConllReader
from allennlp_longent.entity_nlm.structure import StructureError, structure_to_clusters


def _structure(instance):
    return instance["entity_ids"].tensor.tolist(), instance["mention_lengths"].tensor.tolist()


def test_conll_fixture_keeps_outermost_and_drops_singletons(caplog):
    reader = EntityNlmConllReader()
    with caplog.at_level(logging.WARNING):
        docs = list(reader.read(FIXTURES / "entity_nlm" / "tiny.gold_conll"))
    assert len(docs) == 2
    assert reader.dropped == Counter(nested_dropped=1, singletons_dropped=1)
    assert "tiny.gold_conll: dropped 1 nested mentions (outermost kept), 1 singleton mentions" in (
        caplog.text
    )
    # blank lines end sentences: "Mary Smith met her brother ." "She gave him a book ." ...
    assert docs[0]["sentence_ids"].tensor.tolist() == [0] * 6 + [1] * 6 + [2] * 5
    ids, lengths = _structure(docs[0])
    # Mary Smith(0) met [her(0)] brother(1) . She(0) gave him(1) a book(2) . The book(2) ...
    assert ids[:12] == [0, 0, -1, 1, 1, -1, 0, -1, 1, 2, 2, -1]
    assert lengths[:5] == [2, 1, 1, 2, 1]
    assert docs[0]["metadata"]["stats"]["nested_dropped"] == 1
    ids, _ = _structure(docs[1])
    assert max(ids) == 1 and ids.count(-1) == len(ids) - 6  # "the bird" is a singleton
    assert docs[1]["metadata"]["stats"]["singletons_dropped"] == 1


def test_conll_shared_sample():
    docs = list(EntityNlmConllReader().read(shared_data("conll2012", "coref.gold_conll")))
    assert [len(d["tokens"]) for d in docs] == [65, 28, 47, 33]
    ids, lengths = _structure(docs[0])
    hong_kong = docs[0]["metadata"]["words"].index("Hong")
    assert ids[hong_kong : hong_kong + 2] == [0, 0] and lengths[hong_kong : hong_kong + 2] == [2, 1]
    assert docs[0]["metadata"]["lines"][0] == 2  # first token line of the file


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _conll_line(i: int, word: str, coref: str) -> str:
    return f"doc 0 {i} {word} XX * - - - Speaker#1 * {coref}\n"


def test_mention_longer_than_25_tokens_names_file_and_line(tmp_path):
    lines = ["#begin document (doc); part 000\n"]
    lines += [_conll_line(i, "w", "(7" if i == 1 else "7)" if i == 26 else "-") for i in range(28)]
    lines += [_conll_line(28, "it", "(7)"), "\n#end document\n"]
    path = _write(tmp_path / "long.gold_conll", "".join(lines))
    with pytest.raises(StructureError, match=r"long\.gold_conll:3: mention of 26 tokens"):
        list(EntityNlmConllReader().read(path))
    docs = list(EntityNlmConllReader(long_mentions="drop").read(path))
    assert docs[0]["metadata"]["stats"]["long_dropped"] == 1
    assert set(docs[0]["entity_ids"].tensor.tolist()) == {-1}  # "it" alone is a singleton


def test_malformed_conll_names_line(tmp_path):
    text = "#begin document (doc); part 000\n" + _conll_line(0, "a", "3)") + "#end document\n"
    with pytest.raises(StructureError, match=r"bad\.gold_conll:2: cluster 3 closed but never"):
        list(EntityNlmConllReader().read(_write(tmp_path / "bad.gold_conll", text)))
    text = "#begin document (doc); part 000\n" + _conll_line(0, "a", "(3") + "#end document\n"
    with pytest.raises(StructureError, match=r"open\.gold_conll:2: cluster 3 never closed"):
        list(EntityNlmConllReader().read(_write(tmp_path / "open.gold_conll", text)))


def test_empty_document_is_rejected():
    with pytest.raises(StructureError, match="empty document"):
        EntityNlmConllReader().text_to_instance([])


def test_out_of_order_entity_index_is_rejected_by_the_model():
    model = tiny_model()
    tensors = batch(model, [{"tokens": ["mary", "met", "her"]}])
    tensors["entity_ids"] = torch.tensor([[1, -1, 0]])
    with pytest.raises(StructureError, match="entity index 1 is out of order"):
        model(**tensors)


def test_clusters_round_trip():
    reader = EntityNlmConllReader(singletons=True)
    clusters = [[[0, 1], [4, 4]], [[2, 2]]]
    instance = reader.text_to_instance(["a", "b", "c", "d", "e"], clusters)
    assert structure_to_clusters(*_structure(instance)) == clusters
