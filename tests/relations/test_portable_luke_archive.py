"""A Long-LUKE archive (tacred_smoke) copied elsewhere, with the LUKE checkpoint and the run
folder deleted, loads in a fresh process and predicts exactly what the original did."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from allennlp.commands.train import train_model_from_file
from allennlp.common.util import import_module_and_submodules
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
from conftest import shared_data

CONFIG = Path(__file__).resolve().parents[2] / "training_configs/relations/tacred_smoke.jsonnet"

PREDICT = """
import json, sys
from allennlp.common.util import import_module_and_submodules
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
import_module_and_submodules("allennlp_longent")
predictor = Predictor.from_archive(load_archive(sys.argv[1]), "relation_extraction")
print(json.dumps([predictor.predict_json(r) for r in json.loads(sys.argv[2])]))
"""


def test_moved_long_luke_archive_predicts_identically(tiny_luke, tmp_path, monkeypatch):
    import_module_and_submodules("allennlp_longent")
    sample = shared_data("formats", "tacred_sample.json")
    luke = shutil.copytree(tiny_luke, tmp_path / "luke")  # the copy is deleted below
    monkeypatch.setenv("LONGENT_LUKE", str(luke))
    monkeypatch.setenv("LONGENT_SHARED_DATA", str(shared_data()))
    train_model_from_file(str(CONFIG), str(tmp_path / "run"), overrides='{"trainer.num_epochs": 1}')
    records = json.loads(sample.read_text())
    if isinstance(records, dict):
        records = [records]
    predictor = Predictor.from_archive(load_archive(tmp_path / "run" / "model.tar.gz"),
                                       "relation_extraction")
    expected = [predictor.predict_json(record) for record in records]
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(tmp_path / "run" / "model.tar.gz", moved / "model.tar.gz")
    shutil.rmtree(tmp_path / "run")
    shutil.rmtree(luke)
    done = subprocess.run(
        [sys.executable, "-c", PREDICT, str(moved / "model.tar.gz"), json.dumps(records)],
        capture_output=True, text=True, cwd=moved, env=dict(os.environ, LONGENT_LUKE="gone"),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    again = json.loads(done.stdout)
    assert [p["relation"] for p in again] == [p["relation"] for p in expected]
    for ours, theirs in zip(again, expected):
        assert ours["probabilities"] == theirs["probabilities"]
