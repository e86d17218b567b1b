"""End to end on the real ``zeshel_tiny``: ``allennlp train`` of the tiny-BERT experiment, then
``allennlp evaluate`` and ``allennlp predict`` (``cross_encoder_linker``) on the archive."""

import json
import sys
from pathlib import Path
from typing import List

import pytest
from allennlp.commands import main
from allennlp.commands.train import train_model_from_file
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
from conftest import FIXTURES, shared_data

import allennlp_longent  # noqa: F401  (registers the components)

EXPERIMENT = FIXTURES / "linking" / "experiment.jsonnet"


def _records(path: Path) -> List[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def trained(tiny_bert_dir, tmp_path_factory):
    """(archive path, zeshel_tiny root): one epoch on the real subset, top-3 candidates."""
    root = shared_data("zeshel_tiny")
    run = tmp_path_factory.mktemp("linker") / "run"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LONGENT_TEST_BERT", str(tiny_bert_dir))
        patch.setenv("LONGENT_TEST_ZESHEL", str(root))
        train_model_from_file(str(EXPERIMENT), str(run))
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["training_mentions"] == 4.0 and metrics["validation_mentions"] == 4.0
    return run / "model.tar.gz", root


def _run_cli(monkeypatch, *args: str) -> None:
    monkeypatch.setattr(sys, "argv", ["allennlp", *args, "--include-package", "allennlp_longent"])
    main(prog="allennlp")


def _inputs(root: Path, inline: bool) -> List[dict]:
    """One predictor input per train mention, with its top-3 candidates (ids or documents)."""
    candidates = {
        r["mention_id"]: r["tfidf_candidates"][:3]
        for r in _records(root / "tfidf_candidates" / "train.json")
    }
    inputs = []
    for mention in _records(root / "mentions" / "train.json"):
        world = {
            d["document_id"]: d for d in _records(root / "documents" / f"{mention['corpus']}.json")
        }
        entry = {
            "context": world[mention["context_document_id"]]["text"],
            "mention_start": mention["start_index"],
            "mention_end": mention["end_index"],
            "mention_id": mention["mention_id"],
            "gold_document_id": mention["label_document_id"],
            "world": mention["corpus"],
        }
        ids = candidates[mention["mention_id"]]
        if inline:
            entry["candidates"] = [world[doc_id] for doc_id in ids]
            del entry["world"]
        else:
            entry["candidates"] = ids
            entry["documents_dir"] = str(root / "documents")
        inputs.append(entry)
    return inputs


def _predict(monkeypatch, archive: Path, inputs: List[dict], tmp_path: Path) -> List[dict]:
    given, out = tmp_path / "input.jsonl", tmp_path / "output.jsonl"
    given.write_text("".join(json.dumps(entry) + "\n" for entry in inputs))
    _run_cli(
        monkeypatch,
        "predict",
        str(archive),
        str(given),
        "--predictor",
        "cross_encoder_linker",
        "--output-file",
        str(out),
        "--batch-size",
        "2",
        "--silent",
    )
    return _records(out)


def test_evaluate_and_predict_agree(trained, monkeypatch, tmp_path):
    archive, root = trained
    metrics_file = tmp_path / "metrics.json"
    _run_cli(
        monkeypatch,
        "evaluate",
        str(archive),
        str(root / "mentions" / "train.json"),
        "--output-file",
        str(metrics_file),
    )
    metrics = json.loads(metrics_file.read_text())
    assert metrics["mentions"] == 4.0
    for world in ("doctor_who", "military", "pro_wrestling", "starwars"):
        assert f"world_{world}_normalized_acc" in metrics
    assert metrics["recall_at_4"] == 1.0  # every gold is within the top 3 of zeshel_tiny

    inputs = _inputs(root, inline=False)
    outputs = _predict(monkeypatch, archive, inputs, tmp_path)
    assert [o["mention_id"] for o in outputs] == [i["mention_id"] for i in inputs]
    correct = 0
    for given, output in zip(inputs, outputs):
        ranked = output["ranked"]
        assert sorted(r["document_id"] for r in ranked) == sorted(given["candidates"])
        scores = [r["score"] for r in ranked]
        assert scores == sorted(scores, reverse=True)
        assert sum(r["probability"] for r in ranked) == pytest.approx(1.0, abs=1e-5)
        assert output["predicted_document_id"] == ranked[0]["document_id"]
        assert output["gold_document_id"] == given["gold_document_id"]
        words = given["context"].split()
        assert output["mention"] == " ".join(
            words[given["mention_start"] : given["mention_end"] + 1]
        )
        correct += output["predicted_document_id"] == given["gold_document_id"]
    # The predictor reads the same top-3 candidates as evaluate: the same decisions.
    assert metrics["unnormalized_acc_micro"] == pytest.approx(correct / 4)


def test_inline_candidate_documents_rank_like_candidate_ids(trained, monkeypatch, tmp_path):
    archive, root = trained
    by_id = _predict(monkeypatch, archive, _inputs(root, inline=False), tmp_path)
    inline = _predict(monkeypatch, archive, _inputs(root, inline=True), tmp_path)
    for left, right in zip(by_id, inline):
        assert [r["document_id"] for r in left["ranked"]] == [
            r["document_id"] for r in right["ranked"]
        ]
        assert [r["title"] for r in left["ranked"]] == [r["title"] for r in right["ranked"]]
        assert [r["score"] for r in left["ranked"]] == pytest.approx(
            [r["score"] for r in right["ranked"]], abs=1e-5
        )


def test_predictor_input_errors(trained):
    archive, root = trained
    predictor = Predictor.from_archive(load_archive(str(archive)), "cross_encoder_linker")
    good = _inputs(root, inline=False)[0]
    with pytest.raises(ValueError, match="needs 'context'"):
        predictor.predict_json({k: v for k, v in good.items() if k != "context"})
    with pytest.raises(ValueError, match="missing the field 'mention_end'"):
        predictor.predict_json({k: v for k, v in good.items() if k != "mention_end"})
    with pytest.raises(ValueError, match=r"need the fields 'world' and 'documents_dir'"):
        predictor.predict_json({k: v for k, v in good.items() if k != "documents_dir"})
    with pytest.raises(ValueError, match=r"candidates \['NOPE'\] not in"):
        predictor.predict_json({**good, "candidates": ["NOPE"]})
    with pytest.raises(ValueError, match="out of range"):
        predictor.predict_json({**good, "mention_end": 10**6})
    single = predictor.predict_json(good)
    assert single["mention_id"] == good["mention_id"]
    assert len(single["ranked"]) == 3
