"""Round 47's rules. The family-firm rule narrowed: an ORG span's every word is read first, its
family name alone only when no organisation writes them all; among several that write the family
name, the one whose page writes the whole mention, else the one whose title is a firm's; capitals
that some title writes as capitals are an acronym, left alone. And a participle ends the noun group
after "and" in a defining phrase ("a packing and export company based in": a company), a name cut
at its bracket is no definition, a full stop after an abbreviation or an initial ends no sentence,
an initial does not bring back a person the label excludes, a trade that names a firm as often as a
man is read by the page's fields, and titles of address of three more languages."""

from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.orders import organisation_order, organisation_reach

FOUNDER = Entity("p", "Orsola Verbeni", "Orsola Verbeni (1870-1950) was a citrus merchant.")
FIRM = Entity("f", "Verbeni & Figli", "Verbeni & Figli is a citrus export company founded in 1903. "
                                      "Abroad it trades as Verbeni & Sons.")
SCHOOL = Entity("s", "Istituto Orsola Verbeni", "Istituto Orsola Verbeni is a school named after "
                                                "the merchant.")
CLUB = Entity("c", "Verbeni Rowing Club", "Verbeni Rowing Club is a club founded in 1960.")
PAGES = {e.id: e for e in (FOUNDER, FIRM, SCHOOL, CLUB)}


def _first(mention: str, ranked_ids, capitals: bool = False) -> str:
    ranked = [{"id": i} for i in ranked_ids]
    return organisation_order(mention, "ORG", ranked, PAGES.get, len(ranked),
                              capitals=capitals)[0]["id"]


def test_every_word_of_the_mention_first():
    # the school comes before the firm in retrieval's order; "Figli" is written by the firm only
    assert _first("Verbeni & Figli", ["p", "s", "f"]) == "f"
    # a word no organisation writes: the family name alone decides, and three organisations
    # write it; the firm's page writes the whole mention ("trades as Verbeni & Sons")
    assert _first("VERBENI & SONS", ["p", "s", "c", "f"], capitals=True) == "f"


def test_a_family_plural_is_the_firm_when_several_organisations_write_the_name():
    # no page writes "Verbenis": the firm's title has a firm's word ("Figli"), the others none
    assert _first("the Verbenis", ["p", "s", "c", "f"]) == "f"
    # one organisation writes the name: it goes first whatever its title
    pages = {"p": FOUNDER, "c": CLUB}
    ranked = [{"id": "p"}, {"id": "c"}]
    assert organisation_order("the Verbenis", "ORG", ranked, pages.get, 2)[0]["id"] == "c"


def test_capitals_that_a_title_writes_are_an_acronym():
    mine = Entity("m", "KGW Dranow", "KGW Dranow is a coal mine sunk in 1791.")
    band = Entity("b", "Orkiestra KGW Dranow", "A miners' brass band founded in 1867.")
    pages = {"m": mine, "b": band}
    ranked = [{"id": "m"}, {"id": "b"}]
    assert organisation_order("KGW", "ORG", ranked, pages.get, 2, capitals=True)[0]["id"] == "m"
    # a name in capitals that no title writes so is typography: the organisation goes first
    pages = {"p": FOUNDER, "c": CLUB}
    ranked = [{"id": "p"}, {"id": "c"}]
    assert organisation_order("VERBENI", "ORG", ranked, pages.get, 2, capitals=True)[0]["id"] == "c"


def test_the_reach_reads_every_word_first():
    # below the first two: the school at 2 writes "Verbeni", the firm at 3 writes "Figli" too
    entities = [FOUNDER, Entity("x", "Verbeni Street", "Verbeni Street is a street."), SCHOOL, FIRM]
    assert organisation_reach("ORG", "Verbeni & Figli", entities, 2) == 3
    assert organisation_reach("ORG", "Verbeni", entities, 2) == 2
    assert organisation_reach("GPE", "Verbeni & Figli", entities, 2) is None


def test_a_participle_ends_the_noun_group_after_and():
    from allennlp_longent.linking.definitions import defining_head
    from allennlp_longent.linking.kinds import organisation

    firm = Entity("f", "Orvel & Figli", "Orvel & Figli is a citrus packing and export company "
                                        "based in Scaravella.")
    assert defining_head(firm) == "company" and organisation(firm)
    # without the participle the group after "and" is read as before
    assert defining_head(Entity("h", "Orvel House", "Orvel House is a sherry and brandy house.")) \
        == "house"
    assert defining_head(Entity("p", "Ada Orvel", "Ada Orvel is a poet and novelist born in "
                                                  "1900.")) == "poet"


def test_initials_go_before_the_firm_words():
    firm = Entity("w", "Verbeni & Søn", "Verbeni & Søn is a shipping company founded in 1880.")
    pages = {"p": FOUNDER, "s": SCHOOL, "w": firm}
    ranked = [{"id": "p"}, {"id": "s"}, {"id": "w"}]
    # "Søn" is written by the firm's title only, once the initial is let go
    assert organisation_order("A. Verbeni & Søn", "ORG", ranked, pages.get, 3)[0]["id"] == "w"


def test_an_initial_does_not_bring_back_a_person_the_label_excludes():
    from allennlp_longent.linking.kinds import kind
    from allennlp_longent.linking.orders import initial_order, type_order

    son = Entity("e", "Elio Verbeni", "Elio Verbeni (1901-1970) was the founder's son. He ran the "
                                      "firm.")
    pages = {"f": FIRM, "e": son}
    ranked = type_order("ORG", [{"id": "e"}, {"id": "f"}], lambda i: kind(pages[i]), 2)
    assert [c["id"] for c in ranked] == ["f", "e"] and ranked[1]["label_clash"]
    titles = {"f": FIRM.title, "e": son.title}.get
    assert initial_order("E. Verbeni & Son", ranked, titles, 2)[0]["id"] == "f"
    # without the label's clash the initial decides, as before
    assert initial_order("E. Verbeni", [{"id": "f"}, {"id": "e"}], titles, 2)[0]["id"] == "e"


def test_a_full_stop_after_an_abbreviation_or_an_initial_ends_no_sentence():
    from allennlp_longent.linking.definitions import SENTENCE_END, defining_head

    text = "Orvel & Sons Looms Pvt. Ltd. is a weaving firm founded by K. Orvel. It employs 60."
    assert SENTENCE_END.split(text) == [
        "Orvel & Sons Looms Pvt. Ltd. is a weaving firm founded by K. Orvel.", "It employs 60."]
    assert defining_head(Entity("o", "Orvel & Sons", text)) == "firm"


def test_a_first_candidate_whose_title_writes_a_family_firms_name_keeps_its_place():
    unread = Entity("u", "Verbeni & Figli Esportazioni S.p.A.", "Founded by Orsola Verbeni in "
                                                                "1903, it ships lemons.")
    pages = {"u": unread, "c": CLUB}
    ranked = [{"id": "u"}, {"id": "c"}]
    assert organisation_order("Verbeni & Figli", "ORG", ranked, pages.get, 2)[0]["id"] == "u"
    assert organisation_reach("ORG", "Verbeni & Figli", [unread, FOUNDER, CLUB], 2) is None
    # without a firm's word a title that writes the name is no such evidence: a town's name
    # labelled ORG names its club
    town = Entity("t", "Port Verbeni", "Port Verbeni is a town on the coast.")
    club = Entity("k", "Port Verbeni Cricket Club", "Port Verbeni Cricket Club is a club.")
    pages = {"t": town, "k": club}
    ranked = [{"id": "t"}, {"id": "k"}]
    assert organisation_order("Port Verbeni", "ORG", ranked, pages.get, 2)[0]["id"] == "k"


def test_a_trade_that_names_a_firm_as_often_as_a_man_is_read_by_the_page_fields():
    from allennlp_longent.linking.kinds import kind

    yard = Entity("y", "Orvel Shipbuilding", "Orvel Shipbuilding Co., Ltd. is a shipbuilder based "
                                             "in Kagamihama. Founded: 1912. Employees: 1,900.")
    man = Entity("m", "Ivo Orvel", "Ivo Orvel (1850-1920) was a shipbuilder of Kagamihama.")
    assert kind(yard) == "thing" and kind(man) == "person"


def test_a_name_cut_at_its_bracket_is_no_definition_the_verbs_phrase_is():
    from allennlp_longent.linking.definitions import defining_head
    from allennlp_longent.linking.kinds import organisation

    firm = Entity("s", "Marmifera Orvel", "The Società Marmifera Orvel (SMO) was a marble "
                                          "quarrying firm founded in 1868.")
    assert defining_head(firm) == "firm" and organisation(firm)
    # a phrase that ends in a known head is kept, as before
    bank = Entity("b", "Orvel Bank", "The commercial bank, majority-owned by the state, lends.")
    assert defining_head(bank) == "bank"


def test_titles_of_address_of_three_more_languages():
    from allennlp_longent.linking.names import name_words

    for mention in ("Tziu Orvel", "Zija Orvel", "Surmast Orvel", "Nhô Orvel"):
        assert [t for t, _ in name_words(mention)] == ["orvel"], mention
    # the Vietnamese "Nhà" (a house) is no title
    assert [t for t, _ in name_words("Nhà Orvel")] == ["nha", "orvel"]


def test_farms_halts_and_bands_share_a_kind_across_languages():
    from allennlp_longent.linking.kind_words import share_kind

    assert share_kind("finca", {"farm"}) and share_kind("hacienda", {"estate"})
    assert share_kind("apeadero", {"halt"}) and share_kind("musique", {"band"})
    assert not share_kind("finca", {"band"})
