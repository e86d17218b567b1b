"""The ``cross_encoder_ranker``: train/save/load, chunked scoring, padding, loss by hand, and the
human-readable ranking, on ``fixtures/linking/zeshel`` with a tiny random BERT."""

import math
from pathlib import Path
from typing import Dict, List

import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Vocabulary
from allennlp.models import Model
from conftest import FIXTURES, write_tiny_bert
from zeshel_fixture import experiment_params, fixture_words, model_and_batch

import allennlp_longent  # noqa: F401  (registers the components)
from allennlp_longent.linking.models.cross_encoder_ranker import name_features

EXPERIMENT = FIXTURES / "linking" / "experiment.jsonnet"


@pytest.fixture(scope="module")
def fixture_bert(tmp_path_factory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("ranker_bert"), 64, fixture_words())


@pytest.fixture(scope="module")
def experiment(fixture_bert):
    yield from experiment_params(EXPERIMENT, fixture_bert)


@pytest.fixture(scope="module")
def ranker(experiment) -> tuple:
    return model_and_batch(experiment, "validation_dataset_reader")


class TestCrossEncoderRanker(ModelTestCase):
    def test_train_save_and_load(self, experiment):  # the fixture sets the ext vars
        # Every parameter gets a gradient (the configs build BERT without its unused pooler) but
        # the scorer's bias: the softmax over candidates is invariant to it, so its gradient is 0
        # up to rounding, and exactly 0 on some CPUs
        self.ensure_model_can_train_save_and_load(EXPERIMENT, gradients_to_ignore={"_scorer.bias"})

    def test_train_save_and_load_with_name_features(self, experiment):
        # the fixture's titles ("a1 page") share no word with its mentions, so the wide part has
        # no gradient; the softmax over candidates is invariant to the scorer's bias (its
        # gradient is 0 up to rounding, exactly 0 here)
        self.ensure_model_can_train_save_and_load(
            EXPERIMENT, overrides='{"model.name_features": true}',
            gradients_to_ignore={"_name_scorer.weight", "_scorer.bias"})


def test_chunked_scoring_equals_unchunked(ranker):
    model, batch, _ = ranker
    with torch.no_grad():
        model.candidate_chunk_size = 1
        one = model(**batch)["scores"]
        model.candidate_chunk_size = 64
        many = model(**batch)["scores"]
        model.candidate_chunk_size = 2
    model.get_metrics(reset=True)
    mask = batch["pairs"]["tokens"]["mask"].any(-1)
    assert not mask.all()  # beta mentions have 2 candidates: the batch has padding
    assert torch.allclose(one[mask], many[mask], atol=1e-6, rtol=0)
    assert torch.equal(one[~mask], many[~mask])


def test_padded_candidates_never_win_and_get_probability_zero(ranker):
    model, batch, instances = ranker
    with torch.no_grad():
        bias = model._scorer.bias.clone()
        model._scorer.bias.fill_(1e6)  # real scores far above anything padding could get
        output = model(**batch)
        model._scorer.bias.copy_(bias)
    model.get_metrics(reset=True)
    mask = output["candidate_mask"]
    expected = [len(i["pairs"].field_list) for i in instances]
    assert mask.sum(-1).tolist() == expected
    assert output["probabilities"][~mask].eq(0).all()
    assert output["scores"][~mask].eq(torch.finfo(torch.float32).min).all()
    assert torch.allclose(output["probabilities"].sum(-1), torch.ones(len(instances)))
    chosen = output["scores"].argmax(-1)
    assert mask.gather(-1, chosen.unsqueeze(-1)).all()


def _score_alone(model: Model, token_ids: torch.Tensor, type_ids: torch.Tensor) -> float:
    """One pair encoded on its own, unpadded: w · [CLS] of the transformer's last layer."""
    transformer = model._embedder._token_embedders["tokens"].transformer_model
    hidden = transformer(input_ids=token_ids[None], token_type_ids=type_ids[None]).last_hidden_state
    return float(model._scorer(hidden[0, 0]))


def test_loss_is_the_hand_computed_cross_entropy(ranker):
    model, batch, instances = ranker
    with torch.no_grad():
        output = model(**batch)
        model.get_metrics(reset=True)
        tokens = batch["pairs"]["tokens"]
        total, golds = 0.0, 0
        for row, instance in enumerate(instances):
            count = len(instance["pairs"].field_list)
            scores = []
            for column in range(count):
                length = int(tokens["mask"][row, column].sum())
                scores.append(
                    _score_alone(
                        model,
                        tokens["token_ids"][row, column, :length],
                        tokens["type_ids"][row, column, :length],
                    )
                )
            assert output["scores"][row, :count].tolist() == pytest.approx(scores, abs=1e-5)
            label = int(instance["label"].tensor)
            if label < 0:
                continue  # a mention without its gold is not in the loss
            log_z = math.log(sum(math.exp(s) for s in scores))
            total += log_z - scores[label]
            golds += 1
    assert golds == 5  # m3's gold is not among its top-3 candidates
    assert float(output["loss"]) == pytest.approx(total / golds, abs=1e-5)


def test_loss_is_zero_without_any_gold(ranker):
    model, batch, _ = ranker
    with torch.no_grad():
        output = model(**{**batch, "label": torch.full_like(batch["label"], -1)})
    model.get_metrics(reset=True)
    assert float(output["loss"]) == 0.0


def test_forward_updates_the_zeshel_metrics(ranker):
    model, batch, _ = ranker
    with torch.no_grad():
        model(**batch)
    metrics = model.get_metrics(reset=True)
    assert metrics["mentions"] == 6.0
    # long_threshold 60 in the experiment: only m3 (A3 30 + A4 60 pieces) is long.
    assert metrics["mentions_long"] == 1.0 and metrics["mentions_short"] == 5.0
    assert metrics["recall_at_64"] == pytest.approx(5 / 6)
    assert model.get_metrics()["mentions"] == 0.0


def test_make_output_human_readable_ranks_best_first(ranker):
    model, _, _ = ranker
    minimum = torch.finfo(torch.float32).min
    scores = torch.tensor([[0.5, 2.0, -1.0], [3.0, 1.0, minimum]])
    mask = torch.tensor([[True, True, True], [True, True, False]])
    probabilities = torch.tensor([[0.2, 0.7, 0.1], [0.9, 0.1, 0.0]])
    metadata: List[Dict] = [
        {"candidate_ids": ["x", "y", "z"], "candidate_titles": ["X", "Y", "Z"]},
        {"candidate_ids": ["p", "q"], "candidate_titles": ["P", "Q"]},
    ]
    readable = model.make_output_human_readable(
        {
            "scores": scores,
            "probabilities": probabilities,
            "candidate_mask": mask,
            "metadata": metadata,
        }
    )
    assert readable["predicted_document_id"] == ["y", "p"]
    first, second = readable["ranked"]
    assert [c["document_id"] for c in first] == ["y", "x", "z"]
    assert [c["title"] for c in first] == ["Y", "X", "Z"]
    assert [c["score"] for c in first] == [2.0, 0.5, -1.0]
    assert [c["probability"] for c in first] == pytest.approx([0.7, 0.2, 0.1])
    assert [c["document_id"] for c in second] == ["p", "q"]  # the padding is not listed


def test_candidate_chunk_size_must_be_positive(experiment):
    params = experiment.duplicate()["model"].as_dict()  # the fixture is shared
    params["candidate_chunk_size"] = 0
    with pytest.raises(ValueError, match="candidate_chunk_size must be positive"):
        Model.from_params(vocab=Vocabulary(), params=Params(params))


def test_name_features_by_hand():
    """Dice of content words and exact equality of bare titles, worked out by hand."""
    metadata = [{"mention": "Edda Ambrell",
                 "candidate_titles": ["Edda Ambrell (ship)", "Jon Ambrell", "Gullhaven"]},
                {"mention": "the Oast", "candidate_titles": ["River Oast"]}]
    features = name_features(metadata, torch.Size([2, 3]))
    assert features[0].tolist() == [[1.0, 1.0], [0.5, 0.0], [0.0, 0.0]]
    # "the" is a stop word: {oast} against {river, oast}; padding stays 0
    assert features[1].flatten().tolist() == pytest.approx([2 / 3, 0.0, 0.0, 0.0, 0.0, 0.0])


def test_name_features_add_the_wide_part_and_nothing_else(experiment):
    """score = deep score + u · [dice, exact] on real candidates; padding keeps the lowest score;
    candidates that share one title keep the deep part's probabilities."""
    deep, batch, instances = model_and_batch(experiment, "validation_dataset_reader")
    wide, _, _ = model_and_batch(_with_name_features(experiment), "validation_dataset_reader")
    wide.load_state_dict({**deep.state_dict(),
                          "_name_scorer.weight": torch.tensor([[1.5, -0.5]])})
    # titles that overlap each mention: its own words, its words and another, an unrelated one
    titled = [{**m, "candidate_titles": [m["mention"], f"{m['mention']} page", "zz"][
        :len(m["candidate_titles"])]} for m in batch["metadata"]]
    with torch.no_grad():
        plain, named = deep(**batch), wide(**{**batch, "metadata": titled})
    deep.get_metrics(reset=True)
    wide.get_metrics(reset=True)
    mask = plain["candidate_mask"]
    features = name_features(titled, mask.shape)
    expected = plain["scores"] + 1.5 * features[..., 0] - 0.5 * features[..., 1]
    assert torch.allclose(named["scores"][mask], expected[mask], atol=1e-5)
    assert torch.equal(named["scores"][~mask], plain["scores"][~mask])
    assert {tuple(f) for f in features[mask].tolist()} >= {(1.0, 1.0), (0.0, 0.0)}
    shared = [{**m, "candidate_titles": [m["mention"]] * len(m["candidate_titles"])}
              for m in batch["metadata"]]
    with torch.no_grad():
        same = wide(**{**batch, "metadata": shared})
    wide.get_metrics(reset=True)
    assert torch.allclose(same["probabilities"], plain["probabilities"], atol=1e-6)


def test_name_features_need_metadata(experiment):
    model, batch, _ = model_and_batch(_with_name_features(experiment), "validation_dataset_reader")
    with pytest.raises(ValueError, match="needs the reader's metadata"):
        model(**{k: v for k, v in batch.items() if k != "metadata"})


def _with_name_features(experiment: Params) -> Params:
    params = experiment.duplicate().as_dict()
    params["model"]["name_features"] = True
    return Params(params)
