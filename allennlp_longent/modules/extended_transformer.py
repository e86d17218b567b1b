"""AllenNLP's pretrained-transformer tokenizer, indexer and embedder for inputs longer than the
checkpoint's position table (Yao et al. 2020): the table is extended at load time with a
:class:`PositionInitializer`, and sequences are read whole instead of being folded into segments.

In all three, ``max_length`` is the number of positions the extended model reads. All three take
``serialization_dir`` from AllenNLP and read the archived copy of the checkpoint when there is one
(:mod:`allennlp_longent.modules.portable`).
"""

from typing import Any, Dict, List, Optional, Tuple, Union

from allennlp.data.token_indexers import PretrainedTransformerIndexer, TokenIndexer
from allennlp.data.tokenizers import PretrainedTransformerTokenizer, Token, Tokenizer
from allennlp.data.vocabulary import Vocabulary
from allennlp.modules.token_embedders import PretrainedTransformerEmbedder, TokenEmbedder

from allennlp_longent.modules.portable import naming_checkpoint, resolve_model_name, save_copy
from allennlp_longent.modules.position_extension import (
    PositionInitializer,
    extend_position_embeddings,
    find_position_tables,
)


def _with_model_max_length(kwargs: Optional[Dict[str, Any]], max_length: Optional[int]) -> dict:
    kwargs = dict(kwargs or {})
    if max_length is not None:
        kwargs["model_max_length"] = max_length
    return kwargs


@Tokenizer.register("extended_pretrained_transformer")
class ExtendedPretrainedTransformerTokenizer(PretrainedTransformerTokenizer):
    """A :class:`PretrainedTransformerTokenizer` whose transformers tokenizer accepts
    ``max_length`` tokens; longer inputs are truncated to ``max_length``."""

    def __init__(
        self,
        model_name: str,
        max_length: Optional[int] = None,
        add_special_tokens: bool = True,
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        verification_tokens: Optional[Tuple[str, str]] = None,
        serialization_dir: Optional[str] = None,
    ) -> None:
        model_name, _ = resolve_model_name(model_name, serialization_dir)
        with naming_checkpoint(model_name):
            super().__init__(
                model_name,
                add_special_tokens=add_special_tokens,
                max_length=max_length,
                tokenizer_kwargs=_with_model_max_length(tokenizer_kwargs, max_length),
                verification_tokens=verification_tokens,
            )


@TokenIndexer.register("extended_pretrained_transformer")
class ExtendedPretrainedTransformerIndexer(PretrainedTransformerIndexer):
    """A :class:`PretrainedTransformerIndexer` that never folds: a sequence longer than
    ``max_length`` is an error rather than being cut into segments."""

    def __init__(
        self,
        model_name: str,
        max_length: Optional[int] = None,
        namespace: str = "tags",
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        serialization_dir: Optional[str] = None,
        **kwargs,
    ) -> None:
        model_name, _ = resolve_model_name(model_name, serialization_dir)
        with naming_checkpoint(model_name):
            super().__init__(
                model_name,
                namespace=namespace,
                max_length=None,
                tokenizer_kwargs=_with_model_max_length(tokenizer_kwargs, max_length),
                **kwargs,
            )
        self._positions = max_length

    def tokens_to_indices(self, tokens: List[Token], vocabulary: Vocabulary):
        if self._positions is not None and len(tokens) > self._positions:
            raise ValueError(
                f"sequence of {len(tokens)} word pieces exceeds max_length={self._positions}"
            )
        return super().tokens_to_indices(tokens, vocabulary)


@TokenEmbedder.register("extended_pretrained_transformer")
class ExtendedPretrainedTransformerEmbedder(PretrainedTransformerEmbedder):
    """:class:`PretrainedTransformerEmbedder` over a model whose position tables are extended to
    ``max_length`` with ``position_init`` (E_repeat by default) when it is built.

    ``gradient_checkpointing`` recomputes each layer's activations in the backward pass, which is
    what makes 64 candidates × 1024 tokens fit in memory when training.
    ``num_layers`` keeps only the checkpoint's first layers (the rest are dropped, as in
    DistilBERT-style layer truncation), so training and inference cost that fraction of the
    encoder; the archived config records the truncated depth.
    """

    def __init__(
        self,
        model_name: str,
        *,
        max_length: Optional[int] = None,
        position_init: Optional[PositionInitializer] = None,
        gradient_checkpointing: bool = False,
        num_layers: Optional[int] = None,
        train_parameters: bool = True,
        eval_mode: bool = False,
        last_layer_only: bool = True,
        override_weights_file: Optional[str] = None,
        override_weights_strip_prefix: Optional[str] = None,
        reinit_modules: Optional[Union[int, Tuple[int, ...], Tuple[str, ...]]] = None,
        load_weights: bool = True,
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        transformer_kwargs: Optional[Dict[str, Any]] = None,
        serialization_dir: Optional[str] = None,
    ) -> None:
        source, from_copy = resolve_model_name(model_name, serialization_dir)
        if from_copy:  # the architecture only: the archive's weights replace these
            _cache_architecture(source, transformer_kwargs)
        with naming_checkpoint(source):
            super().__init__(
                source,
                max_length=None,
                train_parameters=train_parameters,
                eval_mode=eval_mode,
                last_layer_only=last_layer_only,
                override_weights_file=override_weights_file,
                override_weights_strip_prefix=override_weights_strip_prefix,
                reinit_modules=reinit_modules,
                load_weights=load_weights,
                tokenizer_kwargs=_with_model_max_length(tokenizer_kwargs, max_length),
                transformer_kwargs=transformer_kwargs,
            )
        if num_layers is not None:
            truncate_layers(self.transformer_model, num_layers)
        self.positions = find_position_tables(self.transformer_model)[0].real_positions
        if max_length is not None and max_length != self.positions:
            extend_position_embeddings(self.transformer_model, max_length, position_init)
            self.positions = max_length
        if gradient_checkpointing:
            self.transformer_model.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": False}
            )
        if not from_copy:
            save_copy(model_name, serialization_dir, self.transformer_model.config, source)

    def forward(self, token_ids, mask, type_ids=None, segment_concat_mask=None):
        if token_ids.size(-1) > self.positions:
            raise ValueError(
                f"input of {token_ids.size(-1)} word pieces exceeds the model's {self.positions} "
                "positions; raise max_length or truncate in the dataset reader"
            )
        return super().forward(token_ids, mask, type_ids, segment_concat_mask)


def truncate_layers(model: Any, num_layers: int) -> None:
    """Keeps the first ``num_layers`` layers of a BERT-style encoder (``encoder.layer``)."""
    layers = getattr(getattr(model, "encoder", None), "layer", None)
    if layers is None:
        raise ValueError(f"num_layers: {type(model).__name__} has no encoder.layer to truncate")
    if not 1 <= num_layers <= len(layers):
        raise ValueError(f"num_layers must be between 1 and the model's {len(layers)} layers, "
                         f"got {num_layers}")
    model.encoder.layer = layers[:num_layers]
    model.config.num_hidden_layers = num_layers


def _cache_architecture(copy: str, transformer_kwargs: Optional[Dict[str, Any]]) -> None:
    """Puts a randomly initialised model of the copy's config into AllenNLP's transformer cache,
    where the embedder takes it from: the copy holds no weights, and ``load_weights=False`` would
    drop ``transformer_kwargs`` such as ``add_pooling_layer``."""
    from allennlp.common import cached_transformers
    from transformers import AutoConfig, AutoModel

    spec = cached_transformers.TransformerSpec(copy, None, None, None)
    if spec not in cached_transformers._model_cache:
        # as ``from_pretrained`` does: config attributes (dropout rates) go to the config, the
        # rest (``add_pooling_layer``) to the model's constructor
        config, model_kwargs = AutoConfig.from_pretrained(
            copy, return_unused_kwargs=True, **(transformer_kwargs or {}))
        model = AutoModel.from_config(config, **model_kwargs)
        cached_transformers._model_cache[spec] = model
