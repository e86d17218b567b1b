"""Span-by-span decisions and their difference (:mod:`allennlp_longent.linking.span_diff`,
``scripts/linking/freetext_decisions.py``), on a set built by hand."""

import json
import subprocess
import sys

import pytest

from allennlp_longent.linking.freetext import (
    gold_docs,
    links_of,
    longent_linker,
    read_set,
    save_kb,
)
from allennlp_longent.linking.span_diff import compare, decisions

REPO_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "scripts" / "linking" / "freetext_decisions.py"


@pytest.fixture()
def small_set(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    entities = [{"id": "w", "title": "Wenna Corrander", "description": "A magistrate."},
                {"id": "p", "title": "Port Corrander", "description": "Port Corrander is a "
                 "town. It has a quay."}]
    text = "Wenna Corrander met Petra Corrander in Port Corrander in 1790."
    spans = [{"start_char": 0, "end_char": 15, "label": "PERSON", "kb_id": "w"},
             {"start_char": 20, "end_char": 35, "label": "PERSON", "kb_id": "NIL"},
             {"start_char": 39, "end_char": 53, "label": "GPE", "kb_id": "p"},
             {"start_char": 57, "end_char": 61, "label": "DATE", "kb_id": None}]
    (folder / "kb.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entities))
    (folder / "paragraphs.jsonl").write_text(json.dumps({"text": text, "entities": spans}))
    return folder


def test_decisions_are_the_links_with_their_candidates(small_set, tmp_path):
    import spacy

    data = read_set(small_set)
    link = longent_linker(save_kb(data.entities, tmp_path / "kb"), unwritten_nil=True)
    records = decisions(data, link)
    assert [r["text"] for r in records] == ["Wenna Corrander", "Petra Corrander",
                                            "Port Corrander"]  # the date names nothing
    assert [r["gold"] for r in records] == data.gold()
    assert [r["found"] for r in records] == links_of(
        link(gold_docs(spacy.blank("en"), data.paragraphs)), data.paragraphs)
    assert [r["found"] for r in records] == ["w", "NIL", "p"]  # no page writes "Petra"
    assert records[0]["candidates"][0]["id"] == "w" and "probability" in records[0]["candidates"][0]
    assert {"paragraph", "start", "label", "status"} <= set(records[0])


def _record(start, gold, found):
    return {"paragraph": 0, "start": start, "text": str(start), "label": "X", "gold": gold,
            "found": found}


def test_compare_counts_fixed_broken_and_changed_by_hand():
    before = [_record(0, "a", "b"), _record(5, "a", "a"), _record(9, "NIL", "b"),
              _record(12, "c", "c")]
    after = [_record(0, "a", "a"), _record(5, "a", "NIL"), _record(9, "NIL", "c"),
             _record(12, "c", "c")]
    found = compare(before, after)
    assert [s["start"] for s in found["fixed"]] == [0]
    assert [(s["start"], s["before"], s["found"]) for s in found["broken"]] == [(5, "a", "NIL")]
    assert [s["start"] for s in found["changed"]] == [9]
    with pytest.raises(ValueError, match="not of the same spans"):
        compare(before, after[:3])


def test_the_script_dumps_and_diffs(small_set, tmp_path):
    dumped = tmp_path / "a.json"
    run = subprocess.run([sys.executable, str(SCRIPT), "dump", str(dumped), str(small_set)],
                         capture_output=True, text=True, check=True)
    assert "2/3 right" in run.stdout  # retrieval with the rules but no unwritten-name rule
    records = json.loads(dumped.read_text())
    edited = {name: [dict(r, found="NIL") if r["text"] == "Wenna Corrander" else r
                     for r in spans] for name, spans in records.items()}
    (tmp_path / "b.json").write_text(json.dumps(edited))
    run = subprocess.run([sys.executable, str(SCRIPT), "diff", str(dumped),
                          str(tmp_path / "b.json")], capture_output=True, text=True, check=True)
    assert "fixed 0, broken 1, changed 0" in run.stdout
    assert "'Wenna Corrander' PERSON  gold w: w -> NIL" in run.stdout
