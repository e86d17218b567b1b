"""The cascade's first stage: sentences near a mention, the features, their fit, the re-ordering."""

import numpy as np
import pytest

from allennlp_longent.linking.candidates.generator import MentionQuery
from allennlp_longent.linking.cascade import Cascade, CascadeSettings, calibrate
from allennlp_longent.linking.evidence import (
    DIRECTIONS,
    FEATURES,
    ContextEvidence,
    EvidenceSettings,
    description_sentences,
    fit,
    nearby_sentences,
)
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase

WORDS = "A b . Old Carrow sailed . He kept bees ! Far away a war began . End".split()
#        0 1 2 3   4      5      6 7  8    9   10 11 12  13 14 15  16  17 18  (mention: 4)


def test_nearby_sentences_are_whole_and_the_mention_s_own_loses_the_mention():
    assert nearby_sentences(WORDS, 4, 4, window=100) == [
        "A b .", "Old sailed .", "He kept bees !", "Far away a war began .", "End"]
    # within 3 words: "A b ." ends at 2 (>= 4 - 3) and "He kept bees !" starts at 7 (<= 4 + 3)
    assert nearby_sentences(WORDS, 4, 4, window=3) == ["A b .", "Old sailed .", "He kept bees !"]
    assert nearby_sentences(WORDS, 4, 4, window=0) == ["Old sailed ."]
    assert nearby_sentences(["Carrow", "."], 0, 0, window=5) == []  # nothing left but the stop


class AxisEncoder:
    """Unit vectors on hand-chosen axes: what a sentence encoder would give, made exact."""

    AXES = {"Carrow": 0, "bees": 1, "war": 2}

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(4, dtype=np.float32)
        for word, axis in self.AXES.items():
            vector[axis] += word in text
        vector[3] = 1e-3
        return vector / np.linalg.norm(vector)

    def texts(self, texts):
        return np.stack([self._vector(t) for t in texts])

    def documents(self, documents):
        return np.stack([self._vector(d["title"] + " " + d["text"]) for d in documents])


def evidence(weights=None, scales=None, window=3) -> ContextEvidence:
    result = ContextEvidence(EvidenceSettings("unused", window=window, weights=weights or {},
                                              scales=scales or {}))
    result._encoder = AxisEncoder()
    return result


ENTITIES = [Entity("beekeeper", "Carrow", "kept bees"), Entity("soldier", "Carrow", "won a war"),
            Entity("page", "Old Carrow", "A b . Old Carrow sailed .")]


def test_features_by_hand():
    query = MentionQuery(tuple(WORDS), 4, 4, document_id="page")
    [rows] = evidence().features([query], [ENTITIES], [np.array([3.0, 2.0, 1.0])])
    assert rows.shape == (3, len(FEATURES))
    assert rows[:, 0].tolist() == [3.0, 2.0, 1.0]
    # the mention "Carrow" is axis 0; "beekeeper" is Carrow + bees, so cos = 1 / sqrt(2)
    s2 = 1 / np.sqrt(2)
    np.testing.assert_allclose(rows[:, 1], [s2, s2, 1.0], atol=1e-5)
    # near sentences (window 3): "A b .", "Old sailed ." (nothing) and "He kept bees !" (bees)
    np.testing.assert_allclose(rows[:, 2], [s2, 0.0, 0.0], atol=1e-3)
    assert rows[:, 3].tolist() == [0.0, 0.0, 1.0]  # the mention's own page
    # fact: the best (near sentence, description sentence) pair, less the query's best.
    # "kept bees" meets "He kept bees !" (cos 1); "won a war" meets no near sentence (cos ~0:
    # only the 1e-3 axes); the page's sentences lose "Old" and "Carrow" (its title), leaving
    # "A b ." and "sailed .", which meet "A b ." on the 1e-3 axis alone (cos 1)
    np.testing.assert_allclose(rows[:, FEATURES.index("fact")], [0.0, -1.0, 0.0], atol=1e-3)
    # unmatched: "carrow" is the only content word of the mention; every page writes it
    assert rows[:, FEATURES.index("unmatched")].tolist() == [0.0, 0.0, 0.0]
    [rows] = evidence().features([MentionQuery(("Old", "Carrow", "sailed", "."), 0, 1)],
                                 [ENTITIES], [np.ones(3)])
    # "old carrow": the beekeeper's and the soldier's pages lack "old", the page has both
    assert rows[:, FEATURES.index("unmatched")].tolist() == [0.5, 0.5, 0.0]
    [rows] = evidence().features([MentionQuery(("Mr", "Carrow", "sailed", "."), 0, 1)],
                                 [ENTITIES], [np.ones(3)])
    # "Mr Carrow": a title of address is not a word the page should write
    assert rows[:, FEATURES.index("unmatched")].tolist() == [0.0, 0.0, 0.0]


def test_description_sentences_leave_out_the_title_and_empty_sentences():
    text = "Saltmere Saltmere is a town . Saltmere . It was founded in 435 . Since then"
    assert description_sentences(text, "Saltmere") == [
        "is a town .", "It was founded in 435 .", "Since then"]
    assert description_sentences("Aldous Corrander, a former whaler. He dug it.",
                                 "Aldous Corrander") == ["a former whaler.", "He dug it."]
    assert description_sentences("No stop at all") == ["No stop at all"]


def test_fitted_settings_without_a_fact_weight_never_encode_description_sentences():
    query = MentionQuery(tuple(WORDS), 4, 4)
    scales = {f: [0.0, 1.0] for f in FEATURES}
    old = evidence(weights={"clue": 1.0}, scales=scales)
    [rows] = old.features([query], [ENTITIES], [np.ones(3)])
    assert not old._facts and not rows[:, FEATURES.index("fact")].any()
    new = evidence(weights={"clue": 1.0, "fact": 0.5}, scales=scales)
    new.features([query], [ENTITIES], [np.ones(3)])
    assert set(new._facts) == set(ENTITIES)


def test_fit_learns_the_deciding_feature_and_counts_what_it_saw():
    rng = np.random.default_rng(0)
    rows, golds = [], []
    for _ in range(60):
        features = rng.normal(size=(5, len(FEATURES)))
        gold = int(rng.integers(5))
        features[gold, 2] += 3.0  # the clue decides
        rows.append(features)
        golds.append(gold)
    rows.append(rng.normal(size=(1, len(FEATURES))))  # one candidate: nothing to learn
    golds.append(0)
    fitted = fit(rows, golds, EvidenceSettings("enc", window=7))
    assert fitted.window == 7 and fitted.encoder == "enc"
    assert fitted.weights["clue"] > max(abs(fitted.weights[f]) for f in FEATURES if f != "clue")
    assert fitted.fitted["mentions"] == 60
    assert fitted.fitted["first_stage_at_1"] >= 55
    assert fitted.fitted["retrieval_at_1"] == sum(int(np.argmax(r[:, 0])) == g
                                                  for r, g in zip(rows[:60], golds[:60]))
    with pytest.raises(ValueError, match="no training mention"):
        fit([rows[-1]], [0], EvidenceSettings("enc"))


def test_a_feature_fitted_against_its_direction_is_left_out_and_the_rest_refitted():
    rng = np.random.default_rng(1)
    rows, golds = [], []
    for _ in range(40):
        features = rng.normal(scale=0.1, size=(4, len(FEATURES)))
        gold = int(rng.integers(4))
        features[gold, FEATURES.index("retrieval")] += 1.0
        features[gold, FEATURES.index("context")] -= 1.0  # this world's quirk: less is the gold
        rows.append(features)
        golds.append(gold)
    free = fit(rows, golds, EvidenceSettings("enc"), signed=False)
    signed = fit(rows, golds, EvidenceSettings("enc"))
    assert free.weights["context"] < 0 and free.fitted["left_out"] == []
    assert signed.weights["context"] == 0.0 and "context" in signed.fitted["left_out"]
    assert signed.weights["retrieval"] > 0
    assert all(DIRECTIONS[f] * w >= 0 for f, w in signed.weights.items())
    assert signed.fitted["first_stage_at_1"] == 40


def test_the_cascade_re_orders_retrieval_by_the_first_stage_and_keeps_it_when_calibrated():
    kb = KnowledgeBase()
    kb.add(ENTITIES)
    scales = {f: [0.0, 1.0] for f in FEATURES}
    settings = CascadeSettings(top_k=3, rerank_k=2, evidence=EvidenceSettings(
        "unused", window=3, weights={"clue": 1.0, "own_document": -5.0}, scales=scales).to_dict())
    cascade = Cascade(kb, settings=settings)
    cascade.evidence._encoder = AxisEncoder()
    query = MentionQuery(tuple(WORDS), 4, 4, document_id="page")
    [ranked] = cascade.link([query])
    assert [c["id"] for c in ranked] == ["beekeeper", "soldier"]  # the page is pushed out
    np.testing.assert_allclose([c["first_stage_score"] for c in ranked], [1 / np.sqrt(2), 0.0],
                               atol=1e-3)
    [scored] = cascade.score([query])
    calibrated = calibrate([scored], ["beekeeper"], settings)
    assert calibrated.evidence == settings.evidence
    assert calibrated.validation["retrieval_at_1"] == 1


def test_without_weights_it_is_an_error_to_ask_for_features():
    with pytest.raises(ValueError, match="no first stage"):
        Cascade(KnowledgeBase(), settings=CascadeSettings()).features(["x"])
