"""TACRED F1, DocRED F1 / Ign-F1, ATLOP loss and entity feature extractors against hand values."""

import json
import math

import pytest
import torch

from allennlp_longent.modules.entity_features import (
    ClsTokenExtractor,
    ConcatExtractor,
    EntityTokenExtractor,
    MentionPoolExtractor,
)
from allennlp_longent.relations.metrics import DocredF1, RelationMicroF1
from allennlp_longent.relations.metrics.docred_f1 import load_train_facts
from allennlp_longent.relations.models.docred_model import GroupBilinear, adaptive_threshold_loss


def test_tacred_micro_f1_excludes_no_relation():
    metric = RelationMicroF1(negative_index=0)
    metric(torch.tensor([0, 1, 2, 1]), torch.tensor([0, 1, 1, 0]))
    # predicted non-negative: 3, gold non-negative: 2, correct non-negative: 1 (the second).
    values = metric.get_metric(reset=True)
    assert values["precision"] == pytest.approx(1 / 3)
    assert values["recall"] == pytest.approx(1 / 2)
    assert values["f1"] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert metric.get_metric() == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_docred_f1_and_ign_f1_by_hand(tmp_path):
    train = [
        {"vertexSet": [[{"name": "A"}], [{"name": "B"}, {"name": "B2"}]],
         "labels": [{"h": 0, "t": 1, "r": "P1"}]},
        {"vertexSet": [[{"name": "Z"}], [{"name": "C"}]], "labels": [{"h": 0, "t": 1, "r": "P3"}]},
    ]
    path = tmp_path / "train.json"
    path.write_text(json.dumps(train))
    assert load_train_facts(str(path)) == {("A", "B", "P1"), ("A", "B2", "P1"), ("Z", "C", "P3")}
    assert load_train_facts(f"{path}[0:1]") == {("A", "B", "P1"), ("A", "B2", "P1")}
    metric = DocredF1(load_train_facts(str(path)))
    metric(
        predicted=[{(0, 1, "P1"), (0, 2, "P2"), (1, 2, "P1")}, set()],
        gold=[{(0, 1, "P1"), (0, 2, "P2"), (2, 0, "P3")}, {(0, 1, "P1")}],
        entity_names=[[["A"], ["B2"], ["C"]], [["X"], ["Y"]]],
    )
    # predicted 3, gold 4, correct 2, of which (A, B2, P1) is a training fact.
    values = metric.get_metric(reset=True)
    assert values["precision"] == pytest.approx(2 / 3)
    assert values["recall"] == pytest.approx(1 / 2)
    assert values["f1"] == pytest.approx(4 / 7)
    assert values["ign_precision"] == pytest.approx(1 / 2)  # (2 - 1) / (3 - 1)
    assert values["ign_f1"] == pytest.approx(1 / 2)
    assert values["predicted_per_gold"] == pytest.approx(3 / 4)
    assert "ign_f1" not in DocredF1().get_metric()


def test_adaptive_threshold_loss_by_hand():
    logits = torch.tensor([[0.0, 1.0, -1.0], [0.5, 0.2, 0.1]])  # TH first
    labels = torch.tensor([[1.0, 0.0], [0.0, 0.0]])
    # L1 of the first pair: r1 against TH; L2 of each pair: TH against its negatives.
    above = -math.log(math.e / (1 + math.e))
    below_first = -math.log(1 / (1 + math.exp(-1)))
    below_second = -math.log(math.exp(0.5) / (math.exp(0.5) + math.exp(0.2) + math.exp(0.1)))
    loss = adaptive_threshold_loss(logits, labels)
    assert loss.item() == pytest.approx((above + below_first + below_second) / 2, rel=1e-6)
    old = adaptive_threshold_loss(logits, labels, "atlop_positive_pairs")
    assert old.item() == pytest.approx(above / 1 + (below_first + below_second) / 2, rel=1e-6)
    no_positive = adaptive_threshold_loss(logits[1:], labels[1:])
    assert no_positive.item() == pytest.approx(below_second, rel=1e-6)
    with pytest.raises(ValueError, match="loss must be one of"):
        adaptive_threshold_loss(logits, labels, "bce")


def test_adaptive_threshold_loss_matches_atlop_equations():
    """ATLOP (Zhou et al. 2021) Eq. 5-6 written out per pair and per class with Python floats:
    L1 = -sum_{r in P_T} log(exp l_r / sum_{r' in P_T + TH} exp l_r'),
    L2 = -log(exp l_TH / sum_{r' in N_T + TH} exp l_r'), averaged over the pairs."""
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(7, 6, generator=generator, dtype=torch.float64) * 3
    labels = (torch.rand(7, 5, generator=generator) < 0.4).double()
    labels[0] = 0.0  # an N/A pair
    labels[1] = 1.0  # every relation positive: N_T is empty
    total = 0.0
    for row, pair_labels in zip(logits.tolist(), labels.tolist()):
        positives = [r + 1 for r, y in enumerate(pair_labels) if y]
        negatives = [r + 1 for r, y in enumerate(pair_labels) if not y]
        above = math.log(sum(math.exp(row[c]) for c in positives + [0]))
        below = math.log(sum(math.exp(row[c]) for c in negatives + [0]))
        total += sum(above - row[r] for r in positives) + below - row[0]
    loss = adaptive_threshold_loss(logits, labels)
    assert loss.item() == pytest.approx(total / len(labels), rel=1e-12)


def test_group_bilinear_is_the_blockwise_bilinear_form():
    """ATLOP Eq. 4: logit_r = sum_i z_h^i^T W_r^i z_t^i + b_r over blocks of size k."""
    torch.manual_seed(0)
    scorer = GroupBilinear(dim=6, block_size=3, outputs=4).double()
    head, tail = torch.randn(5, 6).double(), torch.randn(5, 6).double()
    weight = scorer.linear.weight.view(4, 2, 3, 3)  # (relation, block, k, k)
    expected = torch.einsum("pbi,rbij,pbj->pr", head.view(5, 2, 3), weight, tail.view(5, 2, 3))
    assert torch.allclose(scorer(head, tail), expected + scorer.linear.bias, atol=1e-12)
    with pytest.raises(ValueError, match="not a multiple of block_size"):
        GroupBilinear(dim=6, block_size=4, outputs=2)


def test_feature_extractors_by_hand():
    words = torch.tensor([[[0.0, 0.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]])
    entities = torch.tensor([[[7.0, 8.0], [9.0, 9.0], [0.0, 0.0]]])
    position_ids = torch.tensor([[[1, 3], [2, -1], [-1, -1]]])  # third entity is padding
    mask = torch.tensor([[1, 1, 0]])
    mean = MentionPoolExtractor("mean")(words, entities, position_ids, mask)
    assert mean.tolist() == [[[3.0, 4.0], [3.0, 4.0], [0.0, 0.0]]]
    top = MentionPoolExtractor("max")(words, entities, position_ids, mask)
    assert top.tolist() == [[[5.0, 6.0], [3.0, 4.0], [0.0, 0.0]]]
    smooth = MentionPoolExtractor()(words, entities, position_ids, mask)
    expected = [math.log(math.exp(1) + math.exp(5)), math.log(math.exp(2) + math.exp(6))]
    assert smooth[0, 0].tolist() == pytest.approx(expected)
    assert smooth[0, 2].tolist() == [0.0, 0.0]
    both = ConcatExtractor([EntityTokenExtractor(), ClsTokenExtractor()])
    assert both.get_output_dim(2) == 4
    assert both(words, entities, position_ids, mask)[0, 1].tolist() == [9.0, 9.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="pooling must be"):
        MentionPoolExtractor("sum")
