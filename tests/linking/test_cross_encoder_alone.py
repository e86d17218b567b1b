"""``scripts/linking/cross_encoder_alone.py``: the cross-encoder alone @1 on given candidate lists
(the evaluation used to choose the main job's re-ranker recipe)."""

import json

import pytest
from conftest import load_script
from tiny_linker import ZESHEL_FIXTURE, build_tiny_linker

from allennlp_longent.linking.documents import read_json_lines


@pytest.fixture(scope="session")
def linker_files(tmp_path_factory):
    return build_tiny_linker(tmp_path_factory.getbasetemp() / "tiny_linker")


def test_summary_counts_by_hand():
    alone = load_script("cross_encoder_alone")
    ranked = {  # file, gold, cross-encoder's first, list's first, list size, gold in list
        "m1": ("val.json", "A", "A", "X", 4, True),
        "m2": ("val.json", "B", "X", "B", 2, True),
        "m3": ("train.json", "C", "D", "D", 4, False),  # gold outside: wrong for both
        "m4": ("train.json", "E", "E", "E", 4, True),
    }
    lines = alone.summary(ranked)
    assert lines[2].startswith("| val.json | 2 | 1/2 = 0.500 [") and "| 1/2 = 0.500 [" in lines[2]
    assert lines[2].endswith("| 0.8 | 2 |")  # chance 1/4 + 1/2
    assert lines[3].startswith("| train.json | 2 | 1/2 = 0.500 [") and lines[3].endswith(
        "| 0.2 | 1 |")
    assert lines[4].startswith("| all | 4 | 2/4 = 0.500 [0.150, 0.850] | 2/4 = 0.500 [")
    assert "right only here 1, right only there 0" in alone.compare(
        {"a": True, "b": False}, {"a": False, "b": False})
    with pytest.raises(SystemExit, match="other mentions"):
        alone.compare({"a": True}, {"b": True})


def test_ranks_a_trained_archive_on_given_lists(linker_files, tmp_path, capsys):
    archive, _ = linker_files
    candidates = archive.parent.parent / "candidates"
    mentions = ZESHEL_FIXTURE / "mentions" / "train.json"
    alone = load_script("cross_encoder_alone")
    save = tmp_path / "alone.json"
    scores = tmp_path / "scores.jsonl"
    alone.main([str(archive), str(mentions), "--candidates", str(candidates), "--top-k", "2",
                "--save", str(save), "--scores", str(scores)])
    first = capsys.readouterr().out.splitlines()
    right = json.loads(save.read_text())
    rows = [row for _, row in read_json_lines(scores)]
    assert len(rows) == len(right) and all(len(r["scores"]) == len(r["candidates"]) for r in rows)
    for row in rows:  # right exactly when the gold has the top score
        top = row["candidates"][row["scores"].index(max(row["scores"]))]
        assert right[row["mention_id"]] == (top == row["gold"])
    golds = {m["mention_id"]: m["label_document_id"] for _, m in read_json_lines(mentions)}
    lists = {r["mention_id"]: r["tfidf_candidates"][:2]
             for _, r in read_json_lines(candidates / "train.json")}
    assert set(right) == set(golds)
    for mention, ok in right.items():  # a gold outside the first 2 is never right
        assert not ok or golds[mention] in lists[mention]
    n = len(golds)
    hits = sum(right.values())
    listed = sum(lists[m][0] == golds[m] for m in golds)
    assert first[2].startswith(f"| train.json | {n} | {hits}/{n} = ")
    assert f"| {listed}/{n} = " in first[2]
    alone.main([str(archive), str(mentions), "--candidates", str(candidates), "--top-k", "2",
                "--against", str(save)])
    assert "right only here 0, right only there 0" in capsys.readouterr().out
