"""Two-worker CPU distributed training (gloo) of the tiny-BERT experiment on ``zeshel_tiny``: every
mention is read by exactly one worker, and the metric counts equal those of a one-worker run."""

import json
import socket
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

import torch.distributed as dist
from allennlp.commands.train import train_model_from_file
from allennlp.training.callbacks import TrainerCallback
from conftest import FIXTURES, shared_data

import allennlp_longent  # noqa: F401  (registers the components)

EXPERIMENT = FIXTURES / "linking" / "experiment.jsonnet"


@TrainerCallback.register("record_linking_batches")
class RecordLinkingBatches(TrainerCallback):
    """Appends, per worker and phase, each batch's mention ids and the metric's world counts."""

    def on_batch(  # type: ignore[override]
        self,
        trainer,
        batch_inputs: List[Dict[str, Any]],
        batch_outputs,
        batch_metrics,
        epoch: int,
        batch_number: int,
        is_training: bool,
        is_primary: bool = True,
        batch_grad_norm=None,
        **kwargs,
    ) -> None:
        rank = dist.get_rank() if dist.is_available() and dist.is_initialized() else 0
        phase = "training" if is_training else "validation"
        record = {
            "ids": [entry["mention_id"] for batch in batch_inputs for entry in batch["metadata"]],
            "worlds": {name: dict(c) for name, c in trainer.model._accuracy._worlds.items()},
        }
        path = Path(self.serialization_dir) / f"seen_{phase}_{rank}.jsonl"
        with path.open("a") as handle:
            handle.write(json.dumps(record) + "\n")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _train(run: Path, workers: int) -> Dict[str, float]:
    overrides: Dict[str, Any] = {
        "evaluate_on_test": False,
        "data_loader.batch_size": 1,
        "validation_data_loader.batch_size": 1,
        "trainer.callbacks": [{"type": "record_linking_batches"}],
    }
    if workers > 1:
        overrides["distributed"] = {
            "cuda_devices": [-1] * workers,
            "master_port": _free_port(),
        }
    train_model_from_file(
        str(EXPERIMENT),
        str(run),
        overrides=json.dumps(overrides),
        include_package=["allennlp_longent", __name__],  # the callback, in spawned workers
    )
    return json.loads((run / "metrics.json").read_text())


def _records(run: Path, phase: str, rank: int) -> List[dict]:
    path = run / f"seen_{phase}_{rank}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_two_cpu_workers_see_every_mention_once(tiny_bert_dir, tmp_path, monkeypatch):
    """One worker's counts are the data's own (the single-process training of the same
    experiment in test_linker_predictor.py reports 4 mentions); two workers must match them."""
    root = shared_data("zeshel_tiny")
    monkeypatch.setenv("LONGENT_TEST_BERT", str(tiny_bert_dir))
    monkeypatch.setenv("LONGENT_TEST_ZESHEL", str(root))
    mentions = [
        json.loads(line) for line in (root / "mentions" / "train.json").read_text().splitlines()
    ]
    mention_ids = [mention["mention_id"] for mention in mentions]
    per_world = Counter(mention["corpus"] for mention in mentions)

    metrics = _train(tmp_path / "run", workers=2)

    for phase in ("training", "validation"):
        shards = [_records(tmp_path / "run", phase, rank) for rank in (0, 1)]
        seen = [i for shard in shards for record in shard for i in record["ids"]]
        assert Counter(seen) == Counter(mention_ids)  # each mention once, across both workers
        assert all(shard and shard[0]["ids"] for shard in shards)  # both workers got mentions
        # After its last batch, each worker's metric counts every world's mentions, as one
        # worker would: the per-batch counts are gathered across workers.
        for shard in shards:
            counts = shard[-1]["worlds"]
            assert {w: c["mentions"] for w, c in counts.items()} == per_world
            assert {w: c["gold_in_candidates"] for w, c in counts.items()} == per_world
    assert metrics["training_mentions"] == metrics["validation_mentions"] == len(mention_ids)
