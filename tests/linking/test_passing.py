"""Names a page writes in passing (:mod:`allennlp_longent.linking.passing`), on pages written
for each clause of its definition."""

from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.passing import named_in_passing, words_before

LINE = Entity("f", "Chatzimarkos Lines",
              "Chatzimarkos Lines runs the ferries from Vathyskala to Kalamonas. It was founded "
              "by Eleni Chatzimarkou.")
FUNICULAR = Entity("t", "Tolling Funicular",
                   "The Tolling Funicular, known as the Goat, climbs from the quay to Upper "
                   "Tolling.")


def test_the_word_before_each_capitalised_run_that_writes_the_name():
    assert words_before(["kalamonas"], LINE) == {"to"}
    assert words_before(["eleni"], LINE) == {"by"}
    # the run that opens the page, and "Chatzimarkou", a variant (one letter apart)
    assert words_before(["chatzimarkos"], LINE) == {"^", "by"}
    assert words_before(["goat"], FUNICULAR) == {"the"}
    assert words_before(["marrick"], LINE) == set()


def test_a_name_written_only_after_relating_words_is_named_in_passing():
    assert named_in_passing("Kalamonas", {}, LINE)
    assert named_in_passing("Mrs Eleni", {}, LINE)


def test_a_name_the_page_gives_its_entity_is_not():
    assert not named_in_passing("the Goat", {}, FUNICULAR)  # after "the", not a relating word
    assert not named_in_passing("Kalamonas", {"alias": True}, LINE)  # a rule read it as a name
    assert not named_in_passing("Kalamonas", {"exact_title": True}, LINE)


def test_a_name_that_shares_a_title_word_or_that_the_page_never_writes_is_not():
    assert not named_in_passing("Chatzimarkos Shipping", {}, LINE)
    assert not named_in_passing("Upper Tolling", {}, FUNICULAR)  # "Tolling" is in the title
    assert not named_in_passing("Marrick", {}, LINE)  # for the unwritten-name rule to judge


def test_one_occurrence_that_gives_a_name_is_enough_to_keep_the_page():
    page = Entity("s", "Sahli Railway",
                  "The Sahli Railway runs to Ghadamor. Locals call it the Line, or Ghadamor's "
                  "railway.")
    assert words_before(["ghadamor"], page) == {"to", "or"}
    assert not named_in_passing("Ghadamor", {}, page)


def test_of_after_a_noun_that_names_gives_a_name():
    city = Entity("d", "Dorovets", "Founded as the crown town of Kazimierzów, it took the name of "
                  "a village. It is the capital of Dorovets Oblast, on the road to Krasnotsyrsk.")
    assert words_before(["kazimierzow"], city) == {"town of"}
    assert not named_in_passing("Kazimierzów", {}, city)
    assert named_in_passing("Krasnotsyrsk", {}, city)


def test_in_relates_a_place_but_in_before_a_language_gives_a_name():
    club = Entity("c", "CLG Chnoc an Iolair",
                  "Gaelic football club founded in 1926, in English Knockanillar GAA. It has a "
                  "showroom in Lindenhafen, and in Hanyu Pinyin its patron is Lu Jinsheng.")
    assert words_before(["lindenhafen"], club) == {"in"}
    assert named_in_passing("Lindenhafen", {}, club)
    assert words_before(["knockanillar"], club) == {"in english"}
    assert not named_in_passing("Knockanillar GAA", {}, club)
    # "Hanyu Pinyin" is a language's name; the run goes on to "Lu Jinsheng" after "is"
    assert words_before(["jinsheng"], club) == {"is"}
    town = Entity("t", "Esiakwa", "Esiakwa (in Fante Anyinamu) lies in Apasua, near Swedish "
                  "Point; in Portuguese Cabo Cordeiro.")
    assert not named_in_passing("Anyinamu", {}, town)  # a language's name the list has
    assert not named_in_passing("Cabo Cordeiro", {}, town)  # "-ese" needs no list
    assert named_in_passing("Apasua", {}, town)
