"""``ZeshelAccuracy`` on a hand-built batch, with every expected figure counted by hand."""

import json
import os
import socket
from pathlib import Path
from typing import Dict

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from allennlp.common import Params
from allennlp.training.metrics import Metric

from allennlp_longent.linking.metrics.zeshel_accuracy import ZeshelAccuracy


def batch():
    """Six mentions in two worlds; the comment on each row is its hand-worked outcome."""
    scores = torch.tensor(
        [
            [3.0, 1.0, 2.0],  # w1, gold 0, predicts 0: correct; DLength 600: long
            [5.0, 1.0, 2.0],  # w1, gold 2, predicts 0: wrong; DLength 100: short
            [1.0, 2.0, 0.0],  # w1, gold outside the candidates: wrong; no DLength
            [0.0, 4.0, 9.0],  # w2, gold 1, column 2 is padding: predicts 1, correct; long (513)
            [3.0, 2.0, 9.0],  # w2, gold 0, column 2 is padding: correct; 512 is short
            [0.0, 7.0, 1.0],  # w1, gold 1, predicts 1: correct; short
        ]
    )
    mask = torch.tensor([[1, 1, 1]] * 3 + [[1, 1, 0]] * 2 + [[1, 1, 1]], dtype=torch.bool)
    labels = torch.tensor([0, 2, -1, 1, 0, 1])
    worlds = ["w1", "w1", "w1", "w2", "w2", "w1"]
    dlengths = [600, 100, None, 513, 512, 50]
    return scores, mask, labels, worlds, dlengths


# By hand: w1 has 4 mentions, 3 with the gold among the candidates, 2 correct;
# w2 has 2 mentions, both with the gold, both correct.
EXPECTED: Dict[str, float] = {
    "normalized_acc_macro": (2 / 3 + 2 / 2) / 2,
    "unnormalized_acc_macro": (2 / 4 + 2 / 2) / 2,
    "normalized_acc_micro": 4 / 5,
    "unnormalized_acc_micro": 4 / 6,
    "mentions": 6.0,
    "normalized_acc_long": 2 / 2,
    "mentions_long": 2.0,
    "normalized_acc_short": 2 / 3,
    "mentions_short": 3.0,
    "recall_at_1": 2 / 6,  # gold at position 0: rows 0 and 4
    "recall_at_2": 4 / 6,  # + rows 3 and 5 (gold at 1)
    "recall_at_3": 5 / 6,  # + row 1 (gold at 2); row 2 never counts
    "world_w1_normalized_acc": 2 / 3,
    "world_w2_normalized_acc": 2 / 2,
}


def test_hand_built_batch():
    metric = ZeshelAccuracy(long_threshold=512, recall_at=(1, 2, 3))
    metric(*batch())
    values = metric.get_metric()
    assert values == pytest.approx(EXPECTED)
    assert set(values) == set(EXPECTED)


def test_accumulates_over_batches_and_resets():
    metric = Metric.from_params(
        Params({"type": "zeshel_accuracy", "long_threshold": 512, "recall_at": [1, 2, 3]})
    )
    scores, mask, labels, worlds, dlengths = batch()
    metric(scores[:2], mask[:2], labels[:2], worlds[:2], dlengths[:2])
    metric(scores[2:], mask[2:], labels[2:], worlds[2:], dlengths[2:])
    assert metric.get_metric(reset=True) == pytest.approx(EXPECTED)
    assert metric.get_metric()["mentions"] == 0.0
    assert metric.get_metric()["normalized_acc_macro"] == 0.0


def test_long_threshold_moves_the_boundary():
    metric = ZeshelAccuracy(long_threshold=511, recall_at=(1,))
    metric(*batch())
    values = metric.get_metric()
    assert values["mentions_long"] == 3.0  # 600, 513 and now 512
    assert values["normalized_acc_long"] == 1.0
    assert values["normalized_acc_short"] == pytest.approx(1 / 2)


def test_empty_buckets_are_absent_not_zero():
    """Only short mentions, and a world whose one mention has its gold outside the candidates:
    no long accuracy and no accuracy for that world (not 0.0), and the macro average is over the
    world that has one."""
    metric = ZeshelAccuracy(long_threshold=512, recall_at=(1,))
    scores = torch.tensor([[3.0, 1.0], [1.0, 3.0], [1.0, 3.0]])
    metric(scores, torch.ones(3, 2, dtype=torch.bool), torch.tensor([0, 0, -1]),
           ["a", "a", "b"], [10, 20, 30])
    values = metric.get_metric()
    assert "normalized_acc_long" not in values and values["mentions_long"] == 0.0
    assert values["normalized_acc_short"] == pytest.approx(1 / 2)
    assert "world_b_normalized_acc" not in values and values["world_a_normalized_acc"] == 0.5
    assert values["normalized_acc_macro"] == pytest.approx(1 / 2)  # world a only
    assert values["unnormalized_acc_macro"] == pytest.approx((1 / 2 + 0) / 2)


def test_padding_never_wins_even_with_the_highest_score():
    metric = ZeshelAccuracy(recall_at=(1,))
    scores = torch.tensor([[0.0, 1.0, 50.0]])
    metric(scores, torch.tensor([[True, True, False]]), torch.tensor([1]), ["w"], [10])
    assert metric.get_metric()["normalized_acc_micro"] == 1.0


# ----------------------------------------------------------------------------- distributed


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _worker(rank: int, world_size: int, port: int, out: Path) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    try:
        metric = ZeshelAccuracy(long_threshold=512, recall_at=(1, 2, 3))
        scores, mask, labels, worlds, dlengths = batch()
        rows = list(range(rank, 6, world_size))  # each worker sees its own shard of the batch
        for row in rows:  # one mention per call, as with batch_size 1
            metric(
                scores[row : row + 1],
                mask[row : row + 1],
                labels[row : row + 1],
                [worlds[row]],
                [dlengths[row]],
            )
        (out / f"rank{rank}.json").write_text(json.dumps(metric.get_metric()))
    finally:
        dist.destroy_process_group()


def test_distributed_workers_each_report_the_whole_batch(tmp_path):
    """Two gloo workers (forked) with three mentions each report the figures of all six."""
    mp.start_processes(
        _worker, args=(2, _free_port(), tmp_path), nprocs=2, join=True, start_method="fork"
    )
    for rank in (0, 1):
        assert json.loads((tmp_path / f"rank{rank}.json").read_text()) == pytest.approx(EXPECTED)
