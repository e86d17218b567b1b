"""The first stage's features that need no page structure, computed by hand."""

import math

import numpy as np
import pytest

from allennlp_longent.linking.evidence import qualifier_words, weighted_share, window_words

WORDS = "The painter Ysolde Marrick sketched the Herring Riot . Gulls cried".split()
#        0   1       2      3       4        5   6       7    8 9     10


def test_window_words_leave_out_the_mention_and_find_names_inside_sentences():
    context, names = window_words(WORDS, 2, 3, window=5)
    # words 0..8 without 2, 3; stop words ("the") dropped; the sentence-initial "The" is no name
    assert context == {"painter", "sketched", "herring", "riot"}
    assert names == {"herring", "riot"}
    context, names = window_words(WORDS, 2, 3, window=100)
    assert "gulls" in context and "gulls" not in names  # sentence-initial after "."


def test_qualifier_words():
    assert qualifier_words("Ysolde Marrick (painter)") == {"painter"}
    assert qualifier_words("Liss  Corrander ( merchant ship )") == {"merchant", "ship"}
    assert qualifier_words("Gullhaven") == set()


def test_weighted_share_by_hand():
    pages = [{"painter", "riot"}, {"riot"}, {"pilot"}]
    share = weighted_share({"painter", "riot", "sketched"}, pages)
    # df: painter 1, riot 2, sketched 0; idf = log(1 + 3 / (1 + df))
    idf = {"painter": math.log(1 + 3 / 2), "riot": math.log(1 + 3 / 3),
           "sketched": math.log(1 + 3 / 1)}
    total = sum(idf.values())
    assert share == pytest.approx(np.array([(idf["painter"] + idf["riot"]) / total,
                                            idf["riot"] / total, 0.0]))
    assert weighted_share(set(), pages).tolist() == [0.0, 0.0, 0.0]


def test_a_first_stage_without_encoder_weights_never_loads_the_encoder():
    from allennlp_longent.linking.candidates.generator import MentionQuery
    from allennlp_longent.linking.evidence import FEATURES, ContextEvidence, EvidenceSettings
    from allennlp_longent.linking.knowledge_base import Entity

    settings = EvidenceSettings("no such encoder", weights={"retrieval": 1.0, "mention": 0.0},
                                scales={f: [0.0, 1.0] for f in FEATURES})
    evidence = ContextEvidence(settings)
    entities = [Entity("a", "Ysolde Marrick (painter)", "painted the Herring Riot"),
                Entity("b", "Ysolde Marrick", "a pilot")]
    [rows] = evidence.features([MentionQuery(tuple(WORDS), 2, 3)], [entities],
                               [np.array([2.0, 1.0])])
    assert evidence._encoder is None  # "no such encoder" would have raised
    column = dict(zip(FEATURES, rows.T))
    assert column["mention"].tolist() == column["clue"].tolist() == [0.0, 0.0]
    assert column["share"].tolist() == [1.0, 0.5]
    assert column["qualifier"].tolist() == [1.0, 0.0]  # "painter" is near the mention
    assert column["overlap"].tolist() == [1.0, 1.0]
