"""ATLOP's localized context pooling (Zhou et al. 2021, §3.3) in ``luke_docred``: the pair contexts
equal a dense computation of the paper's formula from transformers' own (dense) LUKE attention,
and with a narrow window the recomputed entity attention is the one the banded layer used."""

import pytest
import torch
from allennlp.data import Batch, Vocabulary
from conftest import shared_data
from transformers import LukeModel

from allennlp_longent.modules.long_luke import LongLukeEmbedder
from allennlp_longent.relations.dataset_readers import DocredReader
from allennlp_longent.relations.models.docred_model import LukeDocred


def build(tiny_luke: str, window: int, documents: str = "[1:3]"):
    """A context-pooling model over the tiny LUKE and a padded batch of two real documents."""
    path = shared_data("re-docred", "dev_revised.json")
    reader = DocredReader(transformer_model_name=tiny_luke, max_length=512, per_mention=True)
    instances = list(reader.read(f"{path}{documents}"))
    vocab = Vocabulary.from_instances(instances)
    embedder = LongLukeEmbedder(tiny_luke, attention_window=window, output="both")
    model = LukeDocred(vocab, embedder, projection_dim=16, block_size=4, context_pooling=True)
    model.eval()
    batch = Batch(instances)
    batch.index_instances(vocab)
    return model, batch.as_tensor_dict()


def dense_reference(model: LukeDocred, tensors) -> torch.Tensor:
    """c^(s,o) for every pair by the paper's formula, one pair at a time, from the attention
    probabilities and last hidden states of transformers' dense ``LukeModel`` (same weights)."""
    luke = model.embedder.encoder.luke
    dense = LukeModel(luke.config, add_pooling_layer=False).eval()
    dense.load_state_dict(luke.state_dict())
    tokens = tensors["tokens"]["tokens"]
    mask = tokens["mask"].long()
    pad = luke.config.pad_token_id
    output = dense(
        input_ids=tokens["token_ids"],
        attention_mask=mask,
        position_ids=torch.cumsum(mask, 1) * mask + pad,
        token_type_ids=tokens["type_ids"],
        entity_ids=tensors["entity_ids"],
        entity_attention_mask=tensors["entity_mask"].long(),
        entity_position_ids=tensors["entity_position_ids"],
        output_attentions=True,
    )
    words = output.last_hidden_state.size(1)
    attention = output.attentions[-1]  # (B, heads, N + M, N + M)
    states = torch.cat([output.last_hidden_state, output.entity_last_hidden_state], 1)
    mentions = tensors["entity_mention_index"]
    pairs = tensors["pair_indices"]
    expected = torch.zeros(pairs.shape[0], pairs.shape[1], states.size(-1))
    for row in range(pairs.size(0)):
        for column, (s, o) in enumerate(pairs[row].tolist()):
            if s < 0:
                continue
            entity_attention = []
            for entity in (s, o):
                tokens_of = [m for m in mentions[row, entity].tolist() if m >= 0]
                rows = [attention[row, :, words + m] for m in tokens_of]
                entity_attention.append(sum(rows) / len(rows))  # A^E: mean over mentions
            product = entity_attention[0] * entity_attention[1]  # A^(s,o), per head
            q = product.sum(0)  # sum over heads
            a = q / q.sum()
            expected[row, column] = states[row].T @ a  # c = H^T a
    return expected


def pair_contexts(model: LukeDocred, tensors):
    words, entities = model.encode(
        tensors["tokens"], tensors["entity_ids"], tensors["entity_position_ids"],
        tensors["entity_mask"],
    )
    return model.pair_context(
        words, entities, tensors["pair_indices"], tensors["entity_mention_index"]
    ), (words, entities)


def test_pair_context_equals_atlop_formula_on_dense_luke_attention(tiny_luke):
    model, tensors = build(tiny_luke, window=1024)  # window over every word: dense attention
    assert tensors["tokens"]["tokens"]["mask"].sum(1).unique().numel() == 2  # word padding
    assert (tensors["entity_mention_index"] >= 0).sum(-1).max() > 1  # multi-mention entities
    assert (tensors["pair_indices"][..., 0] < 0).any()  # padded pairs
    with torch.no_grad():
        context, _ = pair_contexts(model, tensors)
    expected = dense_reference(model, tensors)
    assert context.shape == expected.shape
    assert (expected.abs().sum(-1) > 0).sum() == (tensors["pair_indices"][..., 0] >= 0).sum()
    torch.testing.assert_close(context, expected, atol=1e-5, rtol=1e-5)


def test_recomputed_attention_is_the_banded_layers_entity_attention(tiny_luke):
    """With an 8-word window the words are banded, yet every entity row is a full distribution,
    and weighting the layer's values by it gives the layer's own entity output."""
    model, tensors = build(tiny_luke, window=8)
    layer = model.embedder.encoder.luke.encoder.layer[-1].attention.self
    seen = {}
    handle = layer.register_forward_hook(
        lambda module, args, output: seen.update(args=args, output=output)
    )
    with torch.no_grad():
        pair_contexts(model, tensors)
        model.context_attention.inputs = layer_inputs = dict(
            zip(("word_hidden_states", "entity_hidden_states", "attention_mask"), seen["args"])
        )
        probabilities = model.context_attention.probabilities()
    handle.remove()
    words = layer_inputs["word_hidden_states"].size(1)
    word_mask = tensors["tokens"]["tokens"]["mask"]
    assert probabilities.size(-1) == words + tensors["entity_ids"].size(1)
    # attention reaches words far outside the 8-word band around the entity's words
    far = probabilities[..., 100:words].sum(-1)
    assert (far[tensors["entity_mask"].bool().unsqueeze(1).expand_as(far)] > 0).all()
    assert (probabilities[..., :words][~word_mask.bool()[:, None, None, :].expand(
        -1, probabilities.size(1), probabilities.size(2), -1)] == 0).all()
    hidden = torch.cat([layer_inputs["word_hidden_states"],
                        layer_inputs["entity_hidden_states"]], 1)
    values = layer.value(hidden)
    values = values.view(*values.shape[:2], layer.num_heads, layer.head_size).transpose(1, 2)
    entity_output = (probabilities @ values).transpose(1, 2).flatten(2)
    real = tensors["entity_mask"].bool()
    torch.testing.assert_close(entity_output[real], seen["output"][1][real], atol=1e-5, rtol=1e-5)


def test_context_enters_the_projections_and_gets_gradients(tiny_luke):
    model, tensors = build(tiny_luke, window=8)
    model.train()
    output = model(**tensors)
    output["loss"].backward()
    assert model.head_context.weight.grad.abs().sum() > 0
    assert model.tail_context.weight.grad.abs().sum() > 0
    e2w = model.embedder.encoder.luke.encoder.layer[-1].attention.self.e2w_query.weight
    assert e2w.grad.abs().sum() > 0


def test_context_pooling_refuses_an_embedder_without_luke_attention(tiny_luke):
    class Plain(torch.nn.Module):
        def get_output_dim(self):
            return 32

    with pytest.raises(ValueError, match="context_pooling needs the 'long_luke' embedder"):
        LukeDocred(Vocabulary(), Plain(), context_pooling=True)
