"""The retrieve-then-rerank cascade: combination, calibration on validation, settings file."""

import numpy as np
import pytest

from allennlp_longent.linking.cascade import (
    NIL,
    WEIGHTS,
    Cascade,
    CascadeSettings,
    Scored,
    accuracy,
    calibrate,
    choose_weight,
    combine,
    exact_title,
    links,
    sign_test,
    unwritten_everywhere,
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
    # retrieval@1 counted here from the scores themselves, not by the code under test
    retrieval_right = sum("abcd"[int(np.argmax(i.retrieval))] == g for i, g in zip(items, golds))
    settings = calibrate(items, golds, CascadeSettings(rerank_k=4))
    assert settings.validation["retrieval_at_1"] == retrieval_right
    assert settings.validation["cascade_at_1"] >= retrieval_right
    assert settings.retrieval_scale[1] > 0 and settings.rerank_scale[1] > 0


def two_way_validation(fixes: int):
    """Mentions with candidates a, b; retrieval scores (1, 0), re-ranker scores (0, 1) or (1, 0),
    so both standardise to ±1 and a weight λ puts b first exactly when λ > 0.5 (at 0.5 the tie
    keeps retrieval's order). ``fixes`` mentions have gold b where the re-ranker prefers b (right
    iff λ > 0.5); one has gold a there (right iff λ ≤ 0.5); three have gold a where both prefer a
    (always right); one has gold b there (never right)."""
    swap, same = ([1.0, 0.0], [0.0, 1.0]), ([1.0, 0.0], [1.0, 0.0])
    cases = [(swap, "b")] * fixes + [(swap, "a")] + [(same, "a")] * 3 + [(same, "b")]
    return [scored(*scores) for scores, _ in cases], [gold for _, gold in cases]


def test_calibration_counts_by_hand():
    items, golds = two_way_validation(fixes=6)
    settings = calibrate(items, golds, CascadeSettings(rerank_k=2))
    v = settings.validation
    # λ ≤ 0.5: the one swapped gold a and the three agreeing; λ > 0.5: the six fixes and three
    expected = {str(w): (4 if w <= 0.5 else 9) for w in WEIGHTS}
    assert v["accuracy_by_weight"] == expected
    assert (v["retrieval_at_1"], v["reranker_alone_at_1"], v["mentions"]) == (4, 9, 11)
    # the best λ, 0.55, fixes 6 and breaks 1: P(X ≥ 6), X ~ B(7, 1/2) = 8/128 > 0.05
    assert v["sign_test"] == {"weight": 0.55, "fixed": 6, "broken": 1, "p_value": 8 / 128,
                              "significance": 0.05}
    assert settings.weight == 0.0 and v["cascade_at_1"] == 4
    assert settings.retrieval_scale == [0.5, 0.5] and settings.rerank_scale == [0.5, 0.5]
    # one more fix: P(X ≥ 7), X ~ B(8, 1/2) = 9/256 < 0.05, so λ = 0.55 is kept
    kept = calibrate(*two_way_validation(fixes=7), CascadeSettings(rerank_k=2))
    assert kept.weight == 0.55 and kept.validation["cascade_at_1"] == 10
    assert kept.validation["sign_test"]["p_value"] == 9 / 256
    assert accuracy(*two_way_validation(fixes=7), 0.55, kept) == 10
    assert accuracy(*two_way_validation(fixes=7), 0.5, kept) == 4


def test_the_nil_rate_weighs_the_two_sets_continuously_through_one_half():
    # ten mentions as they are (three with the gold missing) against seven without their gold:
    # at nil_rate 0.5 the two sets must still weigh half each, not 10/17 and 7/17
    items = [scored([2.0, 1.0, 0.5], [3.0, 0.0, 1.0]) for _ in range(10)]
    golds = ["a"] * 4 + ["b"] * 3 + ["z"] * 3
    fitted = [calibrate(items, golds, CascadeSettings(rerank_k=3), nil_rate=rate)
              for rate in (0.4999999, 0.5, 0.5000001)]
    assert fitted[0].validation["nil_decision_total"] == 17
    assert {(f.temperature, f.nil_score) for f in fitted} == {(fitted[0].temperature,
                                                               fitted[0].nil_score)}


def test_calibration_follows_a_good_reranker():
    items, golds = [], []
    for i in range(30):
        gold = i % 3  # retrieval puts the gold last, the re-ranker first
        rerank = [0.0, 0.0, 0.0]
        rerank[2 - gold] = 5.0
        items.append(scored([3.0, 2.0, 1.0], rerank))
        golds.append("abc"[2 - gold])
    settings = calibrate(items, golds, CascadeSettings(rerank_k=3), nil_rate=0.5)
    assert settings.validation["reranker_alone_at_1"] == 30
    assert settings.validation["cascade_at_1"] == 30 and settings.weight > 0.5
    assert settings.validation["never_nil_correct"] == 30


def test_a_shift_of_every_rerank_score_of_a_mention_changes_nothing():
    """The re-ranker's term is centred per mention: text in another style that lowers all of a
    mention's cross-encoder scores together moves neither its order nor its NIL decision."""
    settings = CascadeSettings(retrieval_scale=[1.0, 2.0], rerank_scale=[0.5, 3.0],
                               temperature=0.7, nil_score=0.2)
    item = scored([3.0, 1.0, 2.0], [0.0, 4.0, 1.0])
    shifted = scored([3.0, 1.0, 2.0], [-9.0, -5.0, -8.0])
    for a, b in zip(combine(item, 0.6, settings), combine(shifted, 0.6, settings)):
        np.testing.assert_allclose(a, b)
    # by hand: (1 - λ) (r - 1) / 2 + λ (c - mean c) / 3
    expected = 0.4 * (np.array([3.0, 1.0, 2.0]) - 1) / 2 + 0.6 * (
        np.array([0.0, 4.0, 1.0]) - 5 / 3) / 3
    np.testing.assert_allclose(combine(item, 0.6, settings)[1], expected)


def test_nil_option_is_fitted_on_the_first_stage_level():
    """Mentions whose gold is removed keep only low first-stage scores: the NIL option learns
    that level, and expecting fewer missing entities makes it say NIL less often."""
    items, golds = [], []
    for i in range(30):
        gold = i % 3
        retrieval = [0.5, 0.0, -0.5]
        retrieval[gold] = 0.2 + (i % 5) * 0.6  # levels overlap: some golds below a decoy
        rerank = [0.0, 0.0, 0.0]
        rerank[gold] = 1.0
        items.append(scored(retrieval, rerank))
        golds.append("abc"[gold])
    settings = calibrate(items, golds, CascadeSettings(rerank_k=3), nil_rate=0.5)
    assert settings.threshold == 0.0 and settings.nil_score is not None
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
    assert [c["retriever_score"] for c in ranked] == [s for _, s in retrieval[:2]]
    assert all(c["retriever"] == "bm25" for c in ranked)
    assert all(c["rerank_score"] is None and c["first_stage_score"] is None for c in ranked)
    assert cascade.best(ranked) == "Q1"
    assert sum(c["probability"] for c in ranked) == pytest.approx(1.0)
    cascade.settings.threshold = 0.99
    assert cascade.best(ranked) == NIL
    assert cascade.link(["nothing matches"]) == [[]] and cascade.best([]) == NIL


def test_proposed_entities_join_the_retrieved_ones_scored_zero():
    kb = KnowledgeBase()
    kb.add([Entity("Q1", "Vell Island", "an island"), Entity("Q2", "Grey Sea", "a sea")])
    cascade = Cascade(kb, settings=CascadeSettings(top_k=3, rerank_k=2))
    assert cascade.link(["GS"]) == [[]]
    cascade.propose = lambda mention: [kb["Q2"]] if mention == "GS" else []
    [[found]] = cascade.candidates(["GS"])
    assert found == (kb["Q2"], 0.0)
    assert [c["id"] for c in cascade.link(["GS"])[0]] == ["Q2"]
    # an entity retrieval found already is not added twice
    assert [e.id for e, _ in cascade.candidates(["Grey Sea"])[0]] == ["Q2"]
    cascade.propose = lambda mention: [kb["Q2"]]
    assert [e.id for e, _ in cascade.candidates(["Grey Sea"])[0]] == ["Q2"]


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


def test_choose_weight_by_hand():
    """Outcomes of six mentions at three weights: 0.5 is right on 5, 1.0 on 5 too (ties go to
    the smaller weight), 0 on 2; against 0, 0.5 fixes mentions 0, 1, 2 and 3 and breaks 5."""
    right = {0.0: [0, 0, 0, 0, 1, 1], 0.5: [1, 1, 1, 1, 1, 0], 1.0: [1, 1, 1, 1, 0, 1]}
    right = {w: [bool(x) for x in r] for w, r in right.items()}
    weight, seen = choose_weight(right, significance=0.2)
    assert (seen["weight"], seen["fixed"], seen["broken"]) == (0.5, 4, 1)
    assert seen["p_value"] == pytest.approx(6 / 32) and weight == 0.5  # 6/32 <= 0.2
    assert choose_weight(right, significance=0.05)[0] == 0.0
    same = {0.0: [True, False], 0.3: [True, False]}
    assert choose_weight(same) == (0.0, {"weight": 0.0, "fixed": 0, "broken": 0, "p_value": 1.0,
                                         "significance": 0.05})
    with pytest.raises(ValueError, match="weight 0"):
        choose_weight({0.5: [True]})


def test_the_nil_option_decides_and_a_user_threshold_is_a_floor():
    assert links(np.array([0.5, 0.2]))  # NIL 0.3
    assert not links(np.array([0.3, 0.2]))  # NIL 0.5 beats the best candidate
    assert links(np.array([0.3, 0.3, 0.3]))  # ambiguous, but NIL is only 0.1
    assert not links(np.array([0.3, 0.3, 0.3]), threshold=0.4)
    assert not links(np.array([]))


def test_exact_title_needs_exactly_one_bare_title():
    ship = Entity("s", "Edda Ambrell (ship)", "")
    person = Entity("p", "Edda Ambrell", "")
    port = Entity("t", "Port Ambrell", "")
    assert exact_title("port ambrell", [person, port])  # case ignored
    assert exact_title("Edda Ambrell", [port, ship])  # the qualifier ignored
    assert not exact_title("Edda Ambrell", [person, ship, port])  # two share the bare title
    assert not exact_title("Ambrell", [person, port])


def test_the_reranker_abstains_on_an_exact_title_only_when_told():
    # retrieval prefers a (the exact title); the re-ranker prefers b by far
    item = scored([2.0, 1.0], [0.0, 5.0])
    item.exact_title = True
    told = CascadeSettings(title_abstain=True)
    assert combine(item, 0.9, told)[0].tolist() == [0, 1]
    assert combine(item, 0.9, told, abstain=False)[0].tolist() == [1, 0]
    assert combine(item, 0.9, CascadeSettings())[0].tolist() == [1, 0]
    item.exact_title = False
    assert combine(item, 0.9, told)[0].tolist() == [1, 0]
    item.exact_title = True
    assert accuracy([item], ["b"], 1.0, told) == 0
    assert accuracy([item], ["b"], 1.0, told, abstain=False) == 1


class _CountingCascade(Cascade):
    """A cascade whose re-ranker scores the last candidate highest and records its mentions."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reranked = []

    def _rerank(self, queries, scored):
        self.reranked += [str(q) for q in queries]
        return [np.arange(len(s.entities), dtype=float) for s in scored]


def test_an_abstaining_reranker_is_not_run_when_linking_but_is_when_calibrating():
    kb = KnowledgeBase()
    kb.add([Entity("Q1", "Vell Island", "an island"), Entity("Q2", "Vell Harbour", "a harbour"),
            Entity("Q3", "Grey Sea", "a sea")])
    settings = CascadeSettings(top_k=3, rerank_k=2, weight=0.9, title_abstain=True)
    cascade = _CountingCascade(kb, ranker=(None, None), settings=settings)
    [island, vell] = cascade.score(["Vell Island", "Vell"])
    assert (island.exact_title, vell.exact_title) == (True, False)
    assert cascade.reranked == ["Vell"] and island.rerank is None
    assert cascade.best(cascade.ranked(island)) == "Q1"
    cascade.score(["Vell Island"], rerank_all=True)
    assert cascade.reranked == ["Vell", "Vell Island"]
    cascade.settings.title_abstain = False
    [island] = cascade.score(["Vell Island"])
    assert cascade.best(cascade.ranked(island)) == "Q2"  # the re-ranker overrules the title


def test_a_memo_runs_retrieval_and_the_reranker_once_per_mention():
    kb = KnowledgeBase()
    kb.add([Entity("Q1", "Vell Island", "an island"), Entity("Q2", "Vell Harbour", "a harbour")])
    cascade = _CountingCascade(kb, ranker=(None, None),
                               settings=CascadeSettings(top_k=2, rerank_k=2, weight=0.5))
    first = cascade.score(["Vell", "Vell Harbour"])
    assert cascade.reranked == ["Vell", "Vell Harbour"]
    cascade.memo = {}
    retrieved = []
    plain_retrieve = cascade.retrieve
    cascade.retrieve = lambda queries: retrieved.extend(map(str, queries)) or plain_retrieve(
        queries)
    cascade.score(["Vell", "Vell Harbour"])
    again = cascade.score(["Vell Harbour", "Vell", "Vell Island"])
    assert cascade.reranked == ["Vell", "Vell Harbour"] * 2 + ["Vell Island"]
    assert retrieved == ["Vell", "Vell Harbour", "Vell Island"]
    assert [a.rerank.tolist() for a in again[:2]] == [f.rerank.tolist() for f in first[::-1]]
    assert [[e.id for e in a.entities] for a in again[:2]] == [
        [e.id for e in f.entities] for f in first[::-1]]


def corranders():
    kb = KnowledgeBase()
    kb.add([Entity("L", "Liss Corrander", "Liss Corrander made lamps in Port Corrander ."),
            Entity("A", "Aldous Corrander", "Aldous Corrander, a whaler, dredged the channel ."),
            Entity("P", "Port Corrander", "Port Corrander is a harbour town .")])
    return kb


def test_a_name_word_on_no_candidates_page_is_nil_only_with_the_rule():
    cascade = Cascade(corranders(), settings=CascadeSettings(top_k=3, rerank_k=3))
    [petra, liss] = cascade.score(["Petra Corrander", "Liss Corrander"])
    assert petra.unwritten is None  # not computed without the rule
    assert cascade.best(cascade.ranked(petra)) != NIL
    cascade.settings.unwritten_nil = True
    [petra, liss, corrander] = cascade.score(["Petra Corrander", "Liss Corrander", "Corrander"])
    assert [c["unwritten"] for c in cascade.ranked(petra)] == [["petra"]] * 3
    assert cascade.best(cascade.ranked(petra)) == NIL
    assert cascade.best(cascade.ranked(liss)) == "L"  # Liss's own page writes both words
    assert cascade.best(cascade.ranked(corrander)) != NIL
    assert not unwritten_everywhere([]) and not unwritten_everywhere(None)
    assert not unwritten_everywhere([["petra"], []])


def test_calibration_counts_what_the_rule_turns_nil_with_and_without_the_gold():
    # mention 1: only candidate b writes every name word; mention 2: every candidate lacks one
    first, second = scored([2.0, 1.0], None), scored([2.0, 1.0], None)
    first.unwritten, second.unwritten = [["x"], []], [["x"], ["y"]]
    fitted = calibrate([first, second], ["a", "b"], CascadeSettings(unwritten_nil=True),
                       nil_rate=0.5)
    # as they are: the second is ruled NIL; gold removed: the first keeps b (not ruled), the
    # second keeps a (ruled)
    assert fitted.validation["unwritten_nil"] == [1, 1]
    assert fitted.unwritten_nil
    off = calibrate([first, second], ["a", "b"], CascadeSettings(), nil_rate=0.5)
    assert off.validation["unwritten_nil"] == [0, 0]


def test_written_by_first_only_is_the_converse_of_the_unwritten_rule():
    from allennlp_longent.linking.cascade import written_by_first_only

    assert written_by_first_only([[], ["e. marr"], ["e. marr", "marr"]], 4)
    assert not written_by_first_only([[], [], ["marr"]], 4)  # two pages write it
    assert not written_by_first_only([["e. marr"], []], 4)  # not the first
    assert not written_by_first_only([[]], 4)  # one candidate: nothing to tell apart
    assert not written_by_first_only([[], None], 4)  # not computed
    assert written_by_first_only([[], ["x"], []], 2)  # the third is beyond k
    assert not written_by_first_only([], 4)


def test_every_candidate_carries_the_cascade_s_keys_in_order():
    from allennlp_longent.linking.cascade import CANDIDATE_KEYS

    kb = KnowledgeBase()
    kb.add([Entity("Q1", "Vell Island", "an island"), Entity("Q2", "Grey Sea", "a sea")])
    [ranked] = Cascade(kb, settings=CascadeSettings(top_k=2, rerank_k=2)).link(["Vell Island"])
    assert ranked and all(tuple(c) == CANDIDATE_KEYS for c in ranked)
