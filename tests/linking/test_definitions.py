"""What a page says its entity is, in the styles knowledge bases write
(:mod:`allennlp_longent.linking.definitions`); every page here is written for the test."""

import re

import pytest

from allennlp_longent.linking.definitions import (
    PERSON,
    THING,
    defining_head,
    defining_words,
    field_kind,
    head_kind,
)
from allennlp_longent.linking.kinds import kind
from allennlp_longent.linking.knowledge_base import Entity


@pytest.mark.parametrize("title, description, words", [
    # 1. a definition in the opening sentence
    ("Qasr Tamit", "Qasr Tamit is a mud-brick fortress on a rocky hill.",
     ("mud-brick", "fortress")),
    ("Brannoc", "Found in the vaults of Saltgrave, it is a two-handed sword. Base damage 212.",
     ("two-handed", "sword")),
    # 2. an infobox field: the last noun group of its value
    ("Ponte", "Opened: 2009. Type: cable-stayed road and rail bridge. Length: 1.1 km.",
     ("rail", "bridge")),
    ("Hollow", "Type: Dungeon (5 players). Level: 22-26.", ("dungeon",)),
    # 3. a later sentence whose subject is the entity
    ("Aldric Vane", "Once a just ruler, he burned his kingdom. In game terms, Aldric Vane is the "
     "undead final boss of the vaults.", ("undead", "final", "boss")),
    ("Cinder War", "Long before the player arrives, Ashmoor burned. The Cinder War was the "
     "conflict in which the king turned on his people.", ("conflict",)),
    # 4. a verbless opening noun phrase, after a quotation, the title, a birth or another name
    ("Wesley Cardoso", "Known as Cardosinho. Striker; came through the academy.", ("striker",)),
    ("Marina Solano", "Born 1998 in Itaquara. Singer and songwriter who mixes pop.", ("singer",)),
    ("Anil (album)", "Anil. Studio album by Marina Solano.", ("studio", "album")),
    ("Greywater Rising", '"The sea remembers." Level 18-24 questline that ends the story.',
     ("level", "questline")),
    ("Guarita", "District of São Tarcísio on the south bank.", ("district",)),
    ("Airport", "International airport serving the city; IATA code STC.",
     ("international", "airport")),  # cut before the participle
    ("Cinderhoof", "Mount. A burning warhorse.", ("mount",)),
    # 5. a later sentence that opens "The <noun>,"
    ("Banco", "Proudly serving families since 1958, Banco combines branches. The commercial "
     "bank, owned by the state, sponsors the club.", ("commercial", "bank")),
    ("Classico", "First played in 1934. The derby between the two clubs takes its name from "
     "the river.", ("derby",)),
    # no definition: a gerund, an adverb, a field's name, a verb, the title again
    ("Sao Tarcisio", "Sitting on both banks of the river, the city grew.", ()),
    ("Club", "Full name: Esporte Clube (ECST). Sport: football.", ()),
    ("Anselm Roe", "Anselm Roe was bishop of Harrowby.", ()),
    ("Souk", "Salt and dates are sold here.", ()),
    ("Movimento Social Liberal", "Movimento Social Liberal (MSL): centre-right, since 2015.", ()),
])
def test_defining_words_in_each_style(title, description, words):
    assert defining_words(Entity("x", title, description)) == words


def test_defining_head_skips_a_participle_and_the_adverb_before_it():
    game = Entity("g", "Tidefall", "Tidefall is a fantasy game first released in 2023.")
    assert defining_words(game) == ("fantasy", "game", "first", "released")
    assert defining_head(game) == "game"
    potion = Entity("p", "Draught", "A blue healing potion sold by Old Pell.")
    assert defining_head(potion) == "potion"  # "sold", an irregular participle


def test_head_kind_by_the_head_or_the_qualifier():
    assert head_kind(Entity("v", "Old Pell", "A potion vendor in Greywater.")) == PERSON
    assert head_kind(Entity("c", "Compact", "Type: Guild (merchant faction).")) == THING
    assert head_kind(Entity("a", "Quintela (app)", "Quintela puts your money in one place.")) \
        == THING
    assert head_kind(Entity("b", "Aldric", "Aldric is the undead final boss.")) is None


def test_field_kind_by_the_opening_words_or_the_fields():
    assert field_kind(Entity("j", "J", "Born 1961 in Itaquara, she trained as a nurse.")) == PERSON
    assert field_kind(Entity("r", "R", "(1904-1979). He captained the club.")) == PERSON
    assert field_kind(Entity("h", "H", "Founded in 1952 by the Sisters, it moved.")) == THING
    assert field_kind(Entity("q", "Q", "Quintela S.A. Founded: 2011. Headquarters: Guarita. "
                                       "Founder: Vitor.")) == THING  # two fields of a thing
    assert field_kind(Entity("b", "B", "Born: 1950. Occupation: smith.")) == PERSON  # an opening
    assert field_kind(Entity("t", "T", "Name: T. Died: 1950. Founded: 1990.")) is None  # 1 to 1
    assert field_kind(Entity("n", "N", "A river town.")) is None


def test_kind_reads_pages_without_pronouns():
    # before round 20 these pages had no kind: no pronoun and no "is a" sentence
    assert kind(Entity("w", "Wesley Cardoso", "Known as Cardosinho. Striker; came through the "
                                              "academy.")) == PERSON
    assert kind(Entity("m", "Cinderhoof", "Mount. A burning warhorse. Dropped by the king.")) \
        == THING
    assert kind(Entity("v", "Vitor Quintela", "Born 1987 in São Tarcísio. Studied computer "
                                              "science.")) == PERSON
    # the pronouns still decide a page whose head is in neither list
    assert kind(Entity("a", "Aldric", "Aldric is the undead boss. He burned his kingdom.")) \
        == PERSON


def test_a_person_by_a_noun_ending_or_a_life_s_dates():
    # round 23: heads of neither list that end like a person's noun, and a life's dates in the
    # first clause ("Henrik Åsland" had been read as a thing by "son of its founder")
    assert head_kind(Entity("b", "B", "B is a marine biologist from the fjords.")) == PERSON
    assert head_kind(Entity("p", "P", "P is a country physician.")) == PERSON
    assert head_kind(Entity("l", "L", "L is a long list.")) is None  # too short to be a noun's end
    assert field_kind(Entity("h", "Henrik", "Business executive (b. 1984), chief executive of "
                                            "the firm and son of its founder.")) == PERSON
    assert field_kind(Entity("i", "Ivan", "Ivan Kovalenko (1924-1996), engineer and manager, "
                                          "directed the plant.")) == PERSON
    # dates too far apart for a life, or after the first clause, say nothing
    assert field_kind(Entity("y", "Yard", "Shipyard (1884-2011), on the left bank.")) is None
    assert field_kind(Entity("s", "Yard", "A shipyard, founded by Pavlo (1850-1921).")) is None
    assert kind(Entity("h", "Henrik", "Norwegian business executive (b. 1984), son of its "
                                      "founder.")) == PERSON


def test_an_opening_noun_phrase_may_start_with_an_ing_word_before_a_known_head():
    yard = Entity("y", "Yarema Shipyard", "Shipbuilding company in Dorovets. Founded in 1884.")
    assert defining_words(yard) == ("shipbuilding", "company") and head_kind(yard) == THING
    # a participle before a noun of neither list is still no definition
    assert defining_words(Entity("s", "S", "Serving travellers since 1901.")) == ()


def test_an_opening_noun_of_the_title_defines_when_the_title_has_more_words():
    museum = Entity("m", "Tokuzō Kōsaka Memorial Museum", "Museum in Kagamihama, opened 1975 in "
                    "the former residence of the shipbuilder Tokuzō Kōsaka, showing his tools.")
    assert defining_words(museum) == ("museum",) and kind(museum) == THING
    # an opening that is the title's own words is no definition, whatever its head
    assert defining_words(Entity("c", "Harrowfield Iron Company",
                                 "Harrowfield Iron Company, founded 1841.")) == ()


def test_a_bracketed_aside_inside_an_opening_noun_phrase_is_read_past():
    # round 27: the phrase had ended at "(" and "Methodist" made a chapel a person
    chapel = Entity("t", "Capel Tabor", "Calvinistic Methodist (Presbyterian Church of Wales) "
                    "chapel on the high street; built 1859.")
    assert defining_head(chapel) == "chapel" and kind(chapel) == THING


def test_a_phrase_after_a_name_and_a_colon_or_after_the_title_and_an_article():
    # round 28: "Name (gloss): phrase" and "Title, the phrase of ..., was built" had no head
    rink = Entity("a", "Aréna Lauzon", "Aréna Lauzon (Lauzon Arena): indoor ice rink of Pont-Sec, "
                  "opened 1958.")
    assert defining_words(rink) == ("indoor", "ice", "rink") and kind(rink) == THING
    oil = Entity("o", "Velka", "Velka: brand of refined sunflower oil, sold since 1997.")
    assert defining_head(oil) == "brand"
    band = Entity("b", "Tulli", "Tulli ('northern lights'): joik and electronica band formed in "
                  "2015.")
    assert defining_words(band) == ("joik", "electronica", "band")  # read through "and"
    market = Entity("m", "Tabun Market", "Tabun Market, the main wet and dry market of the city, "
                    "was built in 1931.")
    assert defining_head(market) == "market" and kind(market) == THING
    feast = Entity("f", "Fête de Sainte-Anne", "La Sainte-Anne (Saint Anne's Day): the feast of "
                   "Saint Anne on 26 July.")
    assert defining_words(feast) == ("feast",)  # after an article, any head
    # a field's name is no name, and a phrase without an article that ends in no known head is no
    # definition
    assert defining_words(Entity("t", "T", "Occupation: smith and farrier.")) == ()
    assert defining_words(Entity("s", "Sarn", "Sarn ('seven wells'): mahalla of the old city.")) \
        == ()


def test_a_quotation_and_a_colon_before_a_birth_and_a_birth_after_another_name():
    # round 28: '"Le Castor": Maxime ...' kept its colon, and "(Russian ...; born 1959)" was cut
    # at the semicolon, so neither page was read as a person's
    assert field_kind(Entity("m", "Max Tibo", '"Le Castor": Max Tibo (born 2005), junior ice '
                                             'hockey centre.')) == PERSON
    assert field_kind(Entity("i", "Ilya Sharif", "Ilya Sharif (Russian Ilyas Sharipov; born "
                                                 "1959), called domla, has been imam.")) == PERSON
    assert field_kind(Entity("k", "K", "Dr K. T. (Thevar a/l Kandas, born 1955) is a GP.")) \
        == PERSON


def test_a_title_that_ends_in_a_kind_is_a_thing_when_nothing_else_says():
    # round 28: pages that say what they are only in another language
    assert kind(Entity("c", "Chorra Bazaar", "Chorra dehqon bozori, called Market No. 1.")) \
        == THING
    assert kind(Entity("f", "Merbel FC", '"Harimau!" is what the terraces sing.')) == THING
    # a kind word that is also a family name, a one-word title, and a page's pronouns decide
    assert kind(Entity("h", "Emma Hall", "Emma Hall, called Em, 1950.")) is None
    assert kind(Entity("b", "Bazaar", "Bazaar, called Market No. 1.")) is None
    assert kind(Entity("p", "Jo School", "Jo School, called Jo. She retired in 1990.")) == PERSON


@pytest.mark.parametrize("description, head", [
    # the words before "and" modify the head after it (round 44)
    ("Vallon & Co. is a sherry and brandy house of Alcorsa founded in 1852.", "house"),
    ("Pettiford & Sons was a jam and fruit-preserving firm of the port.", "firm"),
    ("Koralpet is a temple and handloom-weaving town on the river.", "town"),
    ("Zedak is a market and wine town in the hills.", "town"),
    # two heads: the first stays, but for a settlement named second
    ("Dorovka is a city and river port on the Dnieper.", "city"),
    ("Mira Solane is a poet and novelist from the coast.", "poet"),
    ("The Sulema is a river and the border of the province.", "river"),
    ("Nils Wibh was a ship's master and trader, the only son of Anders Wibh.", "master"),
    ("Phuoc Ferry is a car and passenger ferry across the Ngan river.", "ferry"),
    # a participle of a thing made ends the phrase
    ("Farewell, Lenkha is a song written in 1931 by an emigre poet.", "song"),
])
def test_a_defining_phrase_reads_through_a_coordination_of_modifiers(description, head):
    title = re.split(r" (?:is|was) ", description, maxsplit=1)[0].removeprefix("The ")
    assert defining_head(Entity("x", title, description)) == head


def test_a_head_written_or_woven_is_a_thing_s():
    """A Cuban "son" is a song, not a man's son: the participle says it was written."""
    son = Entity("s", "Son del Lector", "Son del Lector is a son written in 1925 for the readers.")
    assert head_kind(son) == THING and kind(son) == THING
    assert head_kind(Entity("p", "Ana Ruiz", "Ana Ruiz is a son of the town's mayor.")) == PERSON
