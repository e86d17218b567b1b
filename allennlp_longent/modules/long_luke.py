"""Long-LUKE (Malaquias 2023): LUKE (Yamada et al. 2020) whose word→word attention is a sliding
window (Longformer, Beltagy et al. 2020) while every pair involving an entity stays global, on
position tables extended past the checkpoint's length (Yao et al. 2020).

:class:`LongLukeEncoder` wraps a transformers ``LukeModel`` and swaps each layer's self-attention
for :class:`EntityAwareSelfAttention`, so the state dict keeps LUKE's layout;
:class:`LongLukeEmbedder` is the AllenNLP ``TokenEmbedder`` registered as ``long_luke``.
"""

from typing import List, Optional, Tuple, Union

import torch
from allennlp.modules.token_embedders import TokenEmbedder
from torch import nn
from torch.utils.checkpoint import checkpoint
from transformers import LukeConfig, LukeModel

from allennlp_longent.modules.compiled_layer import check_compilable, compiled_layer_forward
from allennlp_longent.modules.entity_aware_attention import EntityAwareSelfAttention, WordEntityMask
from allennlp_longent.modules.luke_checkpoint import load_luke_model
from allennlp_longent.modules.portable import naming_checkpoint, resolve_model_name, save_copy
from allennlp_longent.modules.position_extension import (
    PositionInitializer,
    extend_position_embeddings,
)

OUTPUTS = ("words", "entities", "both")


class LongLukeEncoder(nn.Module):
    """A ``LukeModel`` (no pooler) run with banded entity-aware attention.

    ``attention_window`` is an even int or one per layer (Longformer's ``attention_window``).
    Word positions are ``pad_token_id + 1 + i`` as in LUKE/RoBERTa; entity positions index the word
    sequence, padded with -1, and the entity embedding averages them (Yamada et al. §3.1).
    ``attention_backend``: ``blocked``, ``flex`` or ``auto`` (see
    :class:`EntityAwareSelfAttention`); ``attention_dropout`` replaces the checkpoint's
    attention-probability dropout when given (flex has none, so training with flex needs 0).
    ``compile_pointwise``: run each layer's work after the attention core (attention output,
    feed-forward, layer norms, residuals) as one ``torch.compile`` graph, the matmuls still on the
    BLAS path (:mod:`~allennlp_longent.modules.compiled_layer`); off by default (compiling costs
    seconds per new input shape); a failure to compile raises.
    """

    def __init__(
        self,
        luke: LukeModel,
        attention_window: Union[int, List[int]] = 512,
        gradient_checkpointing: bool = False,
        attention_backend: str = "auto",
        attention_dropout: Optional[float] = None,
        compile_pointwise: bool = False,
    ) -> None:
        super().__init__()
        config = luke.config
        windows = attention_window
        if isinstance(windows, int):
            windows = [windows] * config.num_hidden_layers
        if len(windows) != config.num_hidden_layers:
            raise ValueError(
                f"attention_window has {len(windows)} entries for {config.num_hidden_layers} layers"
            )
        if attention_dropout is None:
            attention_dropout = config.attention_probs_dropout_prob
        for layer, window in zip(luke.encoder.layer, windows):
            dense = layer.attention.self
            banded = EntityAwareSelfAttention(
                config.hidden_size, config.num_attention_heads, window, attention_dropout,
                attention_backend,
            ).to(device=dense.query.weight.device, dtype=dense.query.weight.dtype)
            banded.load_state_dict(dense.state_dict())
            layer.attention.self = banded
        luke.pooler = None
        if compile_pointwise:
            for layer in luke.encoder.layer:
                check_compilable(layer)
        self.luke = luke
        self.compile_pointwise = compile_pointwise
        self.attention_window = list(windows)
        self.gradient_checkpointing = gradient_checkpointing

    @property
    def max_words(self) -> int:
        """Number of word positions of the (possibly extended) word position table."""
        return self.luke.config.max_position_embeddings - self.luke.config.pad_token_id - 1

    def forward(
        self,
        token_ids: torch.Tensor,
        mask: torch.Tensor,
        type_ids: Optional[torch.Tensor] = None,
        entity_ids: Optional[torch.Tensor] = None,
        entity_position_ids: Optional[torch.Tensor] = None,
        entity_mask: Optional[torch.Tensor] = None,
        entity_type_ids: Optional[torch.Tensor] = None,
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Returns ``(B, N, H)`` words and ``(B, M, H)`` entities (None when ``entity_ids`` is None
        or has no column)."""
        self._check(token_ids, mask, type_ids, entity_ids, entity_position_ids, entity_mask)
        mask = mask.bool()
        pad = self.luke.config.pad_token_id
        positions = torch.cumsum(mask.long(), dim=1) * mask + pad
        if type_ids is None:
            type_ids = torch.zeros_like(token_ids)
        words = self.luke.embeddings(
            input_ids=token_ids, position_ids=positions, token_type_ids=type_ids
        )
        entities, entity_keys = None, None
        if entity_ids is not None and entity_ids.size(1) > 0:
            if entity_type_ids is None:
                entity_type_ids = torch.zeros_like(entity_ids)
            entities = self.luke.entity_embeddings(entity_ids, entity_position_ids, entity_type_ids)
            entity_keys = entity_mask.bool()
        masks = WordEntityMask(mask, entity_keys)
        for layer in self.luke.encoder.layer:
            if self.gradient_checkpointing and self.training and torch.is_grad_enabled():
                words, entities = checkpoint(self.run_layer, layer, words, entities, masks,
                                             use_reentrant=False)
            else:
                words, entities = self.run_layer(layer, words, entities, masks)
        return words, entities

    def run_layer(
        self,
        layer: nn.Module,
        words: torch.Tensor,
        entities: Optional[torch.Tensor],
        masks: WordEntityMask,
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        """One of this encoder's layers on ``(B, N, H)`` words and ``(B, M, H)`` entities (or
        None): eager, or with its pointwise work compiled (``compile_pointwise``)."""
        if self.compile_pointwise:
            return compiled_layer_forward(layer, words, entities, masks)
        outputs = layer(words, entities, masks)
        return outputs[0], outputs[1]

    def _check(self, token_ids, mask, type_ids, entity_ids, entity_position_ids, entity_mask):
        batch, length = token_ids.shape
        if mask.shape != token_ids.shape:
            raise ValueError(
                f"mask has shape {tuple(mask.shape)}, token_ids {tuple(token_ids.shape)}"
            )
        if length > self.max_words:
            raise ValueError(
                f"token_ids has {length} word pieces but the position table holds {self.max_words};"
                " set max_length to extend it"
            )
        types = self.luke.config.type_vocab_size
        if type_ids is not None and type_ids.numel() and int(type_ids.max()) >= types:
            raise ValueError(f"type_ids holds {int(type_ids.max())}; type_vocab_size is {types}")
        if entity_ids is None:
            return
        if entity_position_ids is None or entity_mask is None:
            raise ValueError("entity_ids needs entity_position_ids and entity_mask")
        shape = entity_ids.shape
        if entity_mask.shape != shape or entity_position_ids.shape[:2] != shape:
            raise ValueError(
                f"entity_ids {tuple(shape)}, entity_mask {tuple(entity_mask.shape)} and "
                f"entity_position_ids {tuple(entity_position_ids.shape)} disagree on "
                "(batch, entities)"
            )
        if entity_ids.size(0) != batch:
            raise ValueError(f"entity_ids has batch {entity_ids.size(0)}, token_ids {batch}")
        if entity_ids.numel() == 0:
            return
        vocab = self.luke.config.entity_vocab_size
        if int(entity_ids.min()) < 0 or int(entity_ids.max()) >= vocab:
            raise ValueError(f"entity_ids must lie in [0, {vocab}), got {int(entity_ids.max())}")
        if entity_position_ids.numel() and (
            int(entity_position_ids.min()) < -1 or int(entity_position_ids.max()) >= length
        ):
            raise ValueError(
                f"entity_position_ids must lie in [0, {length}) or be -1 (padding); got values in "
                f"[{int(entity_position_ids.min())}, {int(entity_position_ids.max())}]"
            )


@TokenEmbedder.register("long_luke")
class LongLukeEmbedder(TokenEmbedder):
    """Long-LUKE word and/or entity representations for an AllenNLP model.

    ``model_name``: a LUKE checkpoint in transformers layout, or BERT/RoBERTa (LUKE's
    initialisation, see :mod:`luke_checkpoint`). ``max_length``: number of word positions after
    extension with ``position_init`` (E_repeat by default). ``num_task_entities``: replaces the
    entity vocabulary by ``[PAD]`` (0), ``[MASK]`` (1), ``[MASK2]`` (2), ..., all starting as the
    checkpoint's ``[MASK]`` entity. ``output``: ``"words"``, ``"entities"`` or ``"both"`` (a tuple).
    With AllenNLP's ``serialization_dir`` the converted config and the tokenizer are kept there and
    archived (:mod:`allennlp_longent.modules.portable`).
    ``attention_backend`` (``blocked``/``flex``/``auto``), ``attention_dropout`` and
    ``compile_pointwise``: see :class:`LongLukeEncoder`.
    """

    def __init__(
        self,
        model_name: str,
        *,
        max_length: Optional[int] = None,
        position_init: Optional[PositionInitializer] = None,
        attention_window: Union[int, List[int]] = 512,
        output: str = "both",
        num_task_entities: Optional[int] = None,
        gradient_checkpointing: bool = False,
        train_parameters: bool = True,
        serialization_dir: Optional[str] = None,
        attention_backend: str = "auto",
        attention_dropout: Optional[float] = None,
        compile_pointwise: bool = False,
    ) -> None:
        super().__init__()
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
        source, from_copy = resolve_model_name(model_name, serialization_dir)
        if from_copy:  # the converted architecture; the archive's weights replace its values
            luke = LukeModel(LukeConfig.from_pretrained(source), add_pooling_layer=False)
        else:
            with naming_checkpoint(source):
                luke = load_luke_model(source, num_task_entities)
        if max_length is not None:
            extend_position_embeddings(luke, max_length, position_init)
        if not from_copy:
            save_copy(model_name, serialization_dir, luke.config, source)
        self.encoder = LongLukeEncoder(
            luke, attention_window, gradient_checkpointing, attention_backend, attention_dropout,
            compile_pointwise,
        )
        self.output = output
        if not train_parameters:
            for parameter in self.parameters():
                parameter.requires_grad_(False)

    def get_output_dim(self) -> int:
        return self.encoder.luke.config.hidden_size

    def forward(
        self,
        token_ids: torch.Tensor,
        mask: torch.Tensor,
        type_ids: Optional[torch.Tensor] = None,
        *,
        entity_ids: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
        entity_type_ids: Optional[torch.Tensor] = None,
    ) -> Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
        """``token_ids``/``mask`` ``(B, N)``; ``entity_ids``/``entity_mask`` ``(B, M)``;
        ``entity_position_ids`` ``(B, M, P)`` word indices padded with -1. Returns ``(B, N, H)``
        words, ``(B, M, H)`` entities, or both as a tuple, according to ``output``."""
        if entity_ids.size(1) == 0 and self.output != "words":
            raise ValueError(
                f"output={self.output!r} needs entities, but entity_ids has no entity in the batch"
            )
        words, entities = self.encoder(
            token_ids, mask, type_ids, entity_ids, entity_position_ids, entity_mask,
            entity_type_ids,
        )
        if self.output == "words":
            return words
        if self.output == "entities":
            return entities
        return words, entities
