"""Round 48's rules. An adjective in "-ed" before a defining phrase's noun is no participle that
ends it ("a small uninhabited island", "a covered market"), and a defining phrase ends at "off",
"across" or a number written out ("an island two miles off the harbour"); a vessel's noun is a
thing's head whatever pronoun its page uses; a lower-case span that a candidate's title writes is
a name, not a definite description; and titles of address of three more languages."""

import numpy as np

from allennlp_longent.linking.definitions import defining_head, head_kind
from allennlp_longent.linking.descriptors import DescriptorIndex, descriptor_order
from allennlp_longent.linking.kinds import kind
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.names import name_words


def _head(description: str, title: str = "Kervella") -> str:
    return defining_head(Entity("x", title, description))


def test_an_adjective_in_ed_before_the_noun_is_no_participle():
    assert _head("Kervella is a small uninhabited island.") == "island"
    assert _head("Kervella is a traditional covered market.") == "market"
    assert _head("Kervella is a public limited company.") == "company"
    assert _head("Kervella is a dark red wine.") == "wine"
    assert _head("Kervella is a large two-masted dhow.") == "dhow"


def test_a_participle_after_the_noun_still_ends_the_phrase():
    assert _head("Kervella is a festival held every June.") == "festival"
    assert _head("Kervella is a shepherd turned outlaw.") == "shepherd"  # a known head before it
    assert _head("Kervella is a brig carrying slate.") == "brig"  # a listed participle
    assert _head("Kervella is a melodrama filmed partly in Dorovets.") == "melodrama"


def test_the_phrase_ends_at_off_across_and_a_number_written_out():
    assert _head("Kervella is a small rocky island two miles off the harbour.") == "island"
    assert _head("Kervella is a fringing coral reef off the northern point.") == "reef"
    assert _head("Kervella is a covered timber bridge across the river.") == "bridge"
    assert _head("Kervella is a sugar mill three kilometres south of the town.") == "mill"


def test_a_vessel_is_a_thing_whatever_its_pronoun():
    boat = Entity("b", "Canot Kervella", "The Canot Kervella was a pulling and sailing lifeboat "
                                         "stationed at Porzic. She was named after the mayor. "
                                         "Her crew saved many lives.")
    assert defining_head(boat) == "lifeboat"
    assert head_kind(boat) == kind(boat) == "thing"


# a hand-written encoder: the steamer's kind phrase and the lager's lie on two axes, their titles
# on a third; "hoi kok" is nearest the steamer's phrase by a wide margin
VECTORS = {"passenger steamer": [1.0, 0.0, 0.0], "pale lager": [0.0, 1.0, 0.0],
           "Hoi Kok": [0.0, 0.0, 1.0], "Hoi Kok Beer": [0.0, 0.0, 1.0], "hoi kok": [0.9, 0.1, 0.3],
           "steamer": [1.0, 0.0, 0.0]}
STEAMER = Entity("s", "Hoi Kok", "Hoi Kok is a passenger steamer.")
BEER = Entity("b", "Hoi Kok Beer", "Hoi Kok Beer is a pale lager.")


def _encode(texts):
    return np.array([VECTORS[t] for t in texts], dtype=np.float64)


def test_a_lower_case_name_that_a_title_writes_is_no_description():
    index = DescriptorIndex([STEAMER, BEER], _encode, min_cosine=0.4, min_margin=0.08)
    ranked = [{"id": "b", "title": "Hoi Kok Beer"}, {"id": "s", "title": "Hoi Kok"}]
    assert descriptor_order("hoi kok", ranked, index, k=2) == ranked
    # a noun no title writes is still a description
    moved = descriptor_order("the steamer", ranked, index, k=2)
    assert [c["id"] for c in moved] == ["s", "b"]


def test_titles_of_address_of_catalan_breton_and_kashmiri():
    for mention, name in [("Senyor Eudald", "eudald"), ("la Senyoreta Mercè", "merce"),
                          ("Aotrou Kernaonet", "kernaonet"), ("Zaitoon Baji", "zaitoon"),
                          ("Rasool Kak", "rasool"), ("Hazrat Baba Hilal", "hilal"),
                          ("Revd Arthur Pennefather", "pennefather")]:
        words = [w for w, _ in name_words(mention)]
        assert name in words and not {"senyor", "senyoreta", "aotrou", "baji", "kak", "hazrat",
                                      "revd"} & set(words), (mention, words)


def test_a_later_demotion_keeps_an_earlier_one_but_a_title_of_address_does_not():
    from allennlp_longent.linking.kinds import kind as kind_of_page
    from allennlp_longent.linking.orders import article_order, gender_order, type_order

    ballad = Entity("b", "The Fox of Orune", "The Fox of Orune is a ballad sung at weddings.")
    outlaw = Entity("o", "Giuanne Ibbardu", "Giuanne Ibbardu (1840-1890) was a shepherd. He was "
                                            "called the Fox.")
    widow = Entity("w", "Maria Ibbardu", "Maria Ibbardu (1845-1920) was a weaver. She was his "
                                         "wife.")
    pages = {e.id: e for e in (ballad, outlaw, widow)}

    def kind_of(i):
        return kind_of_page(pages[i])

    ranked = [{"id": "b"}, {"id": "o"}]
    typed = type_order("PERSON", ranked, kind_of, 2)
    assert [c["id"] for c in typed] == ["o", "b"] and typed[1]["label_clash"]
    # "the Fox": the person's page does not name him with an article, but the ballad the label
    # moved back stays behind him
    after = article_order(typed, kind_of, lambda i: False, 2)
    assert [c["id"] for c in after] == ["o", "b"] and after[0]["article_clash"]
    # a title of address is as sure as the label: "Mrs Ibbardu" puts him after the ballad too
    assert [c["id"] for c in gender_order("Mrs Ibbardu", typed, pages.get, 2)] == ["b", "o"]
    three = type_order("PERSON", [{"id": "b"}, {"id": "o"}, {"id": "w"}], kind_of, 3)
    assert [c["id"] for c in gender_order("Mrs Ibbardu", three, pages.get, 3)] == ["w", "b", "o"]
