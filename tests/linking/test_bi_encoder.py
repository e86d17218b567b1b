"""The ``bi_encoder`` model, the ``separate`` reader layout and sentence-transformers pooling,
on ``fixtures/linking/zeshel`` with a tiny random BERT saved as a sentence-transformers folder."""

import pytest
import torch
from allennlp.common.testing import ModelTestCase
from conftest import FIXTURES, write_tiny_bert, write_tiny_sentence_encoder
from zeshel_fixture import experiment_params, fixture_words, model_and_batch

import allennlp_longent  # noqa: F401  (registers the components)
from allennlp_longent.modules.sentence_pooling import checkpoint_pooling, pool

EXPERIMENT = FIXTURES / "linking" / "bi_encoder.jsonnet"


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    return write_tiny_sentence_encoder(tmp_path_factory.mktemp("sbert"), fixture_words())


@pytest.fixture(scope="module")
def experiment(encoder_dir):
    yield from experiment_params(EXPERIMENT, encoder_dir)


@pytest.fixture(scope="module")
def bi_encoder(experiment):
    return model_and_batch(experiment, "dataset_reader")


class TestBiEncoder(ModelTestCase):
    def test_train_save_and_load(self, experiment):
        self.ensure_model_can_train_save_and_load(EXPERIMENT)


def test_checkpoint_pooling_is_read_and_required(tmp_path):
    for pooling, normalize in (("mean", True), ("cls", False), ("max", True)):
        path = write_tiny_sentence_encoder(tmp_path / pooling, pooling=pooling, normalize=normalize)
        assert checkpoint_pooling(str(path)) == (pooling, normalize)
    plain = write_tiny_bert(tmp_path / "plain")
    with pytest.raises(ValueError, match="1_Pooling.*set pooling"):
        checkpoint_pooling(str(plain))


def test_pooling_by_hand():
    vectors = torch.tensor([[[1.0, 2.0], [3.0, -4.0], [100.0, 100.0]]])
    mask = torch.tensor([[True, True, False]])
    assert pool(vectors, mask, "cls").tolist() == [[1.0, 2.0]]
    assert pool(vectors, mask, "mean").tolist() == [[2.0, -1.0]]
    assert pool(vectors, mask, "max").tolist() == [[3.0, 2.0]]


def test_separate_layout_fields(bi_encoder, encoder_dir):
    from transformers import AutoTokenizer

    _, _, instances = bi_encoder
    first = instances[0]  # m1: words 10-11 of A1, gold A2, candidates A3 A2 A4
    assert set(first.fields) == {"mention", "candidates", "entity", "label", "metadata"}
    tokenizer = AutoTokenizer.from_pretrained(str(encoder_dir))
    mention = [t.text for t in first["mention"].tokens]
    assert mention[0] == "[CLS]" and mention[-1] == "[SEP]" and len(mention) == 32
    start = mention.index("[unused0]")
    assert mention[start + 1 : mention.index("[unused1]")] == tokenizer.tokenize("a1w10 a1w11")
    entity = [t.text for t in first["entity"].tokens]
    title = tokenizer.tokenize("a2 page")
    assert entity[: len(title) + 2] == ["[CLS]"] + title + ["[unused2]"]
    assert first["label"].tensor.item() == 1
    assert [t.text for t in first["candidates"].field_list[1].tokens] == entity


def test_in_batch_loss_by_hand(bi_encoder):
    model, batch, instances = bi_encoder
    with torch.no_grad():
        output = model(**batch)
        mentions = model.embed(batch["mention"])
        golds = model.embed(batch["entity"], entities=True)
    gold_ids = [i["metadata"]["gold_document_id"] for i in instances]
    losses = []
    for i in range(len(instances)):
        # the other mentions' golds (unless they are this mention's gold), then the candidates
        # other than the gold: softmax over scale * cosine, the gold entity first
        logits = [float(mentions[i] @ golds[i])]
        logits += [float(mentions[i] @ golds[j]) for j in range(len(instances))
                   if j != i and gold_ids[j] != gold_ids[i]]
        candidates = instances[i]["metadata"]["candidate_ids"]
        for position, candidate_id in enumerate(candidates):
            if candidate_id != gold_ids[i]:
                logits.append(float(output["scores"][i, position]))
        logits = torch.tensor(logits) * model.scale
        losses.append(-torch.log_softmax(logits, 0)[0])
    assert output["loss"].item() == pytest.approx(torch.stack(losses).mean().item(), abs=1e-5)


def test_scores_are_cosines_of_the_pooled_vectors(bi_encoder, encoder_dir):
    """Score = cosine of mean-pooled transformer outputs, recomputed with transformers alone."""
    from transformers import AutoModel

    model, batch, _ = bi_encoder
    bert = AutoModel.from_pretrained(str(encoder_dir)).eval()
    with torch.no_grad():
        output = model(**batch)

        def vector(ids, mask):
            hidden = bert(input_ids=ids, attention_mask=mask).last_hidden_state
            mean = (hidden * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
            return mean / mean.norm(dim=-1, keepdim=True)

        ids, mask = batch["mention"]["tokens"]["token_ids"], batch["mention"]["tokens"]["mask"]
        mentions = vector(ids, mask.long())
        candidates = batch["candidates"]["tokens"]
        row, column = 2, 1
        entity = vector(candidates["token_ids"][row, column : column + 1],
                        candidates["mask"][row, column : column + 1].long())
    expected = float(mentions[row] @ entity[0])
    assert output["scores"][row, column].item() == pytest.approx(expected, abs=1e-5)
    assert -1.0 - 1e-5 <= expected <= 1.0 + 1e-5
