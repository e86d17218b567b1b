"""Hyper-parameter search for EntityNLM on InScript over what Ji et al. (2017, §5) leave open:
embedding and LSTM size in {32, 48, 64, 128, 256}, dropout {0.2, 0.5}, the optimizer and its rate
(Adam 1e-3 or 3e-3, AdaGrad 0.05, 0.1 or 0.2) and the epochs (``--epochs`` per trial, the
best epoch kept), selected on the validation objective (perplexity of log p(X, R, E, L) on the
91 dev stories of inscript_tacl); each trial also records the dev entity_acc on dev_targets.json.

Each trial is `allennlp train` of
training_configs/entity_nlm/inscript_tacl_entity_prediction.jsonnet with the trial's values as
overrides (the vocabulary, lower-cased and capped at ~1K types with the
rest as UNK, and the rest of the setup come from that config; ``--epochs`` sets the epochs per
trial). Optuna's TPE sampler proposes the values; a set of values that an earlier trial already ran
is not trained again (training is seeded, so it would give the same figures): the trial takes that
trial's result. A median pruner stops a trial whose validation perplexity after an epoch is worse
than the median of earlier trials at that epoch, and ``--trial-limit`` stops (prunes) a trial at
the end of the first epoch past that many seconds (the callback runs before AllenNLP saves that
epoch's weights, so a pruned trial's folder keeps the best weights of the epochs before; its
metrics_epoch_*.json files have every epoch's figures). Several workers may share one study through
``--storage`` (an Optuna journal file). Run it on CPU with a budget, e.g. one worker:

    nice -n 10 python scripts/entity_nlm/search_entity_nlm.py --epochs 8 --timeout 2400
    --trial-limit 600 \
        --out runs/entity_nlm_search

(docs/entity_nlm.md gives its duration on a shared 2-core machine). Every epoch of every trial
evaluates on dev once: the number of dev evaluations is the sum of ``epochs_done``.

It prints one line per trial (values, validation perplexity and §5.3 entity accuracy, wall and CPU
seconds) and the best values, and writes them to OUT/trials.json. Copy the best values into the
experiment config to commit them.
"""

import argparse
import json
import logging
import shutil
import time
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import optuna
import torch
from allennlp.commands.train import train_model_from_file
from allennlp.training.callbacks import TrainerCallback

import allennlp_longent.components  # noqa: F401  (registers the reader and the models)

CONFIG = Path(__file__).resolve().parents[2] / "training_configs" / "entity_nlm" / (
    "inscript_tacl_entity_prediction.jsonnet"
)
SIZES = [32, 48, 64, 128, 256]
OPTIMIZERS = {
    f"{name}_{lr:g}": {"type": name, "lr": lr}
    for name, lr in [("adam", 1e-3), ("adam", 3e-3), ("adagrad", 0.05), ("adagrad", 0.1),
                     ("adagrad", 0.2)]
}
_TRIAL: Dict[str, Any] = {}


@TrainerCallback.register("optuna_pruning")
class OptunaPruning(TrainerCallback):
    """Reports the validation perplexity of each epoch to the running trial; prunes it if Optuna
    says so or it ran past its time limit. Only for this script: the trial, its start and limit
    live in a module global set around each run."""

    def on_epoch(self, trainer, metrics: Dict[str, Any], epoch: int, is_primary: bool = True,
                 **kwargs) -> None:
        trial: optuna.Trial = _TRIAL["trial"]
        perplexity = metrics["validation_perplexity"]
        trial.report(perplexity, epoch)
        trial.set_user_attr("epochs_done", epoch + 1)
        trial.set_user_attr("last_validation_entity_acc", metrics["validation_entity_acc"])
        if trial.should_prune():
            raise optuna.TrialPruned(f"epoch {epoch}: perplexity {perplexity:.2f}")
        if time.time() - _TRIAL["start"] > _TRIAL["limit"]:
            trial.set_user_attr("stopped", "time limit")
            raise optuna.TrialPruned(f"epoch {epoch}: past {_TRIAL['limit']:.0f} s")


def earlier_trial(trial: optuna.Trial) -> Optional[optuna.trial.FrozenTrial]:
    """The first finished (complete or pruned) trial of the study with the same values."""
    finished = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    for other in trial.study.get_trials(deepcopy=False, states=finished):
        if other.params == trial.params:
            return other
    return None


def suggest(trial: optuna.Trial) -> Tuple[int, float, str]:
    """The search space: size, dropout and optimizer with its rate of one trial."""
    return (
        trial.suggest_categorical("dim", SIZES),
        trial.suggest_categorical("dropout", [0.2, 0.5]),
        trial.suggest_categorical("optimizer", list(OPTIMIZERS)),
    )


def objective(trial: optuna.Trial, out: Path, limit: float, config: Path = CONFIG,
              epochs: Optional[int] = None) -> float:
    dim, dropout, optimizer = suggest(trial)
    earlier = earlier_trial(trial)
    if earlier is not None:
        trial.set_user_attr("repeat_of", earlier.number)
        print(f"trial {trial.number}: {trial.params} ran as trial {earlier.number}", flush=True)
        if earlier.state == optuna.trial.TrialState.PRUNED:
            raise optuna.TrialPruned(f"as trial {earlier.number}")
        return earlier.value
    overrides = {
        "model.embedding_dim": dim, "model.hidden_dim": dim, "model.dropout": dropout,
        "trainer.optimizer": OPTIMIZERS[optimizer],
        "trainer.callbacks": [{"type": "optuna_pruning"}],
        **({"trainer.num_epochs": epochs} if epochs else {}),
    }
    run = out / f"trial_{trial.number:03d}"
    print(f"trial {trial.number}: {trial.params}", flush=True)
    shutil.rmtree(run, ignore_errors=True)
    wall, cpu = time.time(), time.process_time()
    _TRIAL.update(trial=trial, start=wall, limit=limit)
    try:
        train_model_from_file(config, run, overrides=json.dumps(overrides))
    finally:
        trial.set_user_attr("wall_s", round(time.time() - wall, 1))
        trial.set_user_attr("cpu_s", round(time.process_time() - cpu, 1))
    metrics = json.loads((run / "metrics.json").read_text())
    for name in ("entity_acc", "baseline_new_acc", "baseline_recent_acc", "shallow_baseline_acc",
                 "perplexity"):
        trial.set_user_attr(name, metrics[f"best_validation_{name}"])
    trial.set_user_attr("best_epoch", metrics["best_epoch"])
    return metrics["best_validation_perplexity"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/entity_nlm_search"))
    parser.add_argument("--trials", type=int, default=20, help="at most this many trials")
    parser.add_argument("--timeout", type=float, default=2700, help="no new trial after (s)")
    parser.add_argument("--trial-limit", type=float, default=1500,
                        help="prune a trial at the first epoch end past this many seconds")
    parser.add_argument("--storage", type=Path, help="Optuna journal file shared by workers")
    parser.add_argument("--seed", type=int, default=0, help="give each worker its own")
    parser.add_argument("--epochs", type=int,
                        help="epochs per trial (default: the config's num_epochs)")
    parser.add_argument("--config", type=Path, default=CONFIG,
                        help="the experiment whose sizes, dropout and optimizer are searched")
    args = parser.parse_args()
    torch.set_num_threads(1)
    logging.getLogger("allennlp").setLevel(logging.WARNING)
    args.out.mkdir(parents=True, exist_ok=True)
    storage = None
    if args.storage:
        storage = optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(str(args.storage))
        )
    study = optuna.create_study(
        study_name="entity_nlm_inscript_tacl", storage=storage, load_if_exists=True,
        direction="minimize", sampler=optuna.samplers.TPESampler(seed=args.seed),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=1),
    )

    def report(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        rows = [{"number": t.number, "state": t.state.name, "params": t.params, "value": t.value,
                 "per_epoch": t.intermediate_values, **t.user_attrs} for t in study.trials]
        (args.out / "trials.json").write_text(json.dumps(rows, indent=1))
        print(json.dumps(rows[-1]), flush=True)

    study.optimize(lambda t: objective(t, args.out, args.trial_limit, args.config, args.epochs),
                   n_trials=args.trials,
                   timeout=args.timeout, callbacks=[report], catch=())
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if done:
        best = min(done, key=lambda t: t.value)
        print("best:", json.dumps({"params": best.params, "validation_perplexity": best.value,
                                   **best.user_attrs}), flush=True)
    else:  # every trial pruned (time limit): the lowest perplexity any trial reached, and when
        tried = [t for t in study.trials if t.intermediate_values]
        best = min(tried, key=lambda t: min(t.intermediate_values.values()))
        print("no trial completed; lowest validation perplexity reached:",
              json.dumps({"params": best.params, "per_epoch": best.intermediate_values,
                          **best.user_attrs}), flush=True)


if __name__ == "__main__":
    main()
