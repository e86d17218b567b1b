"""``num_layers`` of the ``extended_pretrained_transformer`` embedder: the first N layers of the
checkpoint, checked against the untruncated model's own hidden state after layer N."""

import pytest
import torch
from allennlp.common import Params
from allennlp.modules.token_embedders import TokenEmbedder
from transformers import BertModel

NO_DROPOUT = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}


def _embedder(model_dir, **kwargs):
    params = {"type": "extended_pretrained_transformer", "model_name": str(model_dir), **kwargs}
    return TokenEmbedder.from_params(Params(params))


def test_one_layer_equals_the_full_models_hidden_state_after_its_first_layer(tiny_bert_dir):
    ids = torch.randint(10, 60, (2, 20), generator=torch.Generator().manual_seed(1))
    mask = torch.ones_like(ids, dtype=torch.bool)
    mask[1, 15:] = False
    full = BertModel.from_pretrained(str(tiny_bert_dir), **NO_DROPOUT).eval()
    with torch.no_grad():
        hidden = full(input_ids=ids, attention_mask=mask.long(), output_hidden_states=True)
    truncated = _embedder(tiny_bert_dir, num_layers=1, max_length=128,
                          transformer_kwargs=NO_DROPOUT).eval()
    with torch.no_grad():
        out = truncated(ids, mask)
    # hidden_states[0] is the embedding output, [1] the output of layer 1 of 2
    assert torch.allclose(out[0], hidden.hidden_states[1][0], atol=1e-5)
    assert torch.allclose(out[1, :15], hidden.hidden_states[1][1, :15], atol=1e-5)
    assert not torch.allclose(out[0], hidden.hidden_states[2][0], atol=1e-3)
    assert len(truncated.transformer_model.encoder.layer) == 1
    assert truncated.transformer_model.config.num_hidden_layers == 1  # archived config


def test_all_layers_is_the_unchanged_model(tiny_bert_dir):
    ids = torch.randint(10, 60, (1, 12), generator=torch.Generator().manual_seed(2))
    mask = torch.ones_like(ids, dtype=torch.bool)
    plain = _embedder(tiny_bert_dir, transformer_kwargs=NO_DROPOUT).eval()
    kept = _embedder(tiny_bert_dir, num_layers=2, transformer_kwargs=NO_DROPOUT).eval()
    with torch.no_grad():
        assert torch.equal(plain(ids, mask), kept(ids, mask))


@pytest.mark.parametrize("layers", [0, 3])
def test_num_layers_outside_the_model_is_a_clear_error(tiny_bert_dir, layers):
    with pytest.raises(ValueError, match=r"num_layers must be between 1 and the model's 2 layers"):
        _embedder(tiny_bert_dir, num_layers=layers)
