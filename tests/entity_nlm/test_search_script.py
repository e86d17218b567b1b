"""scripts/search_entity_nlm.py runs a trial end to end in a fresh process (a smoke config, one
trial): the script must register what it trains by itself."""

import json
import os
import subprocess
import sys

from conftest import REPO_ROOT

SMOKE = REPO_ROOT / "training_configs" / "entity_nlm" / "inscript_entity_prediction_smoke.jsonnet"


def test_one_search_trial_trains_and_is_recorded(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "search_entity_nlm.py"), "--config",
         str(SMOKE), "--trials", "1", "--out", str(tmp_path)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    [trial] = json.loads((tmp_path / "trials.json").read_text())
    assert trial["state"] == "COMPLETE"
    assert trial["params"]["dim"] in (32, 48, 64, 128, 256)
    assert trial["params"]["dropout"] in (0.2, 0.5)
    assert trial["value"] == trial["perplexity"] > 1.0
    assert 0.0 <= trial["entity_acc"] <= 1.0 and trial["cpu_s"] > 0
    assert "best:" in result.stdout
