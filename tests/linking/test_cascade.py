"""The retrieve-then-rerank cascade: combination, calibration on validation, settings file."""

import numpy as np
import pytest

from allennlp_longent.linking.cascade import (
    NIL,
    Cascade,
    CascadeSettings,
    Scored,
    accuracy,
    calibrate,
    combine,
    links,
    sign_test,
)
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase


def scored(retrieval, rerank, names="abcdefgh"):
    entities = [Entity(names[i], names[i].upper(), "") for i in range(len(retrieval))]
    return Scored(entities, np.array(retrieval, dtype=float),
                  None if rerank is None else np.array(rerank, dtype=float))


def test_combination_by_hand():
    item = scored([3.0, 1.0, 2.0], [0.0, 2.0, 1.0])
    # z(r) = (0, 1, -1)·... over the three: mean 2, std sqrt(2/3)
    std = np.sqrt(2 / 3)
    zr = np.array([1.0, -1.0, 0.0]) / std
    zc = np.array([-1.0, 1.0, 0.0]) / std
    order, combined, probabilities = combine(item, 0.75, temperature=0.5)
    expected = 0.25 * zr + 0.75 * zc
    np.testing.assert_allclose(combined, expected)
    assert order.tolist() == [1, 2, 0]
    exp = np.exp(expected / 0.5)
    np.testing.assert_allclose(probabilities, exp / exp.sum())


def test_weight_zero_is_the_retrieval_order_ties_included():
    item = scored([2.0, 5.0, 5.0, 1.0], [9.0, 0.0, 1.0, 3.0])
    order, _, _ = combine(item, 0.0)
    assert order.tolist() == [1, 2, 0, 3]  # the two 5.0 keep their retrieval order
    assert combine(scored([1.0], [4.0]), 1.0)[2].tolist() == [1.0]


def test_calibration_never_ends_below_retrieval_on_validation():
    rng = np.random.default_rng(0)
    items, golds = [], []
    for _ in range(40):
        retrieval, rerank = rng.normal(size=4), rng.normal(size=4)  # a useless re-ranker
        items.append(scored(retrieval, rerank))
        golds.append("abcd"[int(rng.integers(4))])
    settings = calibrate(items, golds, CascadeSettings(rerank_k=4))
    assert accuracy(items, golds, settings.weight, settings) >= accuracy(items, golds, 0.0)
    assert settings.validation["cascade_at_1"] == accuracy(items, golds, settings.weight, settings)
    assert settings.validation["retrieval_at_1"] == accuracy(items, golds, 0.0)
    counts = settings.validation["accuracy_by_weight"]
    best = max(counts.values())
    most_accurate = min(float(w) for w, c in counts.items() if c == best)
    test = settings.validation["sign_test"]
    assert test["weight"] == most_accurate
    assert settings.weight == (most_accurate if test["p_value"] <= 0.05 else 0.0)
    assert settings.retrieval_scale[1] > 0 and settings.rerank_scale[1] > 0


def test_calibration_follows_a_good_reranker_and_fits_temperature_and_threshold():
    items, golds = [], []
    for i in range(30):
        gold = i % 3  # retrieval puts the gold last, the re-ranker first
        retrieval = [3.0, 2.0, 1.0]
        rerank = [0.0, 0.0, 0.0]
        rerank[2 - gold] = 5.0
        order = [2 - gold] + [j for j in range(3) if j != 2 - gold]
        items.append(scored([retrieval[j] for j in range(3)], rerank))
        golds.append("abc"[order[0]])
    # as many mentions without an entity as with one
    settings = calibrate(items, golds, CascadeSettings(rerank_k=3), nil_rate=0.5)
    assert settings.validation["reranker_alone_at_1"] == 30
    assert settings.validation["cascade_at_1"] == 30 and settings.weight > 0.5
    # the NIL option separates: with the gold removed the re-ranker finds nothing it likes,
    # and standardising with validation statistics keeps that absolute level
    assert settings.threshold == 0.0 and settings.nil_score is not None
    assert settings.validation["never_nil_correct"] == 30
    linked = said_nil = 0
    for item, gold in zip(items, golds):
        _, _, p = combine(item, settings.weight, settings)
        keep = [i for i, e in enumerate(item.entities) if e.id != gold]
        rest = Scored([item.entities[i] for i in keep], item.retrieval[keep], item.rerank[keep])
        _, _, p_rest = combine(rest, settings.weight, settings)
        linked += links(p)
        said_nil += not links(p_rest)
    assert settings.validation["nil_decision_correct"] == linked + said_nil
    assert linked + said_nil > 40  # on half NIL, the NIL option beats never saying it (30)
    # expecting few missing entities, the cascade says NIL less often
    rare = calibrate(items, golds, CascadeSettings(rerank_k=3), nil_rate=0.1)
    assert rare.validation["nil_rate"] == 0.1
    assert rare.nil_score < settings.nil_score
    with pytest.raises(ValueError, match="nil_rate"):
        calibrate(items, golds, CascadeSettings(rerank_k=3), nil_rate=0.0)


def test_settings_round_trip_and_bad_files(tmp_path):
    settings = CascadeSettings(top_k=32, rerank_k=4, weight=0.35, temperature=0.2,
                               threshold=0.6, nil_score=-1.5, retrieval_scale=[1.0, 2.0],
                               rerank_scale=[0.0, 3.0], validation={"mentions": 3})
    settings.save(tmp_path / "cascade.json")
    assert CascadeSettings.load(tmp_path / "cascade.json") == settings
    (tmp_path / "bad.json").write_text('{"lambda": 1}')
    with pytest.raises(ValueError, match="bad.json: not cascade settings"):
        CascadeSettings.load(tmp_path / "bad.json")
    with pytest.raises(FileNotFoundError, match="no cascade settings"):
        CascadeSettings.load(tmp_path / "none.json")


def test_without_a_ranker_the_links_are_retrievals_and_the_threshold_gives_nil():
    kb = KnowledgeBase()
    kb.add([Entity("Q1", "Vell Island", "an island"), Entity("Q2", "Grey Sea", "a sea"),
            Entity("Q3", "Vell Harbour", "a harbour on Vell Island")])
    cascade = Cascade(kb, settings=CascadeSettings(top_k=3, rerank_k=2))
    [ranked] = cascade.link(["Vell Island"])
    retrieval = kb.candidates(["Vell Island"], 3)[0]
    assert [c["id"] for c in ranked] == [e.id for e, _ in retrieval[:2]]
    assert [c["retrieval_score"] for c in ranked] == [s for _, s in retrieval[:2]]
    assert all(c["rerank_score"] is None for c in ranked)
    assert cascade.best(ranked) == "Q1"
    assert sum(c["probability"] for c in ranked) == pytest.approx(1.0)
    cascade.settings.threshold = 0.99
    assert cascade.best(ranked) == NIL
    assert cascade.link(["nothing matches"]) == [[]] and cascade.best([]) == NIL


def test_sign_test_by_hand():
    assert sign_test(3, 1) == pytest.approx(5 / 16)  # P(X >= 3), X ~ B(4, 1/2)
    assert sign_test(5, 0) == pytest.approx(1 / 32)
    assert sign_test(0, 0) == 1.0 and sign_test(0, 2) == 1.0


def test_a_validation_gain_that_could_be_chance_gives_the_reranker_no_weight():
    # four mentions where the re-ranker fixes retrieval's mistake, one where it breaks a right
    # answer, and twenty where both are right: +3 on validation, P = 6/32 under the sign test
    items, golds = [], []
    for i in range(25):
        if i < 4:
            items.append(scored([2.0, 1.0], [0.0, 5.0]))
            golds.append("b")
        elif i == 4:
            items.append(scored([2.0, 1.0], [0.0, 5.0]))
            golds.append("a")
        else:
            items.append(scored([2.0, 1.0], [5.0, 0.0]))
            golds.append("a")
    settings = calibrate(items, golds, CascadeSettings(rerank_k=2))
    test = settings.validation["sign_test"]
    assert (test["fixed"], test["broken"]) == (4, 1)
    assert test["weight"] > 0.5 and test["p_value"] == pytest.approx(6 / 32)
    assert settings.weight == 0.0 and settings.validation["cascade_at_1"] == 21
    assert calibrate(items, golds, CascadeSettings(rerank_k=2), significance=0.2).weight > 0.5


def test_the_nil_option_decides_and_a_user_threshold_is_a_floor():
    assert links(np.array([0.5, 0.2]))  # NIL 0.3
    assert not links(np.array([0.3, 0.2]))  # NIL 0.5 beats the best candidate
    assert links(np.array([0.3, 0.3, 0.3]))  # ambiguous, but NIL is only 0.1
    assert not links(np.array([0.3, 0.3, 0.3]), threshold=0.4)
    assert not links(np.array([]))
