"""Loading LUKE (Yamada et al. 2020) weights as a transformers ``LukeModel``: from a LUKE
checkpoint, or from a BERT/RoBERTa checkpoint the way LUKE was initialised (§3.4: parameters shared
with the word model copied, entity embeddings new; the w2e/e2w/e2e query matrices start as Q), with
an optional small task entity vocabulary whose ids all start as the ``[MASK]`` entity (the
fine-tuning recipe of §4.1/§4.2)."""

import json
import logging
from typing import Optional

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, LukeConfig, LukeModel
from transformers.utils import cached_file

logger = logging.getLogger(__name__)

ENTITY_QUERIES = ("w2e_query", "e2w_query", "e2e_query")
# Entity-side parameters with a word-side counterpart of the same shape; they start from it.
SHARED_WITH_WORDS = ("token_type_embeddings", "LayerNorm")
# Task entity vocabulary without a LUKE checkpoint: [PAD] and [MASK].
DEFAULT_TASK_ENTITIES = 2


def load_luke_model(model_name: str, num_task_entities: Optional[int] = None) -> LukeModel:
    """A ``LukeModel`` without pooler for the checkpoint ``model_name`` (``luke``, ``bert`` or
    ``roberta``), with entity-aware query matrices, its entity vocabulary replaced by
    ``num_task_entities`` ids when given (always for BERT/RoBERTa, default 2)."""
    model_type = AutoConfig.from_pretrained(model_name).model_type
    if model_type == "luke":
        model = _load_luke(model_name)
        if num_task_entities is not None:
            mask_row = model.entity_embeddings.entity_embeddings.weight[mask_entity_id(model_name)]
            set_task_entities(model, num_task_entities, mask_row.detach().clone())
        return model
    if model_type in ("bert", "roberta"):
        return luke_from_bert_like(model_name, num_task_entities or DEFAULT_TASK_ENTITIES)
    raise ValueError(
        f"model_name {model_name!r} has model_type {model_type!r}; expected luke, bert or roberta"
    )


def _load_luke(model_name: str) -> LukeModel:
    config = LukeConfig.from_pretrained(model_name)
    entity_aware = config.use_entity_aware_attention
    config.use_entity_aware_attention = True
    model = LukeModel.from_pretrained(model_name, config=config, add_pooling_layer=False)
    if not entity_aware:
        copy_query_to_entity_queries(model)
    return model


def mask_entity_id(model_name: str) -> int:
    """The id of ``[MASK]`` in the checkpoint's ``entity_vocab.json`` (HF LUKE tokenizer file)."""
    path = cached_file(model_name, "entity_vocab.json", _raise_exceptions_for_missing_entries=False)
    if path is None:
        raise ValueError(
            f"num_task_entities needs the [MASK] entity, but {model_name!r} has no "
            "entity_vocab.json"
        )
    with open(path, encoding="utf-8") as handle:
        vocab = json.load(handle)
    if not isinstance(vocab, dict) or "[MASK]" not in vocab:
        raise ValueError(f"entity_vocab.json of {model_name!r} has no '[MASK]' entry")
    return int(vocab["[MASK]"])


def copy_query_to_entity_queries(model: LukeModel) -> None:
    """Sets w2e, e2w and e2e query weights of every layer to the word query Q (LUKE's init)."""
    for layer in model.encoder.layer:
        attention = layer.attention.self
        for name in ENTITY_QUERIES:
            getattr(attention, name).load_state_dict(attention.query.state_dict())


def set_task_entities(model: LukeModel, count: int, mask_embedding: torch.Tensor) -> None:
    """Replaces the entity vocabulary by ``count`` ids: 0 is ``[PAD]`` (zero), every other id starts
    as ``mask_embedding`` (``[MASK]``, ``[MASK2]``, ... of the task)."""
    if count < 2:
        raise ValueError(f"num_task_entities must be at least 2 ([PAD], [MASK]), got {count}")
    old = model.entity_embeddings.entity_embeddings
    new = nn.Embedding(count, old.embedding_dim, padding_idx=0, dtype=old.weight.dtype)
    with torch.no_grad():
        new.weight.zero_()
        new.weight[1:] = mask_embedding.to(new.weight.dtype)
    model.entity_embeddings.entity_embeddings = new
    model.config.entity_vocab_size = count


def luke_from_bert_like(model_name: str, num_task_entities: int) -> LukeModel:
    """A LUKE initialised from a BERT or RoBERTa checkpoint (Yamada et al. 2020, §3.4).

    Word embeddings and transformer layers are copied; the three entity query matrices start as Q;
    the ``[MASK]`` entity embedding is drawn from N(0, initializer_range²) and shared by all task
    entities. Our choices where the paper is silent: entity position ``i`` starts as the word
    position of token ``i``; entity token-type embeddings and LayerNorm start as the word ones.
    BERT has no position offset, so one padding row is put in front of its position table to get
    LUKE's layout (positions start at ``pad_token_id + 1``).
    """
    source = AutoModel.from_pretrained(model_name, add_pooling_layer=False)
    config = _luke_config(source.config, num_task_entities)
    model = LukeModel(config, add_pooling_layer=False)
    state = {k: v for k, v in source.state_dict().items() if not k.endswith("_ids")}
    word_positions = state["embeddings.position_embeddings.weight"]
    offset = config.pad_token_id + 1
    if source.config.model_type == "bert":
        padding_rows = torch.zeros(offset, word_positions.size(1), dtype=word_positions.dtype)
        word_positions = torch.cat([padding_rows, word_positions], dim=0)
        state["embeddings.position_embeddings.weight"] = word_positions
    missing, unexpected = model.load_state_dict(state, strict=False)
    new_prefixes = ("entity_embeddings.",) + tuple(f"attention.self.{q}." for q in ENTITY_QUERIES)
    surprising = [key for key in missing if not any(p in key for p in new_prefixes)]
    if unexpected or surprising:
        raise ValueError(
            f"{model_name!r} does not map onto LUKE: missing {surprising}, unexpected {unexpected}"
        )
    copy_query_to_entity_queries(model)
    entities = model.entity_embeddings
    with torch.no_grad():
        real = word_positions.size(0) - offset
        entities.position_embeddings.weight[:real] = word_positions[offset:]
        for name in SHARED_WITH_WORDS:
            getattr(entities, name).load_state_dict(getattr(model.embeddings, name).state_dict())
        mask_embedding = torch.randn(config.entity_emb_size) * config.initializer_range
    set_task_entities(model, num_task_entities, mask_embedding)
    logger.info("Initialised LUKE from %s checkpoint %s", source.config.model_type, model_name)
    return model


def _luke_config(source, num_task_entities: int) -> LukeConfig:
    offset_rows = 1 + source.pad_token_id if source.model_type == "bert" else 0
    return LukeConfig(
        vocab_size=source.vocab_size,
        entity_vocab_size=num_task_entities,
        hidden_size=source.hidden_size,
        entity_emb_size=source.hidden_size,
        num_hidden_layers=source.num_hidden_layers,
        num_attention_heads=source.num_attention_heads,
        intermediate_size=source.intermediate_size,
        hidden_act=source.hidden_act,
        hidden_dropout_prob=source.hidden_dropout_prob,
        attention_probs_dropout_prob=source.attention_probs_dropout_prob,
        max_position_embeddings=source.max_position_embeddings + offset_rows,
        type_vocab_size=source.type_vocab_size,
        initializer_range=source.initializer_range,
        layer_norm_eps=source.layer_norm_eps,
        use_entity_aware_attention=True,
        pad_token_id=source.pad_token_id,
        bos_token_id=source.bos_token_id,
        eos_token_id=source.eos_token_id,
    )
