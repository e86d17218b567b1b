"""scripts/entity_nlm/search_entity_nlm.py runs a trial end to end in a fresh process (a smoke
config, one
trial): the script must register what it trains by itself; a set of values already tried is not
trained again."""

import json
import math
import os
import subprocess
import sys

import optuna
import pytest
from conftest import REPO_ROOT, load_script
from entity_nlm_helpers import recompute_validation_metrics

SMOKE = REPO_ROOT / "training_configs" / "entity_nlm" / "inscript_tacl_smoke.jsonnet"


def test_one_search_trial_trains_and_is_recorded(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "entity_nlm" / "search_entity_nlm.py"),
        "--config",
         str(SMOKE), "--trials", "1", "--out", str(tmp_path)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    [trial] = json.loads((tmp_path / "trials.json").read_text())
    assert trial["state"] == "COMPLETE"
    assert trial["params"]["dim"] in (32, 48, 64, 128, 256)
    assert trial["params"]["dropout"] in (0.2, 0.5)
    # the recorded dev figures are those of the trial's model, summed again from its outputs
    again = recompute_validation_metrics(str(tmp_path / "trial_000" / "model.tar.gz"))
    assert math.isclose(trial["value"], again["perplexity"], rel_tol=1e-4)
    assert math.isclose(trial["perplexity"], again["perplexity"], rel_tol=1e-4)
    assert math.isclose(trial["entity_acc"], again["entity_acc"], rel_tol=1e-4)
    assert trial["cpu_s"] > 0 and trial["epochs_done"] == 1
    assert "best:" in result.stdout


def test_repeated_values_take_the_earlier_result_without_training(tmp_path):
    search = load_script("search_entity_nlm")
    values = {"dim": 64, "dropout": 0.2, "optimizer": "adagrad_0.1"}
    pruned = {"dim": 32, "dropout": 0.5, "optimizer": "adam_0.001"}
    study = optuna.create_study(direction="minimize")

    def fake_run(trial: optuna.Trial) -> float:
        search.suggest(trial)
        if trial.params == pruned:
            raise optuna.TrialPruned()
        return 57.5

    for params in (values, pruned):
        study.enqueue_trial(params)
    study.optimize(fake_run, n_trials=2)
    for params in (values, pruned, {**values, "dim": 48}):
        study.enqueue_trial(params)
    # A repeat never reaches training: the missing config would raise if it did.
    missing = tmp_path / "no_such_config.jsonnet"
    study.optimize(lambda t: search.objective(t, tmp_path, 60.0, missing), n_trials=2)
    repeat, repeat_pruned = study.trials[2:4]
    assert repeat.state == optuna.trial.TrialState.COMPLETE and repeat.value == 57.5
    assert repeat.user_attrs["repeat_of"] == 0
    assert repeat_pruned.state == optuna.trial.TrialState.PRUNED
    assert repeat_pruned.user_attrs["repeat_of"] == 1
    with pytest.raises(FileNotFoundError, match="no_such_config"):
        study.optimize(lambda t: search.objective(t, tmp_path, 60.0, missing), n_trials=1)
    assert not list(tmp_path.glob("trial_00[23]"))
