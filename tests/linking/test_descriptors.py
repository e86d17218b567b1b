"""Definite descriptions (:mod:`allennlp_longent.linking.descriptors`) with an encoder whose
vectors are written by hand, so every cosine below is worked out on paper."""

import numpy as np
import pytest

from allennlp_longent.linking.descriptors import (
    DescriptorIndex,
    descriptor,
    descriptor_order,
    kind_phrase,
)
from allennlp_longent.linking.knowledge_base import Entity

FORT = Entity("f", "Qasr Tamit", "Qasr Tamit is a mud-brick fortress on a hill.")
FIELD = Entity("a", "Ghadamor Airfield", "Ghadamor Airfield is an airfield to the east.")
WELL = Entity("w", "Bir Salma", "A well in the old quarter.")
NO_DEFINITION = Entity("n", "Souk", "Salt and dates are sold here.")

# the kind phrases are the first three unit axes, so a descriptor's cosines are its coordinates
# over its norm; the titles, embedded beside them, lie on a fourth axis that no descriptor but a
# lower-case name ("qasr tamit") reaches
VECTORS = {
    "mud-brick fortress": [1.0, 0.0, 0.0, 0.0],
    "airfield": [0.0, 1.0, 0.0, 0.0],
    "well": [0.0, 0.0, 1.0, 0.0],
    "castle": [0.8, 0.6, 0.0, 0.0],  # cos 0.8 with the fortress, 0.6 with the airfield: margin 0.2
    "fort": [0.6, 0.55, 0.58, 0.0],  # 0.6, 0.55, 0.58: margin 0.02
    "farm": [0.3, 0.2, 0.1, 0.0],    # |farm| = 0.3742: cosines 0.802, 0.535, 0.267
    "pier": [0.1, 0.1, 0.1, 0.0],    # best 0.577, margin 0
    "Qasr Tamit": [0.0, 0.0, 0.0, 1.0],
    "Ghadamor Airfield": [0.0, 0.6, 0.0, 0.8],  # the airfield's title row: 0.6 with "airfield"
    "Bir Salma": [0.0, 0.0, 0.6, 0.8],
    "Souk": [0.0, 0.0, 0.0, -1.0],
    "qasr tamit": [0.0, 0.0, 0.0, 1.0],  # the fortress's title row: 1.0; the airfield's 0.8
}


def encode(texts):
    return np.array([VECTORS[t] for t in texts], dtype=np.float64)


def test_descriptor_drops_determiners_and_possessives_and_refuses_names():
    assert descriptor("the castle") == "castle"
    assert descriptor("The fortress") == "fortress"
    assert descriptor("the saint's spring") == "spring"
    assert descriptor("your paper") == "paper"
    assert descriptor("the steamer landing") == "steamer landing"
    assert descriptor("airport") == "airport"
    assert descriptor("Qasr Tamit") is None
    assert descriptor("the Tamit") is None
    assert descriptor("the") is None


def test_kind_phrase_is_the_defining_words_or_the_title():
    assert kind_phrase(FORT) == "mud-brick fortress"  # a hyphenated word stays one
    assert kind_phrase(FIELD) == "airfield"
    assert kind_phrase(WELL) == "well"
    assert kind_phrase(NO_DEFINITION) == "Souk"


def test_nearest_needs_both_the_cosine_and_the_margin():
    index = DescriptorIndex([FORT, FIELD, WELL], encode, min_cosine=0.4, min_margin=0.08)
    found = index.nearest("castle")
    assert found[0] == "f"
    assert found[1] == pytest.approx(0.8) and found[2] == pytest.approx(0.2)
    assert index.nearest("fort") is None  # |fort| = 1.0; margin 0.6 - 0.58 = 0.02 < 0.08
    farm = index.nearest("farm")  # not a unit vector: cosines, not dot products
    assert farm[0] == "f" and farm[1] == pytest.approx(0.3 / 0.14 ** 0.5)
    assert farm[2] == pytest.approx(0.1 / 0.14 ** 0.5)
    # an entity's cosine is the larger of its kind phrase's and its title's: the airfield's
    # title row (0.6 * 0.6 = 0.36 with "castle") stays below its phrase's 0.6
    name = index.nearest("qasr tamit")  # the fortress's title row, 1.0; the airfield's 0.8
    assert name[0] == "f" and name[1] == pytest.approx(1.0) and name[2] == pytest.approx(0.2)
    assert index.nearest("pier") is None  # three equal cosines: no margin
    strict = DescriptorIndex([FORT, FIELD, WELL], encode, min_cosine=0.85, min_margin=0.0)
    assert strict.nearest("castle") is None  # 0.8 < 0.85
    assert DescriptorIndex([], encode).nearest("castle") is None


def test_nearest_leaves_out_the_excluded_entities():
    index = DescriptorIndex([FORT, FIELD, WELL], encode, min_cosine=0.4, min_margin=0.08)
    # without the fortress, "castle" has 0.6 with the airfield and 0.0 with the well
    found = index.nearest("castle", frozenset({"f"}))
    assert found[0] == "a" and found[1] == pytest.approx(0.6) and found[2] == pytest.approx(0.6)
    assert index.nearest("castle")[0] == "f"  # memoised apart from the excluded call
    assert index.nearest("castle", frozenset({"f", "a", "w"})) is None
    ranked = [{"id": "w"}, {"id": "a"}]
    moved = descriptor_order("the castle", ranked, index, k=4, excluded=frozenset({"f"}))
    assert [c["id"] for c in moved] == ["a", "w"]


def test_descriptor_order_adds_or_moves_the_referent_and_respects_a_noun_match():
    index = DescriptorIndex([FORT, FIELD, WELL], encode, min_cosine=0.4, min_margin=0.08)
    added = descriptor_order("the castle", [], index, k=4)
    assert [c["id"] for c in added] == ["f"] and added[0]["descriptor"] == pytest.approx(0.8)
    assert added[0]["probability"] == 0.0 and added[0]["score"] is None  # added, not scored
    assert added[0]["title"] == "Qasr Tamit"  # what the HTML view and link-text show
    ranked = [{"id": "w", "probability": 0.3}, {"id": "f", "probability": 0.1}]
    moved = descriptor_order("the castle", ranked, index, k=4)
    assert [c["id"] for c in moved] == ["f", "w"] and moved[0]["probability"] == 0.1
    # a candidate already defined by the span's noun: the lexical rule decided
    marked = [{"id": "w", "kind_noun": True}, {"id": "f"}]
    assert descriptor_order("the castle", marked, index, k=4) == marked
    assert descriptor_order("Qasr Tamit", ranked, index, k=4) == ranked  # a name
    assert descriptor_order("the fort", ranked, index, k=4) == ranked  # no clear referent
