"""One name romanised two ways (:mod:`allennlp_longent.linking.candidates.transliteration`),
each convention checked on pairs worked out by hand from the romanisation rules it names."""

import pytest

from allennlp_longent.linking.candidates.transliteration import (
    sounds_alike,
    sounds_alike_in,
    spelling_key,
)
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.names import name_words, page_names, unwritten_on_pages


@pytest.mark.parametrize("one, other", [
    ("chinmul", "jinmul"),  # McCune-Reischauer "ch" against Revised Romanisation "j"
    ("changsung", "jangseung"),  # and "u" against "eu"
    ("chonhae", "cheonhae"),  # "o" against "eo"
    ("wakrim", "ouakrim"),  # English "w" against French "ou"
    ("waqrim", "ouakrim"),  # "q" against "k"
    ("kutlugh", "qutlug"),  # "gh" against "g"
    ("zarhan", "zerhane"),  # one vowel, and a final "e"
    ("jung", "jeong"),
    ("mohammed", "mohamed"),  # a doubled letter
])
def test_one_name_in_two_romanisations_sounds_alike(one, other):
    assert sounds_alike(one, other) and sounds_alike(other, one)


@pytest.mark.parametrize("one, other", [
    ("petra", "peter"),  # the vowels are in other places
    ("marta", "marco"),  # another consonant
    ("jan", "jon"),  # too short to tell
    ("lisa", "liss"),
])
def test_other_names_do_not(one, other):
    assert not sounds_alike(one, other)


def test_the_key_makes_each_choice_one_way():
    assert spelling_key("cheonhae") == spelling_key("chonhae") == "Conh"
    assert spelling_key("ouakrim") == "uakrim"
    assert spelling_key("zerhane") == "serhan"  # voiced "z" as "s", the final "e" dropped
    assert spelling_key("ane") == "ane"  # a key of three letters keeps its final "e"


def test_lookup_by_skeleton_agrees_with_the_pairwise_test():
    words = frozenset({"jeong", "haeseong", "mayor", "lee"})
    assert sounds_alike_in("jung", words)
    assert not sounds_alike_in("sang", words)
    assert sounds_alike_in("haesong", set(words))  # a plain set is indexed as well


def test_an_aspiration_apostrophe_does_not_split_a_syllable():
    assert [t for t, _ in name_words("Ch'ŏnhae Bridge")] == ["chonhae", "bridge"]
    assert [t for t, _ in name_words("Yun Ki-ch'ŏl")] == ["yun", "ki", "chol"]
    assert [t for t, _ in name_words("O'Brien")] == ["brien"]  # a clitic before a capital


def test_a_page_writes_a_name_it_romanises_another_way():
    mayor = Entity("m", "Lee Jeong-mi", "Lee Jeong-mi has been mayor of Haeseong since 2018.")
    assert page_names(mayor) == {"lee", "jeong", "mi", "haeseong"}  # not "since", not "has"
    assert unwritten_on_pages("Lee Jung-mi", [mayor]) == [[]]
    assert unwritten_on_pages("Lee Sang-cheol", [mayor]) == [["cheol", "sang"]]
    # "since" opens no name: "Sang" (key "sank", as "since" is "sink") stays unwritten
    assert unwritten_on_pages("Sang Lee", [mayor]) == [["sang"]]
