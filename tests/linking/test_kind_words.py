from allennlp_longent.linking.kind_words import KIND_WORDS, kind_groups, share_kind
from allennlp_longent.linking.kinds import kind_named
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.names import unwritten_on_pages
from allennlp_longent.linking.orders import kind_name_order


def test_a_kind_word_shares_its_group_with_the_english_words_and_no_other():
    assert share_kind("kalesi", frozenset({"vathyskala", "castle"}))
    assert share_kind("castle", frozenset({"aslan", "kalesi"}))
    assert share_kind("sijang", frozenset({"market"}))
    assert not share_kind("sijang", frozenset({"castle", "church"}))
    assert not share_kind("aslan", frozenset({"castle"}))  # no kind word at all


def test_endings_and_compounds_are_read_only_for_words_of_other_languages():
    assert kind_groups("yaylasi") == kind_groups("yayla") != frozenset()  # Turkish "-sı"
    assert kind_groups("stasjonen") == kind_groups("stasjon")  # Norwegian "-en"
    assert kind_groups("zeneiskola") == kind_groups("iskola")  # a compound: music school
    assert kind_groups("parker") == frozenset()  # "park" is English: a surname, not a park
    assert kind_groups("newcastle") == frozenset()
    assert kind_groups("castles") == kind_groups("castle")  # an English plural
    assert kind_groups("mosq") == frozenset()  # four letters of no listed word


def test_short_words_and_names_are_not_listed():
    assert all(len(word) > 3 for word in KIND_WORDS)
    for name in ("berg", "mina", "villa", "casa", "duong", "kota", "tepe", "maki"):
        assert name not in KIND_WORDS


def test_a_kind_word_is_written_by_a_page_that_says_it_is_of_that_kind():
    castle = Entity("c", "Vathyskala Castle", "A ruined castle above the harbour of Vathyskala.")
    town = Entity("t", "Vathyskala", "A town on the island. It has a harbour and a castle.")
    assert unwritten_on_pages("Vathyskala Kalesi", [castle, town]) == [[], ["kalesi"]]
    plateau = Entity("p", "Ayamelina Yaylası", "A summer pasture above the valley.")
    assert unwritten_on_pages("Ayamelina Plateau", [plateau]) == [[]]
    # a street's page that mentions a river: "Sungai" names the street, not its kind
    street = Entity("s", "Jalan Loke", "Jalan Loke is a street along the river.")
    assert unwritten_on_pages("Jalan Sungai", [street]) == [["sungai"]]


def test_a_kind_word_of_another_language_orders_the_candidates_of_that_kind_first():
    pages = {
        "n": Entity("n", "Kaarnakosken Sanomat", "Kaarnakosken Sanomat is a newspaper."),
        "s": Entity("s", "Kaarnakoski railway station", "Kaarnakoski railway station is a "
                    "station on the northern line."),
        "g": Entity("g", "Gmina Lipno", "Lipno is a village."),
    }
    assert kind_named("Kaarnakosken asema", pages["s"])
    assert not kind_named("Kaarnakosken asema", pages["n"])
    ranked = [{"id": "n"}, {"id": "s"}]
    assert [c["id"] for c in kind_name_order("Kaarnakosken asema", ranked, pages.__getitem__,
                                             2)] == ["s", "n"]
    assert not kind_named("Lipno", pages["g"])  # one word: no kind to read


def test_only_listed_endings_follow_a_kind_word_of_another_language():
    assert kind_groups("montejo") == frozenset()  # a surname, not "monte" with "-jo"
    assert kind_groups("kilisesi") == kind_groups("kilise")


def test_a_work_of_art_span_is_not_ordered_by_the_kind_its_words_name():
    pages = {
        "r": Entity("r", "Amdebirhan Street", "The main street of Harqelo."),
        "b": Entity("b", "Ye-Buna Menged", "Ye-Buna Menged ('The Coffee Road') is a memoir."),
    }
    ranked = [{"id": "b"}, {"id": "r"}]
    assert [c["id"] for c in kind_name_order("The Coffee Road", ranked, pages.__getitem__,
                                             2)] == ["r", "b"]
    assert kind_name_order("The Coffee Road", ranked, pages.__getitem__, 2,
                           "WORK_OF_ART") == ranked
