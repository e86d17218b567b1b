"""Pooling of token vectors into one text vector, as sentence-transformers checkpoints declare it.

A sentence-transformers folder says how it was trained to be used: ``1_Pooling/config.json``
(``pooling_mode_cls_token``, ``pooling_mode_mean_tokens``, ``pooling_mode_max_tokens``) and, in
``modules.json``, whether a ``Normalize`` module follows (cosine similarity by dot product).
"""

import json
from pathlib import Path
from typing import Tuple

import torch

POOLINGS = ("cls", "mean", "max")
_MODES = {"pooling_mode_cls_token": "cls", "pooling_mode_mean_tokens": "mean",
          "pooling_mode_max_tokens": "max"}


def checkpoint_pooling(path: str) -> Tuple[str, bool]:
    """``(pooling, normalize)`` declared by the sentence-transformers checkpoint at ``path``.

    Raises ``ValueError`` when ``path`` has no ``1_Pooling/config.json`` or declares a pooling this
    module lacks (several modes at once, or mean-sqrt-len), rather than guessing.
    """
    config_path = Path(path) / "1_Pooling" / "config.json"
    if not config_path.is_file():
        raise ValueError(
            f"{path} is not a sentence-transformers checkpoint ({config_path} missing): "
            f"set pooling to one of {POOLINGS} and normalize explicitly"
        )
    config = json.loads(config_path.read_text())
    modes = [name for key, name in _MODES.items() if config.get(key)]
    unsupported = [key for key, value in config.items()
                   if key.startswith("pooling_mode") and value and key not in _MODES]
    if len(modes) != 1 or unsupported:
        raise ValueError(f"{config_path}: need exactly one of {sorted(_MODES)}, got {config}")
    modules_path = Path(path) / "modules.json"
    normalize = False
    if modules_path.is_file():
        modules = json.loads(modules_path.read_text())
        normalize = any(module.get("type", "").endswith(".Normalize") for module in modules)
    return modes[0], normalize


def pool(vectors: torch.Tensor, mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """``(batch, length, dim)`` token vectors to ``(batch, dim)``; ``mask`` marks real tokens."""
    if pooling == "cls":
        return vectors[:, 0]
    mask = mask.unsqueeze(-1).to(vectors.dtype)
    if pooling == "mean":
        return (vectors * mask).sum(1) / mask.sum(1).clamp(min=1)
    if pooling == "max":
        return vectors.masked_fill(mask == 0, torch.finfo(vectors.dtype).min).max(1).values
    raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
