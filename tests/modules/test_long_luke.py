"""Long-LUKE encoder: exact against transformers' LukeModel and an explicit band+global mask."""

import json

import pytest
import torch
from allennlp.common import Params
from allennlp.modules.token_embedders import TokenEmbedder
from transformers import LukeConfig, LukeModel

from allennlp_longent.modules.long_luke import LongLukeEmbedder

PAD = 1
WORDS = 38  # real word positions of the tiny LUKE (40 rows, RoBERTa offset 2)
LENGTHS = [30, 22, 9]
ENTITIES = [4, 2, 0]


@pytest.fixture(scope="module")
def tiny_luke_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tiny_luke")
    config = LukeConfig(
        vocab_size=60, entity_vocab_size=5, hidden_size=16, entity_emb_size=8,
        num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=WORDS + 2, type_vocab_size=2, pad_token_id=PAD,
    )
    torch.manual_seed(0)
    LukeModel(config).save_pretrained(directory)
    vocab = {"[PAD]": 0, "[UNK]": 1, "[MASK]": 2, "Foo": 3, "Bar": 4}
    (directory / "entity_vocab.json").write_text(json.dumps(vocab))
    return directory


def make_batch(lengths=LENGTHS, entities=ENTITIES, seed=1):
    """Padded words and entities; entity j of a row spans one to three of its real words."""
    generator = torch.Generator().manual_seed(seed)
    batch, length, count = len(lengths), max(lengths), max(max(entities), 1)
    ids = torch.full((batch, length), PAD)
    mask = torch.zeros(batch, length, dtype=torch.long)
    entity_ids = torch.zeros(batch, count, dtype=torch.long)
    entity_mask = torch.zeros(batch, count, dtype=torch.long)
    positions = torch.full((batch, count, 3), -1)
    for row, (n, m) in enumerate(zip(lengths, entities)):
        ids[row, :n] = torch.randint(3, 60, (n,), generator=generator)
        mask[row, :n] = 1
        entity_ids[row, :m] = torch.randint(1, 5, (m,), generator=generator)
        entity_mask[row, :m] = 1
        for j in range(m):
            start = int(torch.randint(0, n - 3, (1,), generator=generator))
            width = 1 + j % 3
            positions[row, j, :width] = torch.arange(start, start + width)
    types = (torch.arange(length) >= 5).long().expand(batch, -1) * mask
    return dict(token_ids=ids, mask=mask, type_ids=types, entity_ids=entity_ids,
                entity_position_ids=positions, entity_mask=entity_mask)


def luke_reference(model: LukeModel, batch, windows=None):
    """Dense LUKE; with ``windows`` (one per layer) word→word pairs farther apart than window // 2
    are masked explicitly in the full (N + M)² score matrix."""
    words = model.embeddings(input_ids=batch["token_ids"], token_type_ids=batch["type_ids"])
    entities = model.entity_embeddings(
        batch["entity_ids"], batch["entity_position_ids"], torch.zeros_like(batch["entity_ids"])
    )
    n, m = words.size(1), entities.size(1)
    keys = torch.cat([batch["mask"], batch["entity_mask"]], dim=1).bool()
    for layer, window in zip(model.encoder.layer, windows or [None] * len(model.encoder.layer)):
        allowed = torch.ones(n + m, n + m, dtype=torch.bool)
        if window is not None:
            index = torch.arange(n)
            allowed[:n, :n] = (index[:, None] - index[None, :]).abs() <= window // 2
        allowed = allowed[None] & keys[:, None, :]
        bias = (~allowed).float()[:, None] * torch.finfo(torch.float).min
        words, entities = layer(words, entities, bias)[:2]
    return words, entities


def assert_close_on_real(ours, reference, batch):
    words_mask, entity_mask = batch["mask"].bool(), batch["entity_mask"].bool()
    assert (ours[0] - reference[0])[words_mask].abs().max() <= 1e-5
    assert (ours[1] - reference[1])[entity_mask].abs().max() <= 1e-5


def luke_outputs(model: LukeModel, batch):
    """transformers' ``LukeModel`` on a :func:`make_batch` batch: word and entity states."""
    out = model(
        input_ids=batch["token_ids"], attention_mask=batch["mask"],
        token_type_ids=batch["type_ids"], entity_ids=batch["entity_ids"],
        entity_attention_mask=batch["entity_mask"],
        entity_position_ids=batch["entity_position_ids"],
    )
    return out.last_hidden_state, out.entity_last_hidden_state


def test_full_window_equals_luke_model(tiny_luke_dir):
    embedder = LongLukeEmbedder(str(tiny_luke_dir), attention_window=64).eval()
    model = LukeModel.from_pretrained(tiny_luke_dir).eval()
    batch = make_batch()
    with torch.no_grad():
        ours = embedder(**batch)
        theirs = luke_outputs(model, batch)
    assert_close_on_real(ours, theirs, batch)


@pytest.mark.parametrize("windows", [[2, 2], [4, 10], [6, 6]])
def test_small_window_equals_explicit_band_mask(tiny_luke_dir, windows):
    embedder = LongLukeEmbedder(str(tiny_luke_dir), attention_window=windows).eval()
    model = LukeModel.from_pretrained(tiny_luke_dir).eval()
    batch = make_batch()
    with torch.no_grad():
        ours = embedder(**batch)
        banded = luke_reference(model, batch, windows)
        full = luke_reference(model, batch)
    assert_close_on_real(ours, banded, batch)
    assert (ours[0] - full[0])[batch["mask"].bool()].abs().max() > 1e-3  # the band matters


def test_state_dict_keeps_luke_layout(tiny_luke_dir):
    embedder = LongLukeEmbedder(str(tiny_luke_dir), attention_window=8)
    model = LukeModel.from_pretrained(tiny_luke_dir, add_pooling_layer=False)
    ours = embedder.encoder.luke.state_dict()
    theirs = model.state_dict()
    assert ours.keys() == theirs.keys()
    assert all(torch.equal(ours[key], theirs[key]) for key in theirs)


def test_position_extension_is_exact_within_original_length(tiny_luke_dir):
    short = LongLukeEmbedder(str(tiny_luke_dir), attention_window=6).eval()
    long = LongLukeEmbedder(str(tiny_luke_dir), attention_window=6, max_length=4 * WORDS).eval()
    batch = make_batch([WORDS, 20, 11], [3, 1, 2])
    with torch.no_grad():
        assert_close_on_real(short(**batch), long(**batch), batch)
        beyond = make_batch([3 * WORDS + 5, 70], [4, 2])
        words, entities = long(**beyond)
    assert words.shape == (2, 3 * WORDS + 5, 16) and entities.shape == (2, 4, 16)
    with pytest.raises(ValueError, match="position table"):
        short(**beyond)


def test_task_entities_start_from_mask_entity(tiny_luke_dir):
    embedder = LongLukeEmbedder(str(tiny_luke_dir), num_task_entities=3, output="entities")
    model = LukeModel.from_pretrained(tiny_luke_dir)
    table = embedder.encoder.luke.entity_embeddings.entity_embeddings.weight
    mask_row = model.entity_embeddings.entity_embeddings.weight[2]
    assert table.shape == (3, 8)
    assert torch.equal(table[0], torch.zeros(8))
    assert torch.equal(table[1], mask_row) and torch.equal(table[2], mask_row)
    batch = make_batch(entities=[2, 1, 0])
    batch["entity_ids"] = batch["entity_ids"].clamp(max=2)
    assert embedder(**batch).shape == (3, 2, 16)


def test_from_params(tiny_luke_dir):
    params = Params({
        "type": "long_luke", "model_name": str(tiny_luke_dir), "max_length": 64,
        "position_init": {"type": "constant"}, "attention_window": [4, 8], "output": "words",
        "num_task_entities": 3, "gradient_checkpointing": True, "train_parameters": False,
    })
    embedder = TokenEmbedder.from_params(params)
    assert isinstance(embedder, LongLukeEmbedder)
    assert embedder.get_output_dim() == 16
    assert embedder.encoder.attention_window == [4, 8]
    assert embedder.encoder.max_words == 64
    assert not any(p.requires_grad for p in embedder.parameters())
    batch = make_batch([50, 12, 7], [2, 2, 0])
    batch["entity_ids"] = batch["entity_ids"].clamp(max=2)
    assert embedder(**batch).shape == (3, 50, 16)


def test_gradient_checkpointing_gives_the_same_gradients(tiny_luke_dir):
    grads = []
    for flag in (False, True):
        embedder = LongLukeEmbedder(
            str(tiny_luke_dir), attention_window=6, gradient_checkpointing=flag
        )
        embedder.train()
        for module in embedder.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
        words, entities = embedder(**make_batch())
        (words.sum() + entities.sum()).backward()
        grads.append([p.grad.clone() for p in embedder.parameters() if p.grad is not None])
    assert len(grads[0]) == len(grads[1]) > 0
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(*grads))


def test_entity_free_batches(tiny_luke_dir):
    batch = make_batch(entities=[0, 0, 0])
    empty = {key: value[:, :0] if key.startswith("entity") else value
             for key, value in batch.items()}
    words_only = LongLukeEmbedder(str(tiny_luke_dir), attention_window=64, output="words").eval()
    model = LukeModel.from_pretrained(tiny_luke_dir).eval()
    with torch.no_grad():
        ours = words_only(**empty)
        theirs = model(input_ids=batch["token_ids"], attention_mask=batch["mask"],
                       token_type_ids=batch["type_ids"]).last_hidden_state
    assert (ours - theirs)[batch["mask"].bool()].abs().max() <= 1e-5
    with torch.no_grad():
        padded_only = words_only(**batch)  # one all-padding entity column
    assert (padded_only - theirs)[batch["mask"].bool()].abs().max() <= 1e-5
    both = LongLukeEmbedder(str(tiny_luke_dir), attention_window=8)
    with pytest.raises(ValueError, match="needs entities"):
        both(**empty)


def test_bad_inputs_raise_clear_errors(tiny_luke_dir):
    embedder = LongLukeEmbedder(str(tiny_luke_dir), attention_window=8)
    batch = make_batch()
    batch["entity_position_ids"][0, 0, 0] = LENGTHS[0]
    with pytest.raises(ValueError, match="entity_position_ids"):
        embedder(**batch)
    batch = make_batch()
    batch["entity_ids"][0, 0] = 5
    with pytest.raises(ValueError, match="entity_ids"):
        embedder(**batch)
    with pytest.raises(ValueError, match="output"):
        LongLukeEmbedder(str(tiny_luke_dir), output="spans")
    with pytest.raises(ValueError, match="attention_window"):
        LongLukeEmbedder(str(tiny_luke_dir), attention_window=5)
    with pytest.raises(ValueError, match="attention_window"):
        LongLukeEmbedder(str(tiny_luke_dir), attention_window=[4, 4, 4])
    with pytest.raises(ValueError, match="max_length"):
        LongLukeEmbedder(str(tiny_luke_dir), max_length=10)
