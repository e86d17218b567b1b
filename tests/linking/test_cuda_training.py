"""The cross-encoder trained on a CUDA device with ``use_amp`` (fp16 autocast and a gradient
scaler, which AllenNLP allows only on CUDA), archived, then loaded on the GPU and on the CPU.

Skipped without a CUDA device (CI has none); run on a GPU machine with
``pytest tests/modules/test_cuda_attention.py tests/linking/test_cuda_training.py``.
"""

import json
import math

import pytest
import torch
from tiny_linker import ZESHEL_FIXTURE, build_tiny_linker

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def scores_on(archive, device: int):
    """Scores of the real candidates of every training mention, the archive loaded on ``device``
    in eval mode."""
    from allennlp.models.archival import load_archive

    loaded = load_archive(str(archive), cuda_device=device)
    reader = loaded.validation_dataset_reader
    instances = list(reader.read(str(ZESHEL_FIXTURE / "mentions" / "train.json")))
    outputs = loaded.model.eval().forward_on_instances(instances)
    return [torch.as_tensor(out["scores"])[torch.as_tensor(out["candidate_mask"])].float()
            for out in outputs]


def test_amp_training_on_cuda_then_the_archive_on_gpu_and_cpu(tmp_path):
    archive, _ = build_tiny_linker(tmp_path, trainer={"cuda_device": 0, "use_amp": True})
    epochs = [json.loads((tmp_path / "run" / f"metrics_epoch_{e}.json").read_text())
              for e in range(3)]
    losses = [epoch["training_loss"] for epoch in epochs]
    print(f"training loss per epoch with use_amp on {torch.cuda.get_device_name()}: {losses}")
    assert all(math.isfinite(loss) for loss in losses)
    assert min(losses[1:]) < losses[0]
    gpu, cpu = scores_on(archive, 0), scores_on(archive, -1)
    assert len(gpu) == len(cpu) > 0
    gap = max(float((a - b).abs().max()) for a, b in zip(gpu, cpu))
    print(f"largest score gap between the archive on the GPU and on the CPU: {gap:.1e}")
    assert gap <= 1e-3
