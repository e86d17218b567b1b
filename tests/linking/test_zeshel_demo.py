"""The demo data of ``fixtures/zeshel_demo``: regenerated identically by
``scripts/demo_data/make_zeshel_demo.py``, and as hard as issue 8 asks (unseen test world,
ambiguous names,
non-title mentions, clues away from the mention, long descriptions), and readable by ``zeshel``."""

import json
import runpy
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from allennlp.common import Params
from allennlp.data import DatasetReader
from conftest import FIXTURES, REPO_ROOT
from transformers import AutoTokenizer

from allennlp_longent.config_defaults import packaged_minilm
from allennlp_longent.linking.candidates.zeshel import ZeshelCandidates, write_candidates
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines

DEMO = FIXTURES / "zeshel_demo"
SPLITS = ("train", "val", "test")


@pytest.fixture(scope="module")
def generator():
    return runpy.run_path(str(REPO_ROOT / "scripts" / "demo_data" / "make_zeshel_demo.py"))


@pytest.fixture(scope="module")
def worlds(generator):
    return generator["build_worlds"]()


def mentions(split):
    return [record for _, record in read_json_lines(DEMO / "mentions" / f"{split}.json")]


def relative_files(root: Path):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_regenerating_gives_the_committed_files_byte_for_byte(generator, tmp_path):
    generator["write"](tmp_path)
    assert relative_files(tmp_path) == relative_files(DEMO)
    for name in relative_files(DEMO):
        assert (tmp_path / name).read_bytes() == (DEMO / name).read_bytes(), name


def test_splits_hold_enough_mentions_in_disjoint_worlds():
    worlds = {split: Counter(m["corpus"] for m in mentions(split)) for split in SPLITS}
    assert len(worlds["train"]) >= 4 and len(worlds["val"]) == 1 and len(worlds["test"]) == 1
    assert not set(worlds["train"]) & (set(worlds["val"]) | set(worlds["test"]))
    assert not set(worlds["val"]) & set(worlds["test"])
    assert sum(worlds["train"].values()) >= 300
    assert sum(worlds["test"].values()) >= 100
    for path in (DEMO / "documents").glob("*.json"):
        assert 40 <= sum(1 for _ in read_json_lines(path)) <= 80, path


def test_mentions_point_at_their_words_in_another_document_of_their_world():
    documents = WorldDocuments(DEMO / "documents")
    for split in SPLITS:
        for m in mentions(split):
            world = documents.world(m["corpus"])
            words = world[m["context_document_id"]]["text"].split()
            assert " ".join(words[m["start_index"] : m["end_index"] + 1]) == m["text"]
            assert m["label_document_id"] in world
            assert m["label_document_id"] != m["context_document_id"]


def test_most_test_mentions_are_not_the_title_and_names_are_ambiguous(worlds):
    documents = WorldDocuments(DEMO / "documents")
    test = mentions("test")
    titles = [documents.world(m["corpus"])[m["label_document_id"]]["title"] for m in test]
    not_title = sum(m["text"] != title for m, title in zip(test, titles))
    assert not_title / len(test) >= 0.6
    golds = defaultdict(set)
    for m in test:
        golds[m["text"]].add(m["label_document_id"])
    assert sum(len(ids) > 1 for ids in golds.values()) >= 5
    for world in worlds:  # surnames name people, vessels, towns, halls; towns had other names
        named = Counter(a for e in world.entities for a in set(e.aliases.values()))
        surname = world.roles["fam0.parent"].aliases["surname"]
        assert named[surname] >= 5
        assert named[world.roles["fam0.parent"].title] == 2  # the person and the vessel
        assert sum("former" in e.aliases for e in world.entities) >= 2


def test_each_clue_is_a_fact_of_the_gold_alone_placed_away_from_the_mention(worlds):
    for world in worlds:
        owners = defaultdict(list)
        for entity in world.entities:
            for fact in entity.facts.values():
                owners[fact].append(entity)
        for m in world.mentions:
            assert owners[m.fact] == [m.gold]
            words = world.texts[m.context.document_id].split()
            clue_start = m.end + 1 + m.clue_distance
            assert words[clue_start : clue_start + len(m.fact.split())] == m.fact.split()
            assert 8 <= m.clue_distance <= 60
            description = world.texts[m.gold.document_id].split()
            opening = " ".join(description[:120])  # the gold's own facts come first
            assert m.fact in opening


def test_several_descriptions_exceed_512_minilm_pieces():
    tokenizer = AutoTokenizer.from_pretrained(packaged_minilm())
    long = Counter()
    for path in (DEMO / "documents").glob("*.json"):
        for _, doc in read_json_lines(path):
            pieces = tokenizer(f"{doc['title']} {doc['text']}", add_special_tokens=False)
            long[path.stem] += len(pieces.input_ids) > 512
    assert sum(long.values()) >= 5
    assert long[mentions("test")[0]["corpus"]] >= 1


def test_bm25_first_candidate_is_far_from_perfect_but_the_gold_is_retrieved(tmp_path):
    generator = ZeshelCandidates(DEMO, top_k=64)
    results = write_candidates(generator.split("test", progress=False), tmp_path / "test.json")
    first = sum(r.candidates[0].document_id == r.gold_document_id for r in results)
    found = sum(r.gold_document_id in [c.document_id for c in r.candidates] for r in results)
    assert 0.3 <= first / len(results) <= 0.75
    assert found == len(results)


def test_paragraphs_link_mentions_of_the_test_world(worlds):
    test_world = [w for w in worlds if w.names.split == "test"][0]
    ids = {e.document_id: e for e in test_world.entities}
    names = Counter(a.lower() for e in test_world.entities for a in set(e.aliases.values()))
    lines = [json.loads(line) for line in (DEMO / "paragraphs.jsonl").read_text().splitlines()]
    assert 2 <= len(lines) <= 4
    ambiguous = 0
    for paragraph in lines:
        linked = [e for e in paragraph["entities"] if e["kb_id"] is not None]
        assert 5 <= len(linked) <= 10
        assert any(e["kb_id"] is None and e["label"] == "DATE" for e in paragraph["entities"])
        for entity in paragraph["entities"]:
            span = paragraph["text"][entity["start_char"] : entity["end_char"]]
            assert span and span == span.strip()
            if entity["kb_id"] is not None:
                gold = ids[entity["kb_id"]]
                assert span.lower() in {a.lower() for a in gold.aliases.values()}
                ambiguous += names[span.lower()] > 1
    assert ambiguous >= 4


def test_the_zeshel_reader_reads_every_split(tmp_path):
    generator = ZeshelCandidates(DEMO, top_k=2)
    for split in SPLITS:
        write_candidates(generator.split(split, progress=False), tmp_path / f"{split}.json")
    reader = DatasetReader.from_params(Params({
        "type": "zeshel",
        "tokenizer": {"type": "pretrained_transformer", "model_name": packaged_minilm()},
        "max_length": 512,
        "top_k": 2,
        "candidates_dir": str(tmp_path),
    }))
    for split in SPLITS:
        instances = list(reader.read(DEMO / "mentions" / f"{split}.json"))
        assert len(instances) == len(mentions(split))
        assert all(len(i["pairs"].field_list) >= 1 for i in instances)


def test_the_learned_probe_reads_the_sentences_around_the_mention_but_not_its_own():
    probe = runpy.run_path(str(REPO_ROOT / "scripts" / "demo_data" / "zeshel_demo_probe.py"))
    words = "A b . C Carrow d . E f g . H i .".split()
    assert probe["window_sentences"](words, 4, 4, 20) == ["A b .", "E f g .", "H i ."]
    assert probe["window_sentences"](words, 4, 4, 3) == ["b ."]  # the part inside the window
    assert probe["window_sentences"]("x . Carrow".split(), 2, 2, 5) == ["x ."]
