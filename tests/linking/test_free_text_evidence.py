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
