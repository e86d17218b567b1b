"""Longer absolute-position tables without re-pretraining (Yao, Cao & Pan 2020, §3).

A model pretrained on ``n`` positions gets a table of ``N > n`` rows whose first ``n`` rows are the
pretrained ones, so inputs of at most ``n`` tokens give exactly the outputs of the original model.
The rows past ``n`` come from a :class:`PositionInitializer`: ``repeat`` (E_repeat), ``head``
(E_head) or ``constant`` (E_constant).
"""

import logging
from dataclasses import dataclass
from typing import List, Optional, Union

import torch
from allennlp.common import Registrable
from torch import nn
from transformers import PreTrainedModel

logger = logging.getLogger(__name__)


class PositionInitializer(Registrable):
    """Builds the rows of a longer position table from the pretrained block of ``n`` rows."""

    default_implementation = "repeat"

    def extend(self, block: torch.Tensor, new_count: int, initializer_range: float) -> torch.Tensor:
        """Returns ``(new_count, dim)`` rows whose first ``len(block)`` rows equal ``block``."""
        if new_count < block.size(0):
            raise ValueError(f"cannot shrink a position table from {block.size(0)} to {new_count}")
        extra = self._new_rows(block, new_count - block.size(0), initializer_range)
        return torch.cat([block, extra.to(block.dtype)], dim=0)

    def _new_rows(self, block: torch.Tensor, count: int, initializer_range: float) -> torch.Tensor:
        raise NotImplementedError


@PositionInitializer.register("repeat")
class RepeatPositionInitializer(PositionInitializer):
    """E_repeat: row ``p`` of the new table is pretrained row ``p mod n``."""

    def _new_rows(self, block: torch.Tensor, count: int, initializer_range: float) -> torch.Tensor:
        n = block.size(0)
        index = torch.arange(n, n + count, device=block.device) % n
        return block[index]


@PositionInitializer.register("head")
class HeadPositionInitializer(PositionInitializer):
    """E_head: rows past ``n`` are drawn from N(0, initializer_range²), as at pretraining."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed

    def _new_rows(self, block: torch.Tensor, count: int, initializer_range: float) -> torch.Tensor:
        generator = torch.Generator(device="cpu")
        if self.seed is None:
            generator.seed()
        else:
            generator.manual_seed(self.seed)
        rows = torch.randn(count, block.size(1), generator=generator) * initializer_range
        return rows.to(block.device)


@PositionInitializer.register("constant")
class ConstantPositionInitializer(PositionInitializer):
    """E_constant: every row past ``n`` equals the last pretrained row ``n - 1``."""

    def _new_rows(self, block: torch.Tensor, count: int, initializer_range: float) -> torch.Tensor:
        return block[-1:].expand(count, -1).clone()


@dataclass
class PositionTable:
    """A position table inside a model: rows ``[0, offset)`` are not positions (RoBERTa's padding
    offset) and ``real_positions`` rows follow them."""

    name: str
    parent: nn.Module
    attribute: str
    offset: int
    real_positions: int

    @property
    def embedding(self) -> nn.Embedding:
        return getattr(self.parent, self.attribute)


def find_position_tables(model: PreTrainedModel) -> List[PositionTable]:
    """Every ``*position_embeddings`` table of ``config.max_position_embeddings`` rows, the word
    table first.

    The word table is the one beside ``word_embeddings``; its ``padding_idx`` (RoBERTa, LUKE) gives
    the offset of the first real position. Other tables (LUKE's entity positions) index word
    positions directly, so they share the word table's count of real positions with offset 0.
    """
    size = model.config.max_position_embeddings
    found = []
    for name, module in model.named_modules():
        for attribute, child in module.named_children():
            if (
                attribute.endswith("position_embeddings")
                and isinstance(child, nn.Embedding)
                and child.num_embeddings == size
            ):
                full_name = f"{name}.{attribute}" if name else attribute
                found.append((full_name, module, attribute, child))
    words = [entry for entry in found if hasattr(entry[1], "word_embeddings")]
    if len(words) != 1:
        raise ValueError(
            f"expected one word position table of {size} rows in {type(model).__name__}, "
            f"found {[entry[0] for entry in words]}"
        )
    word_offset = 0 if words[0][3].padding_idx is None else words[0][3].padding_idx + 1
    real = size - word_offset
    ordered = words + [entry for entry in found if entry[1] is not words[0][1]]
    return [
        PositionTable(name, parent, attribute, word_offset if parent is words[0][1] else 0, real)
        for name, parent, attribute, _ in ordered
    ]


def extend_position_embeddings(
    model: PreTrainedModel,
    max_length: int,
    initializer: Union[PositionInitializer, str, None] = None,
) -> PreTrainedModel:
    """Extends ``model`` in place to ``max_length`` real word positions; returns it.

    Rows of the original positions stay as they are, so inputs within the original length give
    identical outputs. Also resizes the ``position_ids``/``token_type_ids`` buffers and sets
    ``config.max_position_embeddings`` (``max_length`` plus RoBERTa's offset), so
    ``save_pretrained`` writes a checkpoint that plain transformers loads.
    """
    if isinstance(initializer, str) or initializer is None:
        initializer = PositionInitializer.by_name(initializer or "repeat")()
    tables = find_position_tables(model)
    word_table = tables[0]
    old_size = model.config.max_position_embeddings
    if max_length < word_table.real_positions:
        raise ValueError(
            f"max_length={max_length} is smaller than the model's {word_table.real_positions} "
            "positions; position tables are only extended"
        )
    new_size = word_table.offset + max_length
    if new_size == old_size:
        return model
    init_range = getattr(model.config, "initializer_range", 0.02)
    for table in tables:
        old = table.embedding
        weight = old.weight.data
        block = weight[table.offset : table.offset + table.real_positions]
        rows = initializer.extend(block, new_size - table.offset, init_range)
        new = nn.Embedding(
            new_size,
            old.embedding_dim,
            padding_idx=old.padding_idx,
            device=weight.device,
            dtype=weight.dtype,
        )
        new.weight.data.copy_(torch.cat([weight[: table.offset], rows], dim=0))
        new.weight.requires_grad_(old.weight.requires_grad)
        setattr(table.parent, table.attribute, new)
        _resize_position_buffers(table.parent, old_size, new_size)
    model.config.max_position_embeddings = new_size
    logger.info(
        "Extended %d position table(s) of %s from %d to %d rows with %s",
        len(tables),
        type(model).__name__,
        old_size,
        new_size,
        type(initializer).__name__,
    )
    return model


def _resize_position_buffers(module: nn.Module, old_size: int, new_size: int) -> None:
    for name in ("position_ids", "token_type_ids"):
        buffer = getattr(module, name, None)
        if not isinstance(buffer, torch.Tensor) or buffer.size(-1) != old_size:
            continue
        if name == "position_ids":
            value = torch.arange(new_size, device=buffer.device, dtype=buffer.dtype).expand(1, -1)
        else:
            value = torch.zeros(1, new_size, device=buffer.device, dtype=buffer.dtype)
        persistent = name not in getattr(module, "_non_persistent_buffers_set", set())
        module.register_buffer(name, value, persistent=persistent)


def extend_tokenizer_max_length(tokenizer, max_length: int) -> None:
    """Lets a tokenizer accept ``max_length`` tokens, also after ``save_pretrained``."""
    tokenizer.model_max_length = max_length
    tokenizer.init_kwargs["model_max_length"] = max_length


def extend_checkpoint(
    source: str,
    target: str,
    max_length: int,
    initializer: Union[PositionInitializer, str, None] = None,
    auto_class: str = "AutoModel",
) -> None:
    """Loads the checkpoint directory ``source``, extends it, and saves model, tokenizer and config
    to ``target`` with ``save_pretrained`` so ``AutoModel.from_pretrained(target)`` loads it."""
    import transformers

    model = getattr(transformers, auto_class).from_pretrained(source)
    extend_position_embeddings(model, max_length, initializer)
    model.save_pretrained(target)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    except (OSError, ValueError) as error:
        raise ValueError(f"no tokenizer could be loaded from {source}: {error}") from error
    extend_tokenizer_max_length(tokenizer, max_length)
    tokenizer.save_pretrained(target)
