"""Exactness of the Embeddings-repeat position initialisers (Yao et al. 2020, §3)."""

import pytest
import torch
from allennlp.common import Params
from transformers import AutoModel, BertConfig, BertModel, RobertaConfig, RobertaModel

from allennlp_longent.modules.position_extension import (
    PositionInitializer,
    extend_checkpoint,
    extend_position_embeddings,
    find_position_tables,
)

INITIALIZERS = ["repeat", "head", "constant"]
SMALL = dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32)


def _bert(tmp_path):
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=50, max_position_embeddings=16, **SMALL)).save_pretrained(
        tmp_path / "bert"
    )
    return BertModel.from_pretrained(tmp_path / "bert").eval()


def _roberta(tmp_path):
    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=50, max_position_embeddings=18, pad_token_id=1, **SMALL)
    RobertaModel(config).save_pretrained(tmp_path / "roberta")
    return RobertaModel.from_pretrained(tmp_path / "roberta").eval()


@pytest.mark.parametrize("init", INITIALIZERS)
@pytest.mark.parametrize("make", [_bert, _roberta], ids=["bert", "roberta"])
def test_extended_model_is_identical_within_original_length(tmp_path, make, init):
    model = make(tmp_path)
    real = find_position_tables(model)[0].real_positions
    ids = torch.randint(3, 50, (2, real))
    mask = torch.ones_like(ids)
    mask[1, real - 5 :] = 0
    with torch.no_grad():
        before = model(input_ids=ids, attention_mask=mask).last_hidden_state
        extend_position_embeddings(model, 3 * real + 4, init)
        after = model(input_ids=ids, attention_mask=mask).last_hidden_state
        longer = model(input_ids=torch.randint(3, 50, (1, 3 * real + 4))).last_hidden_state
    assert torch.equal(before, after)
    assert longer.shape[1] == 3 * real + 4


def test_repeat_rows_equal_original_block_by_block(tmp_path):
    model = _roberta(tmp_path)
    old = model.embeddings.position_embeddings.weight.detach().clone()
    extend_position_embeddings(model, 16 * 3 + 5, "repeat")
    new = model.embeddings.position_embeddings.weight.detach()
    assert model.config.max_position_embeddings == 2 + 16 * 3 + 5
    assert torch.equal(new[:2], old[:2])
    for block in range(3):
        start = 2 + 16 * block
        assert torch.equal(new[start : start + 16], old[2:18])
    assert torch.equal(new[2 + 48 :], old[2:7])


def test_constant_rows_past_original_equal_last_row(tmp_path):
    model = _bert(tmp_path)
    old = model.embeddings.position_embeddings.weight.detach().clone()
    extend_position_embeddings(model, 40, "constant")
    new = model.embeddings.position_embeddings.weight.detach()
    assert torch.equal(new[:16], old)
    assert torch.equal(new[16:], old[15:16].expand(24, -1))


def test_head_rows_are_fresh_with_initializer_range(tmp_path):
    model = _bert(tmp_path)
    old = model.embeddings.position_embeddings.weight.detach().clone()
    extend_position_embeddings(
        model, 4000, PositionInitializer.from_params(Params({"type": "head", "seed": 1}))
    )
    new = model.embeddings.position_embeddings.weight.detach()
    assert torch.equal(new[:16], old)
    assert abs(new[16:].std().item() - model.config.initializer_range) < 0.002
    assert model.embeddings.position_ids.shape == (1, 4000)
    assert model.embeddings.token_type_ids.shape == (1, 4000)


def test_shrinking_is_refused(tmp_path):
    with pytest.raises(ValueError, match="smaller than the model's 16 positions"):
        extend_position_embeddings(_bert(tmp_path), 8)


def test_luke_entity_position_table_is_extended(tmp_path):
    from transformers import LukeConfig, LukeModel

    config = LukeConfig(
        vocab_size=50,
        entity_vocab_size=5,
        entity_emb_size=8,
        max_position_embeddings=18,
        pad_token_id=1,
        **SMALL,
    )
    model = LukeModel(config).eval()
    old_entity = model.entity_embeddings.position_embeddings.weight.detach().clone()
    tables = find_position_tables(model)
    assert [(t.name, t.offset, t.real_positions) for t in tables] == [
        ("embeddings.position_embeddings", 2, 16),
        ("entity_embeddings.position_embeddings", 0, 16),
    ]
    extend_position_embeddings(model, 32, "repeat")
    new_entity = model.entity_embeddings.position_embeddings.weight.detach()
    assert new_entity.shape[0] == 34
    assert torch.equal(new_entity[:16], old_entity[:16])
    assert torch.equal(new_entity[16:32], old_entity[:16])


@pytest.mark.parametrize("init", INITIALIZERS)
def test_converted_checkpoint_reloads_with_plain_transformers(tiny_bert_dir, tmp_path, init):
    from transformers import AutoTokenizer

    target = tmp_path / "extended"
    extend_checkpoint(str(tiny_bert_dir), str(target), 150, init)
    model = AutoModel.from_pretrained(target)
    assert model.config.max_position_embeddings == 150
    assert model.embeddings.position_embeddings.weight.shape[0] == 150
    assert AutoTokenizer.from_pretrained(target).model_max_length == 150
    original = AutoModel.from_pretrained(tiny_bert_dir).eval()
    ids = torch.randint(5, 20, (1, 64))
    with torch.no_grad():
        assert torch.equal(
            original(input_ids=ids).last_hidden_state, model.eval()(input_ids=ids).last_hidden_state
        )


def test_extend_positions_command(tiny_bert_dir, tmp_path, capsys):
    from allennlp_longent.commands.cli import main

    main(["extend-positions", str(tiny_bert_dir), str(tmp_path / "out"), "--max-length", "128"])
    assert "128 positions (repeat)" in capsys.readouterr().out
    assert AutoModel.from_pretrained(tmp_path / "out").config.max_position_embeddings == 128
