"""Round 46's rules: a name written before a noun it modifies is named in passing, a people's
name is no page whose title lacks it, a patronymic and a clipped pet name are written by the
page of the person they name, and a family firm is written without "& Son"."""

from types import SimpleNamespace

import spacy
from spacy.tokens import Span

from allennlp_longent.linking.candidates.bm25 import variant
from allennlp_longent.linking.kind_words import share_kind
from allennlp_longent.linking.kinds import organisation
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.names import name_words, unwritten_on_pages
from allennlp_longent.linking.orders import organisation_order
from allennlp_longent.linking.passing import named_in_passing, words_before
from allennlp_longent.linking.spacy_component import LongentLinker

TOWN = Entity("t", "Tulvask", "Tulvask is a river town in the Orvensk region. Merchants came "
                              "from Orvensk for the fair to buy furs from the Kelmi hunters.")
FAIR = Entity("f", "Kelmi Fair", "The Kelmi Fair is a winter market held by the Kelmi hunters.")
RAIL = Entity("r", "Tulvask Railway", "Known as the Orvensk line, the railway ran to the coast.")
BRAND = Entity("b", "Orva Rum", "Orva Rum is a rum distilled by the Orvensk Distillery since 1881.")


def test_a_name_before_a_noun_it_modifies_is_written_after_the_word_before_its_article():
    assert words_before(["orvensk"], TOWN) == {"in", "from"}
    assert named_in_passing("Orvensk", {}, TOWN)
    assert named_in_passing("Kelmi", {}, TOWN)
    # an article after a naming word ("known as the Orvensk line") still gives a name
    assert words_before(["orvensk"], RAIL) == {"as"}
    assert not named_in_passing("Orvensk", {}, RAIL)
    # a function word after the run is no noun it modifies
    assert words_before(["orvensk"], BRAND) == {"the"}


def _span(text: str, start: int, end: int, label: str) -> Span:
    return Span(spacy.blank("en")(text), start, end, label=label)


def test_a_people_is_no_page_whose_title_does_not_write_its_name():
    kb = {"t": TOWN, "f": FAIR}
    linker = SimpleNamespace(label_agreement=True, kb=kb)
    people = _span("sold by the Kelmi people", 3, 4, "NORP")
    assert LongentLinker._group_of_no_page(linker, people, [{"id": "t"}])
    assert not LongentLinker._group_of_no_page(linker, people, [{"id": "f"}])  # title writes it
    place = _span("sold by the Kelmi people", 3, 4, "GPE")
    assert not LongentLinker._group_of_no_page(linker, place, [{"id": "t"}])
    off = SimpleNamespace(label_agreement=False, kb=kb)
    assert not LongentLinker._group_of_no_page(off, people, [{"id": "t"}])


MERCHANT = Entity("k", "Klavdia Sorokina", "Klavdia Sorokina (1860-1931) was a merchant.")
BUILDER = Entity("a", "Abel Tattridge", "Abel Tattridge (1801-1870) was a mill owner.")


def test_a_patronymic_after_a_given_name_the_page_writes_is_written():
    assert unwritten_on_pages("Klavdia Ivanovna", [MERCHANT]) == [[]]
    assert unwritten_on_pages("Klavdia Fomichna", [MERCHANT]) == [[]]
    # another given name before it: neither is written, the relative stays unwritten
    assert unwritten_on_pages("Marfa Ivanovna", [MERCHANT]) == [["ivanovna", "marfa"]]
    # a word with another ending is no patronymic
    assert unwritten_on_pages("Klavdia Ivanova", [MERCHANT]) == [["ivanova"]]


def test_a_clipped_english_pet_name_is_written_by_the_full_names_page():
    assert unwritten_on_pages("Abe", [BUILDER]) == [[]]
    assert unwritten_on_pages("Abe Tattridge", [BUILDER]) == [[]]
    assert unwritten_on_pages("Ike Tattridge", [BUILDER]) == [["ike"]]
    assert [t for t, _ in name_words("Owd Abe")] == ["abe"]
    assert [t for t, _ in name_words("Comrade Sorokina")] == ["sorokina"]


FIRM = Entity("c", "Tattridge Spinning Company", "The Tattridge Spinning Company is a firm.")
STREET = Entity("s", "Tattridge Street", "Tattridge Street is a street in the mill town.")


def test_a_family_firm_is_written_without_son_and_initials():
    pages = {"a": BUILDER, "c": FIRM, "s": STREET}
    for mention in ("A. Tattridge & Son", "Messrs. Tattridge", "the Tattridges"):
        ranked = [{"id": "a"}, {"id": "s"}, {"id": "c"}]
        assert organisation_order(mention, "ORG", ranked, pages.get, 3)[0]["id"] == "c"
    ranked = [{"id": "a"}, {"id": "s"}, {"id": "c"}]
    assert organisation_order("Tattridge Weaving", "ORG", ranked, pages.get, 3)[0]["id"] == "a"


def test_a_firm_in_another_language_and_in_capitals_with_labels_set_by_hand():
    pages = {"a": BUILDER, "c": FIRM, "s": STREET}
    ranked = [{"id": "s"}, {"id": "a"}, {"id": "c"}]
    assert organisation_order("A. Tattridge & Søn", "ORG", ranked, pages.get, 3)[0]["id"] == "c"
    # a name in capitals: a dateline for a statistical NER, the firm when a person labelled it
    assert organisation_order("TATTRIDGE", "ORG", ranked, pages.get, 3)[0]["id"] == "s"
    assert organisation_order("TATTRIDGE", "ORG", ranked, pages.get, 3,
                              capitals=True)[0]["id"] == "c"


def test_a_page_defined_by_a_trades_premises_is_an_organisation():
    assert organisation(Entity("g", "Conserverie Orvel", "Conserverie Orvel is a sardine cannery "
                                                         "founded in 1880."))
    assert organisation(Entity("p", "Panadería Orvel", "Panadería Orvel is a bakery in the "
                                                       "square."))
    assert not organisation(Entity("h", "Orvel Hill", "Orvel Hill is a hill above the town."))


def test_a_slavic_adjective_made_from_a_name_is_a_variant_of_it():
    assert variant("orvenskaya", "orven") and variant("orven", "orvenskaya")
    assert not variant("orvsky", "orv")  # a stem of three letters is too short
    assert variant("muhurskoe", "muhuri")  # the name without its last vowel
    assert not variant("orvenskaya", "orvent")


def test_a_fair_and_its_days_are_one_kind_and_so_are_the_russian_words():
    assert share_kind("days", {"fair"}) and share_kind("yarmarka", {"festival"})
    assert share_kind("obitel", {"monastery"}) and share_kind("klyuch", {"spring"})
    assert not share_kind("days", {"church"})
