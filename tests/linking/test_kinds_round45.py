"""Round 45's rules: a trading house is a firm, a town's older name is a name of its own, a GPE
span names the town and not the river that shares its name, and a song sung under a person's
name is that song for a WORK_OF_ART span."""

import spacy

from allennlp_longent.linking.kinds import natural, organisation, quoted
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.label_conflict import label_conflict
from allennlp_longent.linking.names import page_aliases
from allennlp_longent.linking.orders import definition_order, placeless_order, settlement_reach
from allennlp_longent.linking.spacy_component import LongentLinker


def _pages(*entities: Entity) -> dict:
    return {e.id: e for e in entities}


def test_a_house_is_a_firm_after_a_word_of_trade_and_a_building_otherwise():
    firms = [Entity("a", "Maison Arvel", "Maison Arvel is a perfume house founded in 1873."),
             Entity("b", "Dorrance & Co.", "Dorrance & Co. is a sherry and brandy house."),
             Entity("c", "Melis & Figli", "Melis & Figli is a cheese-ageing export house.")]
    buildings = [Entity("d", "Hôtel Arvel", "Hôtel Arvel is a seventeenth-century town house."),
                 Entity("e", "The Crane Arms", "The Crane Arms is a public house by the quay."),
                 Entity("f", "Arvel Opera House", "Arvel Opera House is an opera house.")]
    assert all(organisation(e) for e in firms)
    assert not any(organisation(e) for e in buildings)


def test_an_older_name_is_a_name_the_page_gives_its_entity():
    town = Entity("t", "General Arbal", "General Arbal is a pampas town. Before the railway the "
                                        "place was known by its older indigenous name, Chelcoy.")
    long_clause = Entity("k", "Kfar Tenna", "Kfar Tenna is a mountain town. Its older name, "
                                            "still used in the names of its river, its arak and "
                                            "its festival, is Qaltar.")
    other = Entity("m", "Marien Abbey", "The abbey stands where the older town name Cellow is "
                                        "still heard.")
    assert page_aliases(town) == {("chelcoy",)}
    assert page_aliases(long_clause) == {("qaltar",)}
    assert page_aliases(other) == frozenset()  # the town's older name, not the abbey's


PAGES = _pages(
    Entity("creek", "Blackcap Creek", "Blackcap Creek is a stream that flows west to the fork."),
    Entity("town", "Vessa", "Vessa is a former company town on Blackcap Creek. The older "
                           "settlement at the creek mouth was called Blackcap."),
    Entity("city", "Orlen", "Orlen is a town at the mouth of Blackcap Creek."),
    Entity("coal", "Blackcap Smokeless", "Blackcap Smokeless is a coal brand sold from 1895."),
)


def test_a_gpe_span_prefers_the_town_that_kept_the_name_to_the_river_that_has_it():
    assert natural(PAGES["creek"]) and not natural(PAGES["town"])
    ranked = [{"id": i} for i in ("creek", "city", "town")]
    moved = placeless_order("Blackcap", "GPE", ranked, PAGES.__getitem__, 3)
    # Orlen's page only writes the creek's name; Vessa gives it as a name of its own
    assert [c["id"] for c in moved] == ["town", "creek", "city"] and moved[0]["setting"]
    assert placeless_order("Blackcap", "LOC", ranked, PAGES.__getitem__, 3) == ranked
    without_alias = [{"id": i} for i in ("creek", "city")]
    assert placeless_order("Blackcap", "GPE", without_alias, PAGES.__getitem__, 2) == without_alias


def test_settlement_reach_finds_the_town_that_kept_the_name_below_the_first_k():
    entities = [PAGES[i] for i in ("coal", "creek", "city", "town")]
    assert settlement_reach("GPE", "Blackcap", entities, 2) == 3
    assert settlement_reach("LOC", "Blackcap", entities, 2) is None
    assert settlement_reach("GPE", "Blackcap", entities, 4) is None  # already among the first k
    town_first = [PAGES[i] for i in ("city", "coal", "town")]
    assert settlement_reach("GPE", "Blackcap", town_first, 2) is None  # a settlement leads


def test_the_component_moves_the_reached_town_into_the_first_k():
    doc = spacy.blank("en")("They camped at Blackcap that spring.")
    span = doc.char_span(15, 23, label="GPE")
    found = [(PAGES[i], 1.0, 1.0) for i in ("coal", "creek", "city", "town")]
    reached = LongentLinker._reach(span, found, 2)
    assert [e.id for e, _, _ in reached] == ["coal", "town", "creek", "city"]


def test_a_work_span_prefers_the_ballad_sung_under_the_name_to_its_person():
    pages = _pages(
        Entity("p", "Hollin Tacket", "Hollin Tacket (1889–1927) was the fire boss of the mine."),
        Entity("s", "The Fire Boss's Lamp", "\"The Fire Boss's Lamp\" is a ballad about Hollin "
                                            "Tacket. It is also sung under the title \"Hollin "
                                            "Tacket\"."),
    )
    assert quoted("Hollin Tacket", pages["s"]) and not quoted("Hollin", pages["s"])
    ranked = [{"id": "p", "title": pages["p"].title, "probability": 0.99},
              {"id": "s", "title": pages["s"].title, "probability": 0.01}]
    moved = definition_order("WORK_OF_ART", ranked, pages.__getitem__, 2, "Hollin Tacket")
    assert [c["id"] for c in moved] == ["s", "p"] and moved[0]["quoted_title"]
    # the quoted title is evidence of the name: the likeliest page does not go back first
    assert label_conflict("Hollin Tacket", moved, annotated=True) is None
    assert definition_order("PERSON", ranked, pages.__getitem__, 2, "Hollin Tacket")[0]["id"] == "p"


def test_a_product_span_prefers_the_cheese_to_the_mountain_it_is_named_after():
    from allennlp_longent.linking.kinds import made_thing
    from allennlp_longent.linking.orders import product_order

    pages = _pages(
        Entity("m", "Monte Tzaddu", "Monte Tzaddu is a mountain of the island."),
        Entity("c", "Pecorino Tzaddu", "Pecorino Tzaddu is a raw sheep's-milk cheese made on "
                                       "the slopes of Monte Tzaddu."),
        Entity("b", "Tzaddu Dairy", "Tzaddu Dairy is a cooperative founded in 1911."),
        Entity("f", "Festa Tzaddu", "Festa Tzaddu is a summer festival of the village."),
    )
    assert made_thing(pages["c"])
    assert not any(made_thing(pages[i]) for i in "mbf")
    ranked = [{"id": i} for i in "mbc"]
    moved = product_order("Tzaddu", "PRODUCT", ranked, pages.__getitem__, 3)
    assert [c["id"] for c in moved] == ["c", "m", "b"] and moved[0]["product"]
    assert product_order("Tzaddu", "LOC", ranked, pages.__getitem__, 3) == ranked
    assert product_order("Monte Tzaddu", "PRODUCT", ranked, pages.__getitem__, 3) == ranked
    assert product_order("Tzaddu", "PRODUCT", ranked, pages.__getitem__, 2) == ranked  # k


def test_organisation_reach_finds_the_firm_below_the_street_and_the_family():
    from allennlp_longent.linking.orders import organisation_reach

    entities = [
        Entity("s", "Pettigrew Street", "Pettigrew Street is the main street of the town."),
        Entity("w", "Walter Pettigrew", "Walter Pettigrew (1850–1921) was a jam maker."),
        Entity("j", "Josiah Pettigrew", "Josiah Pettigrew (1880–1950) was his son."),
        Entity("f", "Pettigrew & Sons", "Pettigrew & Sons is a jam company founded in 1881."),
    ]
    assert organisation_reach("ORG", "Pettigrew's", entities, 2) == 3
    assert organisation_reach("GPE", "Pettigrew's", entities, 2) is None
    assert organisation_reach("ORG", "Pettigrew's", entities[3:] + entities[:3], 2) is None
    assert organisation_reach("ORG", "Tarleigh", entities, 2) is None  # no title writes it


def test_a_fac_span_prefers_the_church_to_the_band_named_after_its_saint():
    pages = _pages(
        Entity("b", "Harmonie Sint-Rikka", "Harmonie Sint-Rikka is a brass band founded in 1861."),
        Entity("c", "Sint-Rikkakerk", "Sint-Rikkakerk is a Gothic church, dedicated to "
                                      "Sint-Rikka."),
    )
    ranked = [{"id": i} for i in "bc"]
    moved = placeless_order("Sint-Rikka", "FAC", ranked, pages.__getitem__, 2)
    assert [c["id"] for c in moved] == ["c", "b"] and moved[0]["setting"]
    assert placeless_order("Sint-Rikka", "ORG", ranked, pages.__getitem__, 2) == ranked


def test_a_page_that_opens_with_a_life_is_no_organisation_whatever_its_head():
    person = Entity("p", "Desmond Vale", "Desmond Vale (1944-2011) was a sound-system operator.")
    firm = Entity("f", "Vale Ferries", "Vale Ferries is a ferry operator founded in 1950.")
    assert organisation(firm) and not organisation(person)
