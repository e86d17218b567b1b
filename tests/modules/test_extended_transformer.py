"""``extended_pretrained_transformer`` tokenizer, indexer and embedder on a tiny random BERT with
64 positions, extended to 128."""

import pytest
import torch
from allennlp.common import Params
from allennlp.data import Token, Vocabulary
from allennlp.data.token_indexers import TokenIndexer
from allennlp.data.tokenizers import Tokenizer
from allennlp.modules.token_embedders import PretrainedTransformerEmbedder, TokenEmbedder

from allennlp_longent.modules.extended_transformer import (
    ExtendedPretrainedTransformerEmbedder,
    ExtendedPretrainedTransformerIndexer,
    ExtendedPretrainedTransformerTokenizer,
)

NO_DROPOUT = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}


def _embedder(model_dir, **kwargs) -> ExtendedPretrainedTransformerEmbedder:
    params = {"type": "extended_pretrained_transformer", "model_name": str(model_dir), **kwargs}
    return TokenEmbedder.from_params(Params(params))


def _ids(length: int, batch: int = 2, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(10, 60, (batch, length), generator=generator)


def test_all_three_are_constructible_from_params(tiny_bert_dir):
    name = str(tiny_bert_dir)
    tokenizer = Tokenizer.from_params(
        Params({"type": "extended_pretrained_transformer", "model_name": name, "max_length": 128})
    )
    indexer = TokenIndexer.from_params(
        Params({"type": "extended_pretrained_transformer", "model_name": name, "max_length": 128})
    )
    embedder = _embedder(tiny_bert_dir, max_length=128, position_init={"type": "repeat"})
    assert isinstance(tokenizer, ExtendedPretrainedTransformerTokenizer)
    assert isinstance(indexer, ExtendedPretrainedTransformerIndexer)
    assert isinstance(embedder, ExtendedPretrainedTransformerEmbedder)
    assert tokenizer.tokenizer.model_max_length == 128
    assert embedder.positions == 128
    assert embedder.transformer_model.config.max_position_embeddings == 128
    table = embedder.transformer_model.embeddings.position_embeddings.weight
    assert table.shape[0] == 128
    assert torch.equal(table[64:], table[:64])  # E_repeat copies the 64 learned rows


def test_without_max_length_the_model_is_unchanged(tiny_bert_dir):
    embedder = _embedder(tiny_bert_dir)
    assert embedder.positions == 64
    assert embedder.transformer_model.config.max_position_embeddings == 64


@pytest.mark.parametrize("init", ["repeat", "head", "constant"])
def test_extended_equals_unextended_within_64_pieces(tiny_bert_dir, init):
    plain = PretrainedTransformerEmbedder(str(tiny_bert_dir)).eval()
    extended = _embedder(tiny_bert_dir, max_length=128, position_init={"type": init}).eval()
    ids = _ids(64)
    mask = torch.ones_like(ids, dtype=torch.bool)
    mask[1, 50:] = False
    type_ids = torch.zeros_like(ids)
    type_ids[:, 20:] = 1
    with torch.no_grad():
        expected = plain(ids, mask, type_ids)
        actual = extended(ids, mask, type_ids)
        longer = extended(_ids(128, batch=1), torch.ones(1, 128, dtype=torch.bool))
    assert torch.equal(expected, actual)
    assert longer.shape == (1, 128, 16)


def test_longer_input_than_max_length_is_a_clear_error(tiny_bert_dir):
    embedder = _embedder(tiny_bert_dir, max_length=128)
    with pytest.raises(ValueError, match="input of 129 word pieces exceeds the model's 128"):
        embedder(_ids(129, batch=1), torch.ones(1, 129, dtype=torch.bool))
    indexer = ExtendedPretrainedTransformerIndexer(str(tiny_bert_dir), max_length=128)
    tokens = [Token("a", text_id=10)] * 129
    with pytest.raises(ValueError, match="sequence of 129 word pieces exceeds max_length=128"):
        indexer.tokens_to_indices(tokens, Vocabulary())
    indexed = indexer.tokens_to_indices(tokens[:128], Vocabulary())
    assert len(indexed["token_ids"]) == 128  # read whole, not folded into segments
    assert "segment_concat_mask" not in indexed


def test_tokenizer_truncates_to_max_length(tiny_bert_dir):
    tokenizer = ExtendedPretrainedTransformerTokenizer(str(tiny_bert_dir), max_length=128)
    tokens = tokenizer.tokenize(" ".join(["the star"] * 200))
    assert len(tokens) == 128
    assert tokens[0].text == "[CLS]" and tokens[-1].text == "[SEP]"


def test_gradient_checkpointing_gives_the_same_outputs_and_gradients(tiny_bert_dir):
    results = []
    for checkpointing in (False, True):
        torch.manual_seed(0)
        embedder = _embedder(
            tiny_bert_dir,
            max_length=128,
            gradient_checkpointing=checkpointing,
            transformer_kwargs=NO_DROPOUT,
        ).train()
        assert embedder.transformer_model.is_gradient_checkpointing == checkpointing
        ids = _ids(100)
        mask = torch.ones_like(ids, dtype=torch.bool)
        mask[0, 70:] = False
        output = embedder(ids, mask)
        (output * torch.linspace(-1, 1, output.size(-1))).sum().backward()
        grads = {
            name: param.grad.clone()
            for name, param in embedder.named_parameters()
            if param.grad is not None
        }
        results.append((output.detach(), grads))
    (plain_out, plain_grads), (ckpt_out, ckpt_grads) = results
    assert torch.allclose(plain_out, ckpt_out, atol=1e-6)
    assert plain_grads.keys() == ckpt_grads.keys()
    assert any("encoder.layer.1" in name for name in plain_grads)
    for name in plain_grads:
        assert torch.allclose(plain_grads[name], ckpt_grads[name], atol=1e-6), name


def test_archived_copy_takes_config_and_model_kwargs(tiny_bert_dir, tmp_path):
    """Loading from an archive's copy (no weights) builds the model from its config; dropout
    rates given as ``transformer_kwargs`` are config attributes there, not ``BertModel``
    arguments, and ``add_pooling_layer`` still reaches the constructor."""
    from allennlp.common import cached_transformers

    kwargs = {**NO_DROPOUT, "add_pooling_layer": False}
    # AllenNLP's model cache is keyed without add_pooling_layer: an earlier test's model of the
    # same checkpoint (with its pooler) would come back instead of a new one.
    cached_transformers._clear_caches()
    trained = _embedder(tiny_bert_dir, transformer_kwargs=kwargs, serialization_dir=str(tmp_path))
    assert (tmp_path / "transformers").is_dir()
    cached_transformers._clear_caches()
    loaded = _embedder(tiny_bert_dir, transformer_kwargs=kwargs, serialization_dir=str(tmp_path))
    model = loaded.transformer_model
    assert model.pooler is None and trained.transformer_model.pooler is None
    assert model.config.hidden_dropout_prob == 0.0
    assert model.config.attention_probs_dropout_prob == 0.0
