"""Long-LUKE initialised from BERT and RoBERTa the way LUKE was (Yamada et al. 2020, §3.4)."""

import pytest
import torch
from transformers import AutoModel, RobertaConfig, RobertaModel

from allennlp_longent.modules.long_luke import LongLukeEmbedder
from allennlp_longent.modules.luke_checkpoint import ENTITY_QUERIES


@pytest.fixture(scope="module")
def tiny_roberta_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tiny_roberta")
    config = RobertaConfig(
        vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=34, pad_token_id=1, type_vocab_size=1,
    )
    torch.manual_seed(0)
    RobertaModel(config).save_pretrained(directory)
    return directory


@pytest.fixture(params=["bert", "roberta"])
def source_dir(request, tiny_bert_dir, tiny_roberta_dir):
    return tiny_bert_dir if request.param == "bert" else tiny_roberta_dir


def test_entity_queries_start_as_q(source_dir):
    embedder = LongLukeEmbedder(str(source_dir), attention_window=8, num_task_entities=4)
    for layer in embedder.encoder.luke.encoder.layer:
        attention = layer.attention.self
        for name in ENTITY_QUERIES:
            assert torch.equal(getattr(attention, name).weight, attention.query.weight)
            assert torch.equal(getattr(attention, name).bias, attention.query.bias)
    table = embedder.encoder.luke.entity_embeddings.entity_embeddings.weight
    assert table.shape == (4, 16)
    assert torch.equal(table[0], torch.zeros(16))
    assert all(torch.equal(table[i], table[1]) for i in (2, 3)) and table[1].abs().sum() > 0


def test_words_without_entities_equal_the_source_model(source_dir):
    source = AutoModel.from_pretrained(source_dir).eval()
    pad = source.config.pad_token_id
    real = source.config.max_position_embeddings - (0 if source.config.model_type == "bert" else 2)
    embedder = LongLukeEmbedder(
        str(source_dir), attention_window=2 * real, output="words", max_length=2 * real
    ).eval()
    torch.manual_seed(3)
    ids = torch.randint(5, 40, (2, real))
    mask = torch.ones_like(ids)
    ids[1, 10:], mask[1, 10:] = pad, 0
    no_entities = torch.zeros(2, 0, dtype=torch.long)
    with torch.no_grad():
        ours = embedder(ids, mask, entity_ids=no_entities, entity_mask=no_entities,
                        entity_position_ids=no_entities[..., None])
        theirs = source(input_ids=ids, attention_mask=mask).last_hidden_state
    assert (ours - theirs)[mask.bool()].abs().max() <= 1e-5


def test_entities_see_their_words(source_dir):
    embedder = LongLukeEmbedder(str(source_dir), attention_window=4, num_task_entities=3).eval()
    ids = torch.randint(5, 40, (2, 20))
    mask = torch.ones_like(ids)
    entity_ids = torch.tensor([[1, 2], [1, 0]])
    entity_mask = (entity_ids > 0).long()
    positions = torch.tensor([[[2, 3], [7, -1]], [[15, 16], [-1, -1]]])
    with torch.no_grad():
        words, entities = embedder(ids, mask, entity_ids=entity_ids, entity_mask=entity_mask,
                                   entity_position_ids=positions)
        changed = ids.clone()
        changed[0, 3] = 4
        _, moved = embedder(changed, mask, entity_ids=entity_ids, entity_mask=entity_mask,
                            entity_position_ids=positions)
    assert words.shape == (2, 20, 16) and entities.shape == (2, 2, 16)
    assert not torch.allclose(moved[0], entities[0])
    assert torch.allclose(moved[1], entities[1])
