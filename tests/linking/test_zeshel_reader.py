"""The ``zeshel`` reader: pair layout, budget split, DLength, candidate policies, sharding and
errors on bad input, on the real ``zeshel_tiny`` subset and on ``fixtures/linking/zeshel``."""

import json
import logging
import shutil
from pathlib import Path
from typing import Dict, List

import pytest
from allennlp.common import Params
from allennlp.common import util as allennlp_util
from allennlp.data import DatasetReader, Instance, Vocabulary
from allennlp.data.data_loaders import MultiProcessDataLoader
from allennlp.data.dataset_readers import dataset_reader as reader_module
from allennlp.data.dataset_readers.dataset_reader import DistributedInfo, WorkerInfo
from conftest import FIXTURES, shared_data, write_tiny_bert

from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader

ZESHEL = FIXTURES / "linking" / "zeshel"
TRAIN = ZESHEL / "mentions" / "train.json"


def fixture_words(root: Path = ZESHEL) -> List[str]:
    """Every word of the fixture's texts and titles (each one word piece), with "a" and "b"."""
    words = set()
    for path in (root / "documents").glob("*.json"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            words.update(record["text"].split() + record["title"].split())
    return sorted(words | {"a", "b"})  # "a" and "b": AllenNLP's tokenizer verification


@pytest.fixture(scope="module")
def fixture_bert(tmp_path_factory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("fixture_bert"), 64, fixture_words())


def make_reader(model: Path, max_length: int = 128, **kwargs) -> ZeshelReader:
    """The reader as the configs build it, from Params alone."""
    params = {
        "type": "zeshel",
        "tokenizer": {
            "type": "extended_pretrained_transformer",
            "model_name": str(model),
            "max_length": max_length,
        },
        "token_indexers": {
            "tokens": {
                "type": "extended_pretrained_transformer",
                "model_name": str(model),
                "max_length": max_length,
            }
        },
        "max_length": max_length,
        **kwargs,
    }
    return DatasetReader.from_params(Params(params))


def texts(instance: Instance) -> List[List[str]]:
    return [[token.text for token in pair.tokens] for pair in instance["pairs"].field_list]


def records(path: Path) -> List[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def documents_of(root: Path) -> Dict[str, Dict[str, dict]]:
    return {
        path.stem: {record["document_id"]: record for record in records(path)}
        for path in (root / "documents").glob("*.json")
    }


def doc(doc_id: str, words: int, title: str = "a1 page") -> dict:
    """A synthetic document over fixture words: ``a4w0 a4w1 ...`` (up to 60 words)."""
    return {
        "document_id": doc_id,
        "title": title,
        "text": " ".join(f"a4w{i}" for i in range(words)),
    }


# ----------------------------------------------------------------------------- real data


def test_real_zeshel_tiny_instances(tiny_bert_dir):
    root = shared_data("zeshel_tiny")
    train = root / "mentions" / "train.json"
    reader = make_reader(tiny_bert_dir, max_length=128, top_k=5)
    hf = reader._tokenizer.tokenizer
    instances = list(reader.read(train))
    mentions = records(train)
    candidates = {
        r["mention_id"]: r["tfidf_candidates"]
        for r in records(root / "tfidf_candidates" / "train.json")
    }
    documents = documents_of(root)
    assert len(instances) == len(mentions) == 4
    for instance, mention in zip(instances, mentions):
        world = documents[mention["corpus"]]
        ids = candidates[mention["mention_id"]]
        meta = instance["metadata"].metadata
        assert meta["mention_id"] == mention["mention_id"]
        assert meta["world"] == mention["corpus"]
        assert meta["candidate_ids"] == ids
        assert meta["candidate_titles"] == [world[i]["title"] for i in ids]
        assert meta["gold_document_id"] == mention["label_document_id"]
        assert int(instance["label"].tensor) == ids.index(mention["label_document_id"])
        # DLength: untruncated pieces of the context document and the gold description.
        context = world[mention["context_document_id"]]["text"]
        gold = world[mention["label_document_id"]]["text"]
        assert meta["dlength"] == len(hf.tokenize(context)) + len(hf.tokenize(gold))
        assert meta["dlength"] > 128
        assert len(instance["pairs"].field_list) == 5
        mention_pieces = hf.tokenize(mention["text"])
        for pair, candidate_id in zip(instance["pairs"].field_list, ids):
            tokens = [token.text for token in pair.tokens]
            assert len(tokens) == 128  # both sides are long: the budget is used in full
            first_sep = tokens.index("[SEP]")
            assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]" and tokens.count("[SEP]") == 2
            # Equal halves of 125 pieces: 62 for the context side, 63 for the candidate.
            assert first_sep - 1 == 62 and len(tokens) - first_sep - 2 == 63
            start, end = tokens.index("[unused0]"), tokens.index("[unused1]")
            assert tokens[start + 1 : end] == mention_pieces
            assert end < first_sep
            title = hf.tokenize(world[candidate_id]["title"])
            marker = tokens.index("[unused2]")
            assert tokens[first_sep + 1 : marker] == title
            description = hf.tokenize(world[candidate_id]["text"])
            assert tokens[marker + 1 : -1] == description[: 63 - len(title) - 1]
            assert [t.type_id for t in pair.tokens] == [0] * (first_sep + 1) + [1] * (
                len(tokens) - first_sep - 1
            )


def test_real_data_indexes_to_type_ids(tiny_bert_dir):
    reader = make_reader(tiny_bert_dir, max_length=96, top_k=2)
    instance = next(iter(reader.read(shared_data("zeshel_tiny", "mentions", "val.json"))))
    instance.index_fields(Vocabulary())
    tensors = instance["pairs"].as_tensor(instance["pairs"].get_padding_lengths())["tokens"]
    assert tensors["token_ids"].shape == (2, 96)
    sep = reader._tokenizer.tokenizer.sep_token_id
    for row in range(2):
        first_sep = tensors["token_ids"][row].tolist().index(sep)
        assert tensors["type_ids"][row, : first_sep + 1].eq(0).all()
        assert tensors["type_ids"][row, first_sep + 1 :].eq(1).all()


# ----------------------------------------------------------------------------- fixture data


def test_fixture_pair_layout_exact(fixture_bert):
    instance = next(iter(make_reader(fixture_bert, top_k=3).read(TRAIN)))
    a1 = [f"a1w{i}" for i in range(30)]
    expected_first = (
        ["[CLS]"] + a1[:10] + ["[unused0]", "a1w10", "a1w11", "[unused1]"] + a1[12:] + ["[SEP]"]
    )
    pairs = texts(instance)
    assert pairs[0] == expected_first + ["a3", "page", "[unused2]"] + [
        f"a3w{i}" for i in range(30)
    ] + ["[SEP]"]
    assert pairs[1][-28:] == ["a2", "page", "[unused2]"] + [f"a2w{i}" for i in range(24)] + [
        "[SEP]"
    ]
    assert int(instance["label"].tensor) == 1
    meta = instance["metadata"].metadata
    assert meta["mention"] == "a1w10 a1w11"
    assert meta["candidate_ids"] == ["A3", "A2", "A4"]
    assert meta["candidate_titles"] == ["a3 page", "a2 page", "a4 page"]
    assert meta["dlength"] == 30 + 24  # A1 context + A2 gold description


@pytest.mark.parametrize(
    "max_length, context_words, description_words, context_side, candidate_side",
    [
        (23, 40, 40, 10, 10),  # both long: budget 20 split 10 / 10
        (24, 40, 40, 10, 11),  # odd budget 21: the candidate side gets the extra piece
        (23, 4, 40, 6, 14),  # short context (4 + 2 markers) gives 4 pieces to the candidate
        (23, 40, 2, 15, 5),  # short candidate (2 title + marker + 2) gives 5 to the context
        (23, 3, 2, 5, 5),  # both short: no truncation, no padding to max_length
    ],
)
def test_budget_split(
    fixture_bert, max_length, context_words, description_words, context_side, candidate_side
):
    reader = make_reader(fixture_bert, max_length=max_length)
    context = [f"a3w{i}" for i in range(context_words)]
    mention = min(1, context_words - 1)
    instance = reader.text_to_instance(context, mention, mention, [doc("D", description_words)])
    (tokens,) = texts(instance)
    first_sep = tokens.index("[SEP]")
    assert first_sep - 1 == context_side
    assert len(tokens) - first_sep - 2 == candidate_side
    assert len(tokens) <= max_length
    assert tokens[first_sep + 1 : first_sep + 4] == ["a1", "page", "[unused2]"][:candidate_side]


@pytest.mark.parametrize(
    "start, end, left, right",
    [
        (10, 11, [f"a3w{i}" for i in (7, 8, 9)], [f"a3w{i}" for i in (12, 13, 14)]),
        (0, 0, [], [f"a3w{i}" for i in range(1, 8)]),
        (29, 29, [f"a3w{i}" for i in range(22, 29)], []),
        (5, 16, [], []),  # a mention longer than its side is cut to the side's budget
    ],
)
def test_context_window_is_centred_on_the_mention(fixture_bert, start, end, left, right):
    # max_length 23: budget 20, context side 10 = window of 10 pieces with the two markers.
    reader = make_reader(fixture_bert, max_length=23)
    context = [f"a3w{i}" for i in range(30)]
    (tokens,) = texts(reader.text_to_instance(context, start, end, [doc("D", 40)]))
    side = tokens[1 : tokens.index("[SEP]")]
    ms, me = side.index("[unused0]"), side.index("[unused1]")
    assert side[:ms] == left and side[me + 1 :] == right
    mention = context[start : end + 1]
    assert side[ms + 1 : me] == mention[: 10 - 2 - len(left) - len(right)]
    assert len(side) == 10


def test_top_k_truncates_in_candidate_file_order(fixture_bert):
    instances = list(make_reader(fixture_bert, top_k=2).read(TRAIN))
    ids = {i["metadata"]["mention_id"]: i["metadata"]["candidate_ids"] for i in instances}
    assert ids == {
        "m1": ["A3", "A2"],
        "m2": ["A5", "A1"],
        "m3": ["A1", "A2"],
        "m4": ["B3", "B2"],
        "m5": ["B1", "B3"],
        "m6": ["B2", "B3"],
    }
    assert all(len(i["pairs"].field_list) == 2 for i in instances)


@pytest.mark.parametrize(
    "policy, top_k, kept, outside, m3_candidates, m3_label, action",
    [
        ("keep", 2, 6, 1, ["A1", "A2"], -1, "kept with label -1"),
        ("drop", 2, 5, 1, None, None, "dropped"),
        ("insert", 2, 6, 1, ["A1", "A4"], 1, "given the gold"),
        ("drop", 1, 2, 4, None, None, "dropped"),
    ],
)
def test_missing_gold_policies(
    fixture_bert, caplog, policy, top_k, kept, outside, m3_candidates, m3_label, action
):
    reader = make_reader(fixture_bert, top_k=top_k, missing_gold=policy)
    with caplog.at_level(logging.INFO, logger="allennlp_longent.linking.dataset_readers.zeshel"):
        instances = {i["metadata"]["mention_id"]: i for i in reader.read(TRAIN)}
    assert len(instances) == kept
    message = f"{outside} of 6 mentions had the gold entity outside the top-{top_k} candidates"
    assert any(message in r.getMessage() and action in r.getMessage() for r in caplog.records)
    if m3_candidates is None:
        assert "m3" not in instances
    else:
        meta = instances["m3"]["metadata"].metadata
        assert meta["candidate_ids"] == m3_candidates
        assert int(instances["m3"]["label"].tensor) == m3_label
        assert meta["dlength"] == 30 + 60  # the gold description counts even when outside


def test_each_document_is_tokenized_once(fixture_bert):
    reader = make_reader(fixture_bert, top_k=3)
    calls: List[tuple] = []

    class Spy:
        def __init__(self, wrapped):
            self._wrapped = wrapped

        def __call__(self, words, *args, **kwargs):
            calls.append(tuple(words))
            return self._wrapped(words, *args, **kwargs)

        def __getattr__(self, name):
            return getattr(self._wrapped, name)

    reader._hf = Spy(reader._hf)
    list(reader.read(TRAIN))
    list(reader.read(TRAIN))  # a second pass (the next epoch) tokenizes nothing again
    worlds = documents_of(ZESHEL)
    used = set()  # documents read as text: contexts, candidates, golds
    titled = set()  # documents whose title is read: candidates
    candidates = {
        r["mention_id"]: r["tfidf_candidates"]
        for r in records(ZESHEL / "tfidf_candidates" / "train.json")
    }
    for mention in records(TRAIN):
        used.update(
            (mention["corpus"], d)
            for d in [mention["context_document_id"], mention["label_document_id"]]
        )
        used.update((mention["corpus"], d) for d in candidates[mention["mention_id"]])
        titled.update((mention["corpus"], d) for d in candidates[mention["mention_id"]])
    expected = [tuple(worlds[w][d]["text"].split()) for w, d in used] + [
        tuple(worlds[w][d]["title"].split()) for w, d in titled
    ]
    assert sorted(calls) == sorted(expected)
    assert len(calls) == len(set(calls))


# ----------------------------------------------------------------------------- sharding


def _mention_ids(instances) -> List[str]:
    return [instance["metadata"]["mention_id"] for instance in instances]


@pytest.mark.parametrize("world_size, workers", [(2, 1), (1, 2), (2, 2), (3, 1)])
def test_simulated_shards_partition_the_mentions(fixture_bert, monkeypatch, world_size, workers):
    """Distributed ranks (AllenNLP shards by ``torch.distributed``'s rank) x loader workers."""
    reader = make_reader(fixture_bert, top_k=2)
    seen: List[str] = []
    for rank in range(world_size):
        if world_size > 1:
            monkeypatch.setattr(allennlp_util, "is_distributed", lambda: True)
            monkeypatch.setattr(reader_module.dist, "get_rank", lambda rank=rank: rank)
            monkeypatch.setattr(reader_module.dist, "get_world_size", lambda: world_size)
        reader._set_distributed_info(DistributedInfo(world_size, rank))
        for worker in range(workers):
            reader._set_worker_info(WorkerInfo(workers, worker) if workers > 1 else None)
            shard = _mention_ids(reader.read(TRAIN))
            assert shard  # every shard gets something: the ranks stay in step
            seen += shard
    assert sorted(seen) == ["m1", "m2", "m3", "m4", "m5", "m6"]


def test_multi_process_loader_sees_every_instance_once(fixture_bert):
    reader = make_reader(fixture_bert, top_k=2)
    loader = MultiProcessDataLoader(reader, str(TRAIN), batch_size=1, num_workers=2)
    loader.index_with(Vocabulary())
    seen = [meta["mention_id"] for batch in loader for meta in batch["metadata"]]
    assert sorted(seen) == ["m1", "m2", "m3", "m4", "m5", "m6"]


# ----------------------------------------------------------------------------- bad input


@pytest.fixture
def data_copy(tmp_path) -> Path:
    root = tmp_path / "zeshel"
    shutil.copytree(ZESHEL, root)
    return root


def _edit_mention(root: Path, line: int, **changes) -> Path:
    path = root / "mentions" / "train.json"
    lines = path.read_text().splitlines()
    record = json.loads(lines[line - 1])
    record.update(changes)
    lines[line - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "line, changes, mention, fragment",
    [
        (1, {"context_document_id": "ZZ"}, "m1", "context document 'ZZ' not in"),
        (3, {"label_document_id": "ZZ"}, "m3", "label document 'ZZ' not in"),
        (2, {"end_index": 24}, "m2", "mention offsets [0, 24] out of range"),
        (5, {"start_index": -1}, "m5", "out of range"),
        (4, {"corpus": "gamma"}, "m4", "gamma"),
    ],
)
def test_bad_mention_names_file_line_and_mention(
    fixture_bert, data_copy, line, changes, mention, fragment
):
    path = _edit_mention(data_copy, line, **changes)
    with pytest.raises((ValueError, FileNotFoundError)) as error:
        list(make_reader(fixture_bert, top_k=3).read(path))
    message = str(error.value)
    assert f"{path}:{line}" in message
    assert repr(mention) in message
    assert fragment in message


def test_candidates_for_unknown_mention(fixture_bert, data_copy):
    path = data_copy / "tfidf_candidates" / "train.json"
    with path.open("a") as handle:
        handle.write(json.dumps({"mention_id": "mX", "tfidf_candidates": ["A1"]}) + "\n")
    with pytest.raises(ValueError) as error:
        list(make_reader(fixture_bert).read(data_copy / "mentions" / "train.json"))
    assert f"{path}:7" in str(error.value) and "unknown mention 'mX'" in str(error.value)


def test_empty_world_file(fixture_bert, data_copy):
    world = data_copy / "documents" / "beta.json"
    world.write_text("\n")
    mentions = data_copy / "mentions" / "train.json"
    with pytest.raises(ValueError) as error:
        list(make_reader(fixture_bert).read(mentions))
    message = str(error.value)
    assert str(world) in message and "world has no documents" in message
    assert f"{mentions}:4" in message and "'m4'" in message  # the first beta mention


def test_bad_json_and_missing_field(fixture_bert, data_copy):
    mentions = data_copy / "mentions" / "train.json"
    lines = mentions.read_text().splitlines()
    record = json.loads(lines[1])
    del record["start_index"]
    lines[1] = json.dumps(record)
    mentions.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError) as error:
        list(make_reader(fixture_bert).read(mentions))
    assert f"{mentions}:2" in str(error.value) and "'m2'" in str(error.value)
    assert "start_index" in str(error.value)
    mentions.write_text(mentions.read_text() + "{not json\n")
    with pytest.raises(ValueError, match=r"train\.json:7: invalid JSON"):
        list(make_reader(fixture_bert).read(mentions))


def test_max_length_smaller_than_the_markers_need(fixture_bert):
    with pytest.raises(ValueError, match=r"max_length=6 is too small: a pair needs at least 7"):
        make_reader(fixture_bert, max_length=6)
    reader = make_reader(fixture_bert, max_length=7)  # the smallest length still reads
    (tokens,) = texts(reader.text_to_instance([f"a3w{i}" for i in range(9)], 4, 5, [doc("D", 9)]))
    assert tokens == ["[CLS]", "[unused0]", "a3w4", "[unused1]", "[SEP]", "a1", "[SEP]"]


@pytest.mark.parametrize(
    "name, marker", [("mention_start_marker", "<m>"), ("title_marker", "a1 page")]
)
def test_marker_not_a_single_vocabulary_token(fixture_bert, name, marker):
    with pytest.raises(ValueError) as error:
        make_reader(fixture_bert, **{name: marker})
    assert f"{name}={marker!r} is not a single token" in str(error.value)


def test_bad_policy_and_top_k(fixture_bert):
    with pytest.raises(ValueError, match="missing_gold must be one of"):
        make_reader(fixture_bert, missing_gold="ignore")
    with pytest.raises(ValueError, match="top_k must be positive"):
        make_reader(fixture_bert, top_k=0)
