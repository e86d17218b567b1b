"""Label agreement (:mod:`allennlp_longent.linking.kinds`) on cases worked out by hand."""

import spacy

from allennlp_longent.linking.cascade import exact_title
from allennlp_longent.linking.definitions import PERSON, THING
from allennlp_longent.linking.kinds import (
    after_article,
    clashes,
    defines,
    is_event,
    kind,
    modifies_noun,
    named_with_article,
)
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.orders import (
    article_order,
    definition_order,
    is_title,
    person_titled,
    place_order,
    type_order,
)


def test_kind_counts_personal_against_impersonal_pronouns():
    assert kind(Entity("a", "Aldous", "He founded the town; his quay still stands.")) == PERSON
    assert kind(Entity("p", "Port", "A town. It has a quay and its own bell.")) == THING
    assert kind(Entity("s", "Liss", "She sails; it is said her mast is old.")) == PERSON  # 2 to 1
    # a page defined as a vessel is a thing, whatever its pronouns
    assert kind(Entity("v", "Liss (ship)", "She sails; it is said her mast is old.")) == THING
    assert kind(Entity("w", "Liss", "Liss was a schooner. She sailed; her mast fell.")) == THING
    assert kind(Entity("n", "Reefs", "Red rocks off the coast.")) is None  # no pronoun
    assert kind(Entity("t", "Tie", "Made by him; it stands.")) is None  # one of each
    # "Built ..." opens a thing's page (definitions.field_kind), whatever its pronouns
    assert kind(Entity("b", "Tie", "Built by him; it stands.")) == THING
    # whole words only: "hermit" and "shelter" hold no "he" and no "she"
    assert kind(Entity("h", "Hermitage", "The hermit's shelter; Itself a chapel.")) == THING


def test_pronouns_opening_sentences_decide_before_the_others():
    # all pronouns tie (It, his) but the sentence opener is "It": the house, not the doctor
    house = Entity("x", "Stane House", "A townhouse. It is now a museum of his instruments.")
    assert kind(house) == THING
    # openers tie (He, It): all pronouns decide (he, it, his, him: 3 to 1)
    assert kind(Entity("y", "Y", "He sailed. It sank with his crew and him.")) == PERSON
    # an opener that is no pronoun counts for neither
    assert kind(Entity("z", "Z", "Sails of its town and her quay. They left.")) is None
    # a head the page defines its entity by decides first (definitions.head_kind)
    assert kind(Entity("h", "Z", "Harbour of its town and her quay. They left.")) == THING


def test_a_page_that_names_itself_after_the():
    assert named_with_article(Entity("s", "Mary Roe (locomotive)",
                                     "The Mary Roe is a steam locomotive."))
    assert named_with_article(Entity("s", "Liss", "Built in 1870, the Liss sails."))
    assert not named_with_article(Entity("p", "Mary Roe", "Mary Roe was an engineer."))
    assert not named_with_article(Entity("p", "Roe", "Mary Roe was the Roe of old."))  # first
    assert not named_with_article(Entity("q", "Ann", "Nothing of her."))  # never written
    assert not named_with_article(Entity("r", "Ann", "The Joann is a barge."))  # not a word


def test_a_name_after_the_but_not_a_title_or_role():
    assert after_article(["the", "Mary", "Roe"]) and after_article(["The", "Vell"])
    assert after_article(["the", "the", "Roe"])  # the span opens with its own article
    assert not after_article(["rode", "Mary", "Roe"]) and not after_article(["the"])
    assert not after_article(["the", "steam", "engine"])  # not a name
    assert not after_article(["the", "Duke", "of", "Marrowgate"])
    assert not after_article(["the", "Dr.", "Kell"])


def test_a_person_span_against_a_thing_and_a_span_never_naming_a_person_against_a_person():
    assert clashes("PERSON", THING) and clashes("PER", THING)
    assert clashes("GPE", PERSON) and clashes("LOC", PERSON) and clashes("FAC", PERSON)
    assert clashes("ORG", PERSON) and clashes("EVENT", PERSON) and clashes("WORK_OF_ART", PERSON)
    assert not clashes("PERSON", PERSON) and not clashes("PERSON", None)
    assert not clashes("GPE", THING) and not clashes("GPE", None)
    assert clashes("PRODUCT", PERSON)  # a ship's page says ship: it is no person (kind)
    assert not clashes("EVENT", THING) and not clashes("NORP", PERSON)


def test_an_event_is_defined_by_its_first_sentence_or_its_title_and_is_no_person():
    battle = Entity("b", "Battle of Tellau", "In 1799 the French general led his men up "
                    "the pass. He lost half of them there; his guns were left behind.")
    regatta = Entity("r", "Gullhaven Regatta", "The Gullhaven Regatta is a rowing race held "
                     "every summer.")
    lockout = Entity("l", "Wennaby Lockout", "A dispute. He shut the mills; his men starved.")
    town = Entity("t", "Gullhaven", "Gullhaven is a fishing town. It has a harbour.")
    racer = Entity("p", "Ada Reed", "Ada Reed was a rower. She won the regatta twice.")
    riot = Entity("h", "Herring Riot", "The Herring Riot broke out when prices fell.")
    derby = Entity("d", "Salt Road Derby", "A camel race run every February.")
    poet = Entity("w", "Ivo Marl", "Ivo Marl was a war poet. He wrote of the siege.")
    flood = Entity("f", "Henry Flood", "Henry Flood was a statesman.")
    assert is_event(battle) and is_event(regatta) and is_event(lockout)
    assert is_event(riot) and is_event(derby)
    assert not is_event(town) and not is_event(racer)
    # the head of the definition decides, not a modifier or a title's surname
    assert not is_event(poet) and not is_event(flood)
    # the battle's page narrates a man ("he", "his": a person by pronouns); it is a thing
    assert kind(battle) == THING and kind(lockout) == THING and kind(racer) == PERSON


def test_definition_order_puts_events_first_for_an_event_span_and_last_for_a_place_span():
    entities = {e.id: e for e in (
        Entity("well", "Bir Salma (well)", "Bir Salma is the oldest well of the oasis."),
        Entity("fest", "Festival of Bir Salma", "Every spring the oasis lowers a lamp."),
        Entity("quarter", "Bir Salma (quarter)", "Bir Salma is the oldest quarter."),
        Entity("date", "Deglet Salma", "Deglet Salma is a date variety."))}
    ranked = [{"id": i} for i in ("well", "fest", "quarter", "date")]
    moved = definition_order("EVENT", ranked, entities.__getitem__, 3, "Salma festival")
    assert [c["id"] for c in moved] == ["fest", "well", "quarter", "date"] and moved[0]["event"]
    at_fest = ranked[1:2] + ranked[:1] + ranked[2:]
    moved = definition_order("LOC", at_fest, entities.__getitem__, 3, "Bir Salma")
    assert [c["id"] for c in moved] == ["well", "quarter", "fest", "date"]
    assert moved[2]["event_clash"]
    assert definition_order("ORG", at_fest, entities.__getitem__, 3, "Bir Salma") == at_fest
    assert definition_order("LOC", at_fest, entities.__getitem__, 1, "Bir Salma") == at_fest  # all
    # the span is the bare title of exactly one of them: the name outweighs the label
    assert definition_order("GPE", at_fest, entities.__getitem__, 4, "Deglet Salma") == at_fest


def test_works_are_defined_by_their_head_or_qualifier_and_ordered_by_the_label():
    from allennlp_longent.linking.kinds import WORK_NOUNS

    entities = {e.id: e for e in (
        Entity("man", "Gideon Rusk", "Gideon Rusk was a shipbuilder. He built the yard."),
        Entity("yard", "Gideon Rusk and Company", "A shipyard. It built liners."),
        Entity("play", "Gideon Rusk (play)", "Gideon Rusk is a stage play about the life of "
               "the shipbuilder. It follows him from apprentice to owner."),
        Entity("song", "Red Agnes (song)", "Red Agnes is a music-hall song about a unionist."),
        Entity("strike", "Rusk Strike", "The Rusk Strike was a strike of platers."))}
    assert defines(entities["play"], WORK_NOUNS) and defines(entities["song"], WORK_NOUNS)
    assert not defines(entities["man"], WORK_NOUNS) and not defines(entities["yard"], WORK_NOUNS)
    assert kind(entities["play"]) == THING  # "him" and "It": a play, whatever its pronouns
    ranked = [{"id": i} for i in ("yard", "man", "play", "strike")]
    moved = definition_order("WORK_OF_ART", ranked, entities.__getitem__, 4, "Gideon Rusk")
    assert [c["id"] for c in moved] == ["play", "yard", "man", "strike"]
    assert moved[0]["work_of_art"] and moved[3]["event_clash"]  # and the strike goes last
    at_play = ranked[2:3] + ranked[:2] + ranked[3:]
    # both clash with a person span; the strike, moved back first (events before works), stays
    # behind the play (since round 48 a demotion keeps the earlier ones behind it)
    assert [c["id"] for c in definition_order("PERSON", at_play, entities.__getitem__, 4,
                                              "Rusk")] == ["yard", "man", "play", "strike"]
    # a ship's span names neither: "the Isobel" is not the strike over her fitting-out
    assert [c["id"] for c in definition_order("PRODUCT", ranked[3:] + ranked[:2],
                                              entities.__getitem__, 3, "the Isobel")] == [
        "yard", "man", "strike"]


def test_type_order_moves_clashes_after_the_others_within_the_first_k():
    kinds = {"town": THING, "inn": THING, "aldous": PERSON, "wenna": PERSON, "reef": None}
    ranked = [{"id": i} for i in ("town", "aldous", "inn", "wenna", "reef")]
    ids = [c["id"] for c in type_order("PERSON", ranked, kinds.get, 3)]
    assert ids == ["aldous", "town", "inn", "wenna", "reef"]  # wenna is beyond k
    moved = type_order("PERSON", ranked, kinds.get, 3)
    assert [c.get("label_clash", False) for c in moved] == [False, True, True, False, False]
    assert "label_clash" not in ranked[0]  # the input is not changed
    ids = [c["id"] for c in type_order("GPE", ranked, kinds.get, 5)]
    assert ids == ["town", "inn", "reef", "aldous", "wenna"]
    # nothing moves when none or all of the first k clash, or the label has no kind
    assert type_order("PERSON", ranked[1:2] + ranked[3:], kinds.get, 2) == ranked[1:2] + ranked[3:]
    assert type_order("PERSON", ranked[:1] + ranked[2:3], kinds.get, 2) == ranked[:1] + ranked[2:3]
    assert type_order("DATE", ranked, kinds.get, 5) == ranked


def test_article_order_moves_persons_not_named_with_an_article_within_the_first_k():
    kinds = {"mary": PERSON, "loco": PERSON, "line": THING, "bishop": PERSON, "x": None}
    article = {"loco"}.__contains__
    ranked = [{"id": i} for i in ("mary", "bishop", "loco", "line", "x")]
    moved = article_order(ranked, kinds.get, article, 3)
    assert [c["id"] for c in moved] == ["loco", "mary", "bishop", "line", "x"]
    assert [c.get("article_clash", False) for c in moved] == [False, True, True, False, False]
    assert [c["id"] for c in article_order(ranked, kinds.get, article, 5)] == [
        "loco", "line", "x", "mary", "bishop"]
    assert article_order(ranked[:2], kinds.get, article, 2) == ranked[:2]  # all persons
    assert article_order(ranked[2:], kinds.get, article, 3) == ranked[2:]  # none


def test_place_order_puts_the_name_with_a_place_word_first_when_no_title_is_the_name():
    titles = {"flood": "Great Oast Flood", "ballad": "The Oast Ballad", "river": "River Oast",
              "hills": "Kelder Hills", "kelder": "Kelder", "valley": "Oast Valley Railway"}
    ranked = [{"id": i} for i in ("flood", "ballad", "river", "valley")]
    moved = place_order("Oast", "LOC", ranked, titles.get, 4)
    assert [c["id"] for c in moved] == ["river", "flood", "ballad", "valley"]
    assert moved[0]["place_title"] and "place_title" not in moved[1]
    assert [c["id"] for c in place_order("the Oast", "GPE", ranked, titles.get, 4)][0] == "river"
    assert place_order("Oast", "LOC", ranked, titles.get, 2) == ranked  # the river is beyond k
    assert place_order("Oast", "ORG", ranked, titles.get, 4) == ranked  # not a place span
    # "Oast Valley Railway": a railway is no kind of place, though a valley is
    assert place_order("Oast", "LOC", ranked[3:] + ranked[:2], titles.get, 3) == (
        ranked[3:] + ranked[:2])
    # an exact title wins: "Kelder" is the village, not the Kelder Hills
    near = [{"id": "hills"}, {"id": "kelder"}]
    assert place_order("Kelder", "GPE", near, titles.get, 2) == near


def test_a_mention_that_is_one_candidate_s_title_keeps_the_order_whatever_its_label():
    kinds = {"park": None, "galt": PERSON, "port": THING, "wenna": PERSON}
    titles = {"park": "Galt Park", "galt": "Edric Galt", "port": "Port Corrander",
              "wenna": "Wenna Corrander"}
    ranked = [{"id": "park"}, {"id": "galt"}]
    # the span is the park's title: a GPE label does not move the person first, nor back
    assert type_order("GPE", ranked[::-1], kinds.get, 2, "Galt Park", titles.get) == ranked[::-1]
    assert [c["id"] for c in type_order("GPE", ranked[::-1], kinds.get, 2)] == [
        "park", "galt"]  # without the mention
    # "Corrander" is no candidate's title: the label still moves the town
    near = [{"id": "port"}, {"id": "wenna"}]
    assert [c["id"] for c in type_order("PERSON", near, kinds.get, 2, "Corrander",
                                        titles.get)] == ["wenna", "port"]
    # two candidates share the bare title: the label may choose between them
    both = {"a": "Liss (ship)", "b": "Liss"}
    liss = [{"id": "a"}, {"id": "b"}]
    ship = {"a": THING, "b": PERSON}
    assert [c["id"] for c in type_order("PERSON", liss, ship.get, 2, "Liss", both.get)] == [
        "b", "a"]


def test_gender_order_reads_a_title_of_address_against_the_pages_pronouns():
    from allennlp_longent.linking.kinds import gender
    from allennlp_longent.linking.orders import gender_order

    pages = {e.id: e for e in (
        Entity("g", "Gideon Rusk", "Gideon Rusk was a shipbuilder. He built his yard."),
        Entity("i", "Isobel Rusk", "Isobel Rusk was his wife. She founded her school."),
        Entity("y", "Rusk Yard", "A shipyard. It built liners."))}
    assert gender(pages["g"]) == "male" and gender(pages["i"]) == "female"
    assert gender(pages["y"]) is None  # not a person
    ranked = [{"id": i} for i in "giy"]
    moved = gender_order("Mrs Rusk", ranked, pages.get, 3)
    assert [c["id"] for c in moved] == list("iyg") and moved[2]["gender_clash"]
    assert [c["id"] for c in gender_order("Mr. Rusk", ranked[::-1], pages.get, 3)] == list("ygi")
    assert gender_order("Rusk", ranked, pages.get, 3) == ranked  # no title of address
    assert gender_order("Dr Rusk", ranked, pages.get, 3) == ranked  # a title with no gender
    assert gender_order("Mrs Rusk", ranked, pages.get, 1) == ranked  # only the first k


def test_initial_order_puts_the_titles_writing_the_initial_first():
    from allennlp_longent.linking.orders import initial_order

    titles = {"c": "Clara Ambros", "h": "Ambros Hut", "l": "Ludovic Ambros"}
    ranked = [{"id": i} for i in "chl"]
    assert [c["id"] for c in initial_order("L. Ambros", ranked, titles.get, 3)] == list("lch")
    assert initial_order("L. Ambros", ranked, titles.get, 3)[0]["initial_title"]
    assert initial_order("L. Ambros", ranked, titles.get, 2) == ranked  # l is not among the 2
    assert initial_order("Ambros", ranked, titles.get, 3) == ranked
    assert initial_order("K. Ambros", ranked, titles.get, 3) == ranked  # none writes it


def test_expansion_order_puts_the_one_expansion_first():
    from allennlp_longent.linking.orders import expansion_order

    club, town = Entity("c", "Lomen Boat Club", ""), Entity("t", "Lomen", "")
    ranked = [{"id": i} for i in "tsc"]
    first = expansion_order([club], ranked, 3)
    assert [c["id"] for c in first] == list("cts") and first[0]["expansion"]
    assert expansion_order([club], ranked, 2) == ranked  # not among the first 2
    assert expansion_order([club, town], ranked, 3) == ranked  # ambiguous
    assert expansion_order([], ranked, 3) == ranked
    assert expansion_order([club], [{"id": "c"}], 3) == [{"id": "c", "expansion": True}]


def test_alias_order_needs_a_name_that_is_no_title():
    from allennlp_longent.linking.orders import alias_order

    pages = {"h": Entity("h", "Hohrain", "A village at the top of the line."),
             "r": Entity("r", "Vennet Valley Railway", "It was called the Hohrain Tramway."),
             "b": Entity("b", "Vell Brewery", "It brews an ale called Oast Porter."),
             "o": Entity("o", "Oast Porter", "A dark ale.")}
    ranked = [{"id": i} for i in "hrbo"]
    assert [c["id"] for c in alias_order("Hohrain Tramway", ranked, pages.get, 4)] == list("rhbo")
    assert alias_order("Oast Porter", ranked, pages.get, 4) == ranked  # a title: no alias wins
    assert [c["id"] for c in alias_order("Oast Porter", ranked, pages.get, 3)] == list("bhro")


def test_alias_order_does_not_promote_a_candidate_the_label_clashes_with():
    from allennlp_longent.linking.orders import alias_order

    pages = {"h": Entity("h", "Ada Pellow Hospital", "A hospital. It is known as the Ada."),
             "a": Entity("a", "Ada Pellow", "Ada Pellow was a clerk. She kept the ledgers.")}
    ranked = [{"id": i} for i in "ah"]
    assert [c["id"] for c in alias_order("Ada", ranked, pages.get, 2)] == list("ha")
    assert [c["id"] for c in alias_order("Ada", ranked, pages.get, 2, "FAC")] == list("ha")
    assert alias_order("Ada", ranked, pages.get, 2, "PERSON") == ranked  # a person: no hospital


def test_alias_order_does_not_promote_a_place_for_a_product_event_or_work():
    """A town's former name that is now a brand's: a PRODUCT, EVENT or WORK_OF_ART span is not
    the town or the river that was once called so, a place span still is."""
    from allennlp_longent.linking.orders import alias_order

    pages = {"r": Entity("r", "Ron Vellarde Añejo", "Ron Vellarde Añejo is a dark rum."),
             "t": Entity("t", "San Ulpiano", "San Ulpiano is a town on the bay. It was called "
                         "Vellarde until 1911."),
             "s": Entity("s", "Orla River", "The Orla River is a river, known as the Vellarde "
                         "on old maps.")}
    ranked = [{"id": i} for i in "rts"]
    for label in ("PRODUCT", "EVENT", "WORK_OF_ART"):
        assert alias_order("Vellarde", ranked, pages.get, 3, label) == ranked
    assert [c["id"] for c in alias_order("Vellarde", ranked, pages.get, 3, "GPE")][-1] == "r"
    assert [c["id"] for c in alias_order("Vellarde", ranked, pages.get, 3)][-1] == "r"


def test_alias_order_does_not_promote_an_event_or_a_work_for_a_place_span():
    """The converse of the test above: a race or a song known by a river's name is not what a
    LOC span names (round 44)."""
    from allennlp_longent.linking.orders import alias_order

    pages = {"c": Entity("c", "Tassik Creek", "Tassik Creek is a creek that drains the hills."),
             "r": Entity("r", "Tassik Trail Race", "The Tassik Trail Race is a sled-dog race "
                         "held every March, known as the Tassik.")}
    ranked = [{"id": i} for i in "cr"]
    assert alias_order("Tassik", ranked, pages.get, 2, "LOC") == ranked
    assert [c["id"] for c in alias_order("Tassik", ranked, pages.get, 2, "EVENT")] == list("rc")


def test_a_place_span_prefers_the_place_whose_page_writes_its_name_to_a_thing_made_there():
    """A GPE or LOC span whose first candidate is a brand, a song, a race or a newspaper puts
    first the settlement (GPE) or natural feature (LOC) whose page writes the name, in its title
    or not; a first candidate that is no known thing, or whose title is the span, stays (round
    44)."""
    from allennlp_longent.linking.kinds import made_or_body
    from allennlp_longent.linking.orders import placeless_order

    pages = {e.id: e for e in [
        Entity("b", "Carmara Coffee", "Carmara Coffee is a coffee brand launched in 1961."),
        Entity("p", "Bandar Qumra", "Bandar Qumra is a port on the gulf. European captains "
                                    "called it Carmara."),
        Entity("s", "Farewell, Lenkha", "Farewell, Lenkha is a song written in 1931."),
        Entity("r", "Lan River", "The Lan River is a river of the plain. Russians called it "
                                 "the Lenkha."),
        Entity("t", "Lanzhi", "Lanzhi is a town on the Lan River, which the Russians called "
                              "the Lenkha."),
        Entity("v", "Pico do Carmara", "Pico do Carmara is a dormant stratovolcano."),
    ]}
    assert made_or_body(pages["b"]) and made_or_body(pages["s"])
    assert not made_or_body(pages["p"]) and not made_or_body(pages["v"])
    ranked = [{"id": i} for i in "bp"]
    moved = placeless_order("Carmara", "GPE", ranked, pages.__getitem__, 2)
    assert [c["id"] for c in moved] == ["p", "b"] and moved[0]["setting"]
    assert placeless_order("Carmara", "PRODUCT", ranked, pages.__getitem__, 2) == ranked
    assert placeless_order("Carmara Coffee", "GPE", ranked, pages.__getitem__, 2) == ranked
    song_first = [{"id": i} for i in "str"]
    assert [c["id"] for c in placeless_order("Lenkha", "LOC", song_first, pages.__getitem__,
                                             3)] == ["r", "s", "t"]  # a river, not the town
    assert [c["id"] for c in placeless_order("Lenkha", "GPE", song_first, pages.__getitem__,
                                             3)] == ["t", "s", "r"]
    # a volcano the defining words do not name is no thing made: the order stays
    volcano_first = [{"id": i} for i in "vp"]
    assert placeless_order("Carmara", "GPE", volcano_first, pages.__getitem__, 2) == volcano_first


def test_a_common_noun_prefers_the_pages_that_define_their_entity_by_it():
    from allennlp_longent.linking.kinds import common_noun, kind_nouns
    from allennlp_longent.linking.orders import noun_order

    pages = {"h": Entity("h", "Qasr Tamit Hotel", "The Qasr Tamit Hotel is a hotel in the old "
                         "fortress's shadow, named after the fortress."),
             "q": Entity("q", "Qasr Tamit", "Qasr Tamit is a mud-brick fortress on a hill."),
             "a": Entity("a", "Ghadamor Airfield", "Laid out in 1929 for the air mail."),
             "k": Entity("k", "Khan Qadir", "A caravanserai. It stands by the gate.")}
    assert [common_noun(m) for m in ("the fortress", "The fortresses", "her well", "the Line",
                                     "Qasr Tamit", "airfield")] == [
        "fortress", "fortresses", "well", None, None, "airfield"]
    assert kind_nouns(pages["q"]) == {"mud-brick", "fortress", "tamit"}
    assert kind_nouns(pages["h"]) == {"hotel"}  # the defining phrase stops at "in"
    assert kind_nouns(pages["k"]) == {"caravanserai", "qadir"}
    ranked = [{"id": i} for i in "hqak"]
    assert [c["id"] for c in noun_order("the fortress", ranked, pages.get, 4)] == list("qhak")
    assert [c["id"] for c in noun_order("The fortresses", ranked, pages.get, 4)] == list("qhak")
    assert [c["id"] for c in noun_order("airfield", ranked, pages.get, 4)] == list("ahqk")
    assert noun_order("the fortress", ranked, pages.get, 1) == ranked  # beyond the first k
    assert noun_order("Qasr Tamit", ranked, pages.get, 4) == ranked  # a name, not a noun


def test_a_mention_that_is_one_candidates_bare_title_puts_it_first():
    from allennlp_longent.linking.names import spelled_out
    from allennlp_longent.linking.orders import title_order

    titles = {"s": "Saint Ida", "c": "St Ida's Church", "e": "Josiah (mill engine)",
              "j": "Josiah Pellow", "p": "Pellow Street", "m": "Ada Pellow (march)",
              "a": "Ada Pellow"}
    ranked = [{"id": i} for i in "secjpma"]
    assert [spelled_out(m) for m in ("Pellow St.", "Pellow st", "St Ida", "Ada")] == [
        "Pellow Street", "Pellow Street", "St Ida", "Ada"]
    # round 36: "Str.", "Jct", "Stn" and "Bldg" as English writes them
    assert [spelled_out(m) for m in ("Kirov Str.", "Ntabazwe Jct", "Amdebirhan Bldg")] == [
        "Kirov Street", "Ntabazwe Junction", "Amdebirhan Building"]
    assert [c["id"] for c in title_order("St Ida's Church", ranked, titles.get, 4)] == list(
        "csejpma")
    assert [c["id"] for c in title_order("josiah pellow", ranked, titles.get, 4)] == list(
        "jsecpma")
    assert [c["id"] for c in title_order("Pellow St.", ranked, titles.get, 5)] == list("psecjma")
    assert title_order("Pellow St.", ranked, titles.get, 4) == ranked  # beyond the first k
    assert title_order("Ada Pellow", ranked, titles.get, 7) == ranked  # two bare titles
    assert title_order("Josiah", ranked, titles.get, 4)[0]["id"] == "e"  # the engine's bare title


def test_a_qualified_title_that_clashes_with_the_label_is_not_the_spans_name():
    from allennlp_longent.linking.kinds import qualified_against
    from allennlp_longent.linking.orders import alias_order, naming_titles, title_order

    pages = {e.id: e for e in (
        Entity("song", "Long Reuben (song)", "Long Reuben is a folk song about a fen skater."),
        Entity("man", "Reuben Aske", "Reuben Aske was a fen skater. He was known as Long "
               "Reuben, and a song of that name was written about him."),
        Entity("ship", "Isobel Rusk (ship)", "Isobel Rusk was an ocean liner. She sailed."))}
    assert qualified_against("PERSON", pages["song"])  # a work: a thing against a person
    assert not qualified_against("WORK_OF_ART", pages["song"])
    assert not qualified_against("PERSON", pages["man"])  # no qualifier
    assert not qualified_against("PRODUCT", pages["ship"])  # a vessel for a product span
    assert naming_titles("PERSON", pages.get)("song") == ""
    assert naming_titles("WORK_OF_ART", pages.get)("song") == "Long Reuben (song)"
    ranked = [{"id": "man"}, {"id": "song"}]
    # by the plain titles the song is the bare title and goes first ...
    assert [c["id"] for c in title_order("Long Reuben", ranked, lambda i: pages[i].title, 4)] \
        == ["song", "man"]
    # ... but not for a person span, whose name is the skater's other name
    assert title_order("Long Reuben", ranked, naming_titles("PERSON", pages.get), 4) == ranked
    at_song = ranked[::-1]
    assert [c["id"] for c in alias_order("Long Reuben", at_song, pages.get, 4, "PERSON")] \
        == ["man", "song"]
    assert alias_order("Long Reuben", at_song, pages.get, 4, "WORK_OF_ART") == at_song
    assert alias_order("Long Reuben", at_song, pages.get, 4) == at_song  # no label: a title


def test_a_failure_or_breach_is_an_event():
    breach = Entity("b", "Rooksedge Breach", "The Rooksedge Breach was the failure of the "
                    "eastern bank of the river in 1861, which flooded the fen.")
    beer = Entity("m", "Breach Mild", "Breach Mild is a dark mild ale named after the flood.")
    assert is_event(breach) and not is_event(beer)
    ranked = [{"id": "m"}, {"id": "b"}]
    moved = definition_order("EVENT", ranked, {"b": breach, "m": beer}.__getitem__, 4,
                             "the Breach")
    assert [c["id"] for c in moved] == ["b", "m"]


def test_kind_reach_brings_a_vehicle_of_the_name_from_below_the_first_k():
    from allennlp_longent.linking.orders import kind_reach

    town = Entity("t", "Haverau", "Haverau is a spa town on the lake.")
    club = Entity("c", "Haverau Rowing Club", "A rowing club of the town.")
    opera = Entity("o", "Haverau Opera House", "An opera house on the quay.")
    other = Entity("i", "Irma Halm (steamer)", "The Irma Halm is a paddle steamer.")
    steamer = Entity("s", "Haverau (steamer)", "The Haverau is a paddle steamer of 1890.")
    found = [town, club, opera, other, steamer]
    assert kind_reach("PRODUCT", "the Haverau", found, 3) == 4  # the other steamer lacks the name
    assert kind_reach("PRODUCT", "the Haverau", found, 3, depth=4) is None  # beyond the depth
    assert kind_reach("PRODUCT", "the Haverau", found, 4) is None  # a steamer is in the first 4
    assert kind_reach("GPE", "Haverau", found, 3) is None  # a label that names no such kind
    assert kind_reach("PRODUCT", "the steamer", found, 3) is None  # no name word to match
    ranked = [{"id": e.id} for e in (town, steamer)]
    pages = {e.id: e for e in found}
    moved = definition_order("PRODUCT", ranked, pages.__getitem__, 2, "the Haverau")
    assert [c["id"] for c in moved] == ["s", "t"] and moved[0]["product"]
    moved = definition_order("GPE", ranked[::-1], pages.__getitem__, 2, "Haverau")
    assert [c["id"] for c in moved] == ["t", "s"] and moved[1]["product_clash"]


def test_the_component_moves_the_reached_candidate_to_the_kth_place():
    from allennlp_longent.linking.spacy_component import LongentLinker

    nlp = spacy.blank("en")
    doc = nlp("We took the Haverau across .")
    span = doc.char_span(8, 19, label="PRODUCT")
    entities = [Entity("t", "Haverau", "Haverau is a spa town."),
                Entity("c", "Haverau Rowing Club", "A rowing club."),
                Entity("o", "Haverau Opera House", "An opera house."),
                Entity("s", "Haverau (steamer)", "The Haverau is a paddle steamer.")]
    found = [(e, 1.0 - i / 10, 0.0) for i, e in enumerate(entities)]
    moved = LongentLinker._reach(span, found, 2)
    assert [e.id for e, _, _ in moved] == ["t", "s", "c", "o"]
    assert LongentLinker._reach(span, found, 4) == found


def test_place_order_reads_place_words_of_other_languages():
    titles = {"derby": "Clássico do Anil", "album": "Anil (album)", "river": "Rio Anil"}
    ranked = [{"id": i} for i in ("derby", "river")]
    assert [c["id"] for c in place_order("the Anil", "LOC", ranked, titles.get, 4)] == [
        "river", "derby"]


def test_title_head_is_the_word_before_of():
    from allennlp_longent.linking.kinds import kind_nouns, title_head
    assert title_head("Ballad of the Ashen King") == ("ballad",)
    assert title_head("Festival de Cinema do Anil") == ("festival",)
    assert title_head("Cinder War") == ("war",)
    assert title_head("Of Mice") == ("mice",)  # no word before "of": the last word
    ballad = Entity("b", "Ballad of the Ashen King", "Sung in every tavern.")
    assert "king" not in kind_nouns(ballad) and "ballad" in kind_nouns(ballad)


def test_label_excludes_a_clashing_kind_or_another_defined_kind():
    from allennlp_longent.linking.kinds import label_excludes
    ballad = Entity("b", "Ballad of the Ashen King", "A ballad sung in every tavern.")
    king = Entity("k", "Aldric Vane", "He ruled the moor. His crown melted.")
    festival = Entity("f", "Festival de Cinema do Anil", "Films every August.")
    assert label_excludes("PERSON", ballad) and not label_excludes("WORK_OF_ART", ballad)
    assert label_excludes("GPE", king) and not label_excludes("PERSON", king)
    assert label_excludes("LOC", festival) and not label_excludes("EVENT", festival)
    assert not label_excludes("ORG", festival)  # NER calls festivals ORG: no clash


def test_a_title_is_the_mention_accents_aside():
    titles = {"a": "São Tarcísio", "b": "Aeroporto Internacional de São Tarcísio"}
    ranked = [{"id": "b"}, {"id": "a"}]
    assert is_title("Sao Tarcisio", ranked, titles.get, 2) == [False, True]
    assert exact_title("the Heimoy", [Entity("x", "Heimøy", ""), Entity("y", "MF Heimøy", "")]) \
        is False  # articles count for the cascade's exact title, not for is_title
    assert exact_title("Heimoy", [Entity("x", "Heimøy", ""), Entity("y", "MF Heimøy", "")])


def test_a_name_before_a_lower_case_noun_modifies_it():
    assert modifies_noun("fight") and modifies_noun("years")  # "the Vane fight"
    assert not modifies_noun("all") and not modifies_noun("would")  # stop words
    assert not modifies_noun("asked")  # a past-tense verb: "the Gazette asked"
    assert not modifies_noun("Fight") and not modifies_noun(",") and not modifies_noun(None)


def test_person_titled_needs_a_person_whose_title_writes_the_name():
    pages = {"A": Entity("A", "Aldric Vane", "Aldric Vane was a king . He ruled the moor ."),
             "S": Entity("S", "Vane Vaults", "A dungeon . It lies under the salt .")}
    assert person_titled("Vane", [{"id": "S"}, {"id": "A"}], pages.__getitem__, 2)
    assert not person_titled("Vane", [{"id": "S"}, {"id": "A"}], pages.__getitem__, 1)
    assert not person_titled("Edric", [{"id": "A"}], pages.__getitem__, 1)



def test_organisation_order_puts_the_club_named_after_a_town_first_for_an_org_span():
    from allennlp_longent.linking.kinds import organisation
    from allennlp_longent.linking.orders import organisation_order

    pages = {e.id: e for e in [
        Entity("town", "Calderwick", "Calderwick is a port town on the estuary."),
        Entity("club", "Calderwick RFC", "Calderwick RFC is a rugby union club founded in 1871."),
        Entity("street", "Halm Street", "Halm Street is a street of the old town."),
        Entity("works", "Halm Glassworks", "Halm Glassworks is a glassworks by the lake."),
        Entity("post", "Evening Post", "The Evening Post is a newspaper printed in the town."),
    ]}
    assert organisation(pages["club"]) and organisation(pages["works"])
    assert not organisation(pages["town"]) and not organisation(pages["street"])
    ranked = [{"id": i} for i in ("town", "post", "club")]
    moved = organisation_order("Calderwick", "ORG", ranked, pages.__getitem__, 3)
    assert [c["id"] for c in moved] == ["club", "town", "post"] and moved[0]["organisation_title"]
    # the newspaper is an organisation but its title does not write "Calderwick"
    assert organisation_order("Calderwick", "ORG", ranked[:2], pages.__getitem__, 2) == ranked[:2]
    assert organisation_order("Calderwick", "GPE", ranked, pages.__getitem__, 3) == ranked
    assert organisation_order("CALDERWICK", "ORG", ranked, pages.__getitem__, 3) == ranked
    assert organisation_order("Calderwick", "ORG", ranked, pages.__getitem__, 2) == ranked  # k
    # a first candidate that is an organisation keeps its place
    first = [{"id": "post"}, {"id": "club"}]
    assert organisation_order("Calderwick", "ORG", first, pages.__getitem__, 2) == first
    halm = [{"id": "street"}, {"id": "works"}]
    assert [c["id"] for c in organisation_order("Halm", "ORG", halm, pages.__getitem__, 2)] == [
        "works", "street"]


def test_a_title_that_opens_with_the_is_named_with_its_article():
    novel = Entity("n", "The Indigo House", "Translator's note. Ilé Aró renders The Indigo House.")
    assert named_with_article(novel)
    assert not named_with_article(Entity("p", "Mary Roe", "Mary Roe renders it."))


def test_place_order_reads_the_divisions_of_a_country():
    titles = {"radio": "Òkèodò Broadcasting Service", "state": "Òkèodò State"}
    ranked = [{"id": "radio"}, {"id": "state"}]
    assert [c["id"] for c in place_order("Okeodo", "GPE", ranked, titles.get, 2)] == [
        "state", "radio"]


def test_place_order_reads_a_title_qualified_by_another_kind_as_another_bearer():
    titles = {"opera": "Mirren (opera)", "lake": "Lake Mirren",
              "isle": "Heron Island (Lake Mirren)"}
    ranked = [{"id": "opera"}, {"id": "lake"}]
    assert [c["id"] for c in place_order("the Mirren", "LOC", ranked, titles.get, 2)] == [
        "lake", "opera"]
    assert place_order("the Mirren", "WORK_OF_ART", ranked, titles.get, 2) == ranked
    # a place qualifier names the place itself: the island's bare title is its name
    isles = [{"id": "lake"}, {"id": "isle"}]
    assert place_order("Heron Island", "LOC", isles, titles.get, 2) == isles


def test_noun_order_reads_a_compound_that_ends_with_the_noun():
    from allennlp_longent.linking.orders import noun_order

    pages = {e.id: e for e in [
        Entity("g", "Halm Glassworks", "Halm Glassworks was a glassworks on the lake."),
        Entity("s", "Haverau (steamer)", "The Haverau is a paddle steamer."),
        Entity("w", "Works Canal", "A canal."),
    ]}
    ranked = [{"id": "s"}, {"id": "g"}]
    assert [c["id"] for c in noun_order("the works", ranked, pages.get, 2)] == ["g", "s"]
    assert noun_order("the mill", ranked, pages.get, 2) == ranked  # no page holds it


def test_a_ship_s_prefix_or_a_vessel_defines_a_vehicle():
    from allennlp_longent.linking.kinds import VEHICLE_NOUNS
    rv = Entity("rv", "RV Ingrid Åsland", "\"A floating laboratory\" was how the university "
                                          "described her when she was launched.")
    assert defines(rv, VEHICLE_NOUNS) and kind(rv) == THING  # "she" aside
    assert defines(Entity("v", "Tern", "Tern is a research vessel."), VEHICLE_NOUNS)
    # a one-word title that happens to be a prefix is no ship's name
    assert not defines(Entity("ms", "MS", "MS is a disease."), VEHICLE_NOUNS)


def test_named_after_puts_the_vessel_first_for_a_product_span_naming_a_person():
    from allennlp_longent.linking.orders import named_after
    entities = {e.id: e for e in (
        Entity("ingrid", "Ingrid Åsland", "Ingrid Åsland is a marine biologist. She founded it."),
        Entity("prize", "Åsland Prize", "Åsland Prize is an annual award."),
        Entity("rv", "RV Ingrid Åsland", "RV Ingrid Åsland is a research vessel."),
        Entity("bio", "Åsland Bio", "Åsland Bio is a company."))}
    ranked = [{"id": i} for i in ("ingrid", "prize", "rv", "bio")]
    moved = definition_order("PRODUCT", ranked, entities.__getitem__, 4, "Ingrid Åsland")
    assert [c["id"] for c in moved] == ["rv", "ingrid", "prize", "bio"] and moved[0]["product"]
    # a person span keeps the name's own page first, and so does a PRODUCT span for a name no
    # vessel's title writes
    assert definition_order("PERSON", ranked, entities.__getitem__, 4, "Ingrid Åsland") == ranked
    assert named_after("PRODUCT", "Åsland Bio", ranked, entities.__getitem__, 4) == ranked
    # the vessel beyond the first k is not reached
    assert named_after("PRODUCT", "Ingrid Åsland", ranked, entities.__getitem__, 2) == ranked


def test_an_organisation_by_its_fields_or_a_yard_and_a_word_clipped_at_its_front():
    from allennlp_longent.linking.kinds import organisation
    from allennlp_longent.linking.orders import organisation_order

    pages = {e.id: e for e in [
        Entity("fin", "Quintela Digital", "Quintela Digital S.A. Founded: 2011. Headquarters: "
                                          "Guarita. Industry: financial technology."),
        Entity("app", "Quintela (app)", "Quintela puts your money in one place."),
        Entity("boat", "Yarema 470", "Aluminium open motorboat made by the yard."),
        Entity("yard", "Yarema Shipyard", "Shipbuilding company in Dorovets."),
        Entity("slip", "Yarema Slipway", "Yarema Slipway is a slipway of the town."),
    ]}
    assert organisation(pages["fin"]) and organisation(pages["yard"])
    assert not organisation(pages["app"]) and not organisation(pages["boat"])
    ranked = [{"id": i} for i in ("app", "fin")]
    assert [c["id"] for c in organisation_order("Quintela", "ORG", ranked, pages.__getitem__,
                                                2)] == ["fin", "app"]
    ranked = [{"id": i} for i in ("boat", "slip", "yard")]
    for mention in ("Yarema yard", "Yarema's yard"):
        moved = organisation_order(mention, "ORG", ranked, pages.__getitem__, 3)
        assert [c["id"] for c in moved] == ["yard", "boat", "slip"]
    # "slip" clips no word of the shipyard's title, and the slipway is no organisation
    assert organisation_order("Yarema slip", "ORG", ranked, pages.__getitem__, 3) == ranked
    # a number the title does not write: the boat's own name labelled ORG
    assert organisation_order("Yarema 470", "ORG", ranked, pages.__getitem__, 3) == ranked


def test_a_number_is_part_of_a_title():
    titles = {"boat": "Yarema 470", "man": "Pavlo Yarema"}
    ranked = [{"id": "boat"}, {"id": "man"}]
    assert is_title("Yarema", ranked, titles.__getitem__, 2) == [False, False]
    assert is_title("Yarema 470", ranked, titles.__getitem__, 2) == [True, False]


def test_an_abbreviated_last_word_of_a_firm_is_written_out_for_its_other_name():
    from allennlp_longent.linking.names import spelled_out
    from allennlp_longent.linking.orders import alias_order

    assert spelled_out("Harrowfield Iron Co.") == "Harrowfield Iron Company"
    assert spelled_out("Co.") == "Co."  # a lone word is no name's end
    pages = {"t": Entity("t", "Harrowfield", "A district of the city."),
             "s": Entity("s", "Calder Steel Company", "It was called the Harrowfield Iron "
                                                      "Company until 1921.")}
    ranked = [{"id": "t"}, {"id": "s"}]
    assert [c["id"] for c in alias_order("Harrowfield Iron Co.", ranked, pages.get, 2)] == [
        "s", "t"]


def test_setting_order_reads_a_loc_span_as_nature_and_a_fac_span_as_built():
    from allennlp_longent.linking.orders import setting_order

    pages = {e.id: e for e in [
        Entity("m", "Galdetind", "Mountain, 1,412 m, above the village."),
        Entity("r", "Galdetind Resort", "Galdetind Resort is a ski resort on the mountain."),
        Entity("i", "Heimøy", "Island in the county, reached by ferry."),
        Entity("w", "Heimøy Vindpark", "Heimøy Vindpark is a wind power plant on the island."),
    ]}
    ranked = [{"id": i} for i in "mr"]
    moved = setting_order("Galdetind", "FAC", ranked, pages.__getitem__, 2)
    assert [c["id"] for c in moved] == ["r", "m"] and moved[0]["setting"]
    assert setting_order("Galdetind", "LOC", ranked, pages.__getitem__, 2) == ranked
    assert setting_order("Galdetind", "ORG", ranked, pages.__getitem__, 2) == ranked
    built_first = [{"id": i} for i in "wi"]
    assert [c["id"] for c in setting_order("Heimøya", "LOC", built_first, pages.__getitem__,
                                           2)] == ["i", "w"]  # "Heimøya" writes Heimøy
    # a name the other kind's title does not write keeps the order
    assert setting_order("Tinden", "FAC", ranked, pages.__getitem__, 2) == ranked


def test_a_gpe_span_prefers_what_is_not_built():
    """A country, a city or a region is no building: a GPE span whose first candidate is a church
    or a station puts first the candidates that are not built and whose title writes its name;
    a port or a resort counts as a settlement (round 43)."""
    from allennlp_longent.linking.kinds import built
    from allennlp_longent.linking.orders import setting_order

    pages = {e.id: e for e in [
        Entity("c", "Royal Church of Motava", "The Royal Church of Motava is a church in the "
                                              "capital."),
        Entity("k", "Kingdom of Motava", "The Kingdom of Motava is an island kingdom."),
        Entity("p", "Port Selden", "Port Selden is a port on the east coast."),
        Entity("s", "Selden", "Selden is a village inland."),
        Entity("m", "Motava Ilse Renner", "Motava Ilse Renner was a priest. She wrote hymns."),
    ]}
    assert built(pages["c"]) and not built(pages["k"]) and not built(pages["p"])
    # a town whose defining phrase names a building first is still a town (round 44: read by
    # the defining phrase itself)
    assert not built(Entity("t", "Koralpet", "Koralpet is a temple and weaving town on the river."))
    assert not built(Entity("t", "Ilobi", "Ilobi is a market and textile city in the south."))
    assert built(Entity("e", "St Oda", "St Oda is the parish church of the town."))
    ranked = [{"id": i} for i in "ck"]
    moved = setting_order("Motava", "GPE", ranked, pages.__getitem__, 2)
    assert [c["id"] for c in moved] == ["k", "c"] and moved[0]["setting"]
    assert setting_order("Motava", "FAC", ranked, pages.__getitem__, 2) == ranked
    with_person = [{"id": i} for i in "cm"]  # a person is no place either
    assert setting_order("Motava", "GPE", with_person, pages.__getitem__, 2) == with_person
    assert setting_order("Motava", "GPE", ranked, pages.__getitem__, 1) == ranked  # not among 1
    assert setting_order("Selden", "GPE", [{"id": "p"}, {"id": "s"}], pages.__getitem__,
                         2) == [{"id": "p"}, {"id": "s"}]  # a port is a town


def test_a_page_s_name_is_not_its_kind():
    from allennlp_longent.linking.kinds import common_noun, kind_nouns

    institute = Entity("i", "Instituto Jacira Moura", "The Instituto Jacira Moura works every "
                                                      "day so that no child grows up alone.")
    assert "jacira" not in kind_nouns(institute) and "moura" in kind_nouns(institute)  # head
    assert common_noun("jacira") == "jacira"  # a chat's lower-case name reads as a noun


def test_a_title_that_opens_with_a_kind_is_a_thing_when_the_page_says_no_more():
    institute = Entity("i", "Instituto Jacira Moura", "The Instituto Jacira Moura works every "
                                                      "day so that no child grows up alone.")
    assert kind(institute) == THING
    # the page's own head still decides ("Lake" may be a person's family name)
    assert kind(Entity("l", "Lake Harrow", "Lake Harrow was a painter. She lived by the sea.")) \
        == PERSON


def test_a_person_span_named_like_a_thing_named_after_a_person():
    kinds = {"sword": THING, "knight": PERSON, "inn": THING}
    titles = {"sword": "Brannoc", "knight": "Brannoc Hale", "inn": "Brannoc's Rest"}
    ranked = [{"id": i} for i in ("sword", "inn", "knight")]
    moved = type_order("PERSON", ranked, kinds.get, 3, "Brannoc", titles.get)
    assert [c["id"] for c in moved] == ["knight", "sword", "inn"] and moved[0]["person_title"]
    # a product span keeps the sword, and a person no title writes leaves the order alone
    assert type_order("PRODUCT", ranked, kinds.get, 3, "Brannoc", titles.get) == ranked
    titles["knight"] = "Aldric Vane"
    assert type_order("PERSON", ranked, kinds.get, 3, "Brannoc", titles.get) == ranked


def test_setting_order_reads_a_fac_span_against_a_city():
    from allennlp_longent.linking.orders import setting_order

    pages = {e.id: e for e in [
        Entity("c", "São Tarcísio", "São Tarcísio is a city on the river."),
        Entity("a", "Aeroporto de São Tarcísio", "Aeroporto de São Tarcísio is an airport.")]}
    ranked = [{"id": "c"}, {"id": "a"}]
    assert [c["id"] for c in setting_order("São Tarcísio airport", "FAC", ranked,
                                           pages.__getitem__, 2)] == ["a", "c"]
    assert setting_order("São Tarcísio", "GPE", ranked, pages.__getitem__, 2) == ranked


def test_setting_order_reads_a_loc_span_against_a_town_and_a_river_by_its_kind_nouns():
    from allennlp_longent.linking.orders import setting_order

    pages = {e.id: e for e in [
        Entity("t", "Orvel", "Orvel is a district town of 9,000 people on the Orvel."),
        Entity("r", "Orvel River", "The Orvel is a left-bank tributary of the Dena."),
        Entity("c", "St Orvel's Church", "St Orvel's Church is the parish church of Orvel."),
        Entity("s", "St Orvel's Spring", "St Orvel's Spring is a spring above the town.")]}
    town_first = [{"id": "t"}, {"id": "r"}]
    # the town is a settlement, and the river a river by its title though its head is "tributary"
    moved = setting_order("Orvel", "LOC", town_first, pages.__getitem__, 2)
    assert [c["id"] for c in moved] == ["r", "t"] and moved[0]["setting"]
    assert setting_order("Orvel", "GPE", town_first, pages.__getitem__, 2) == town_first
    # a first candidate that is no place at all gives way to the river as well
    pages["p"] = Entity("p", "Orvel Dane", "Orvel Dane (1901-1980) was a ferryman.")
    person_first = [{"id": "p"}, {"id": "r"}]
    assert [c["id"] for c in setting_order("Orvel", "LOC", person_first,
                                           pages.__getitem__, 2)] == ["r", "p"]
    river_first = [{"id": "r"}, {"id": "t"}]
    assert setting_order("Orvel", "LOC", river_first, pages.__getitem__, 2) == river_first
    # a church's page that says "parish" is still a built place for a FAC span
    spring_first = [{"id": "s"}, {"id": "c"}]
    assert [c["id"] for c in setting_order("St Orvel's", "FAC", spring_first,
                                           pages.__getitem__, 2)] == ["c", "s"]
    church_first = [{"id": "c"}, {"id": "s"}]
    assert setting_order("St Orvel's", "FAC", church_first, pages.__getitem__, 2) == church_first


def test_a_name_ending_in_a_kind_the_page_does_not_write_names_another_entity():
    from allennlp_longent.linking.kinds import named_kind, names_other_kind

    assert named_kind("Skjærvik University Hospital") == "hospital"
    assert named_kind("Hospital") is None and named_kind("the hospital") is None
    assert named_kind("Kovalenko Memorial") is None  # no kind word
    town = Entity("t", "Skjærvik", "Built around a harbour, Skjærvik is a port. Its university "
                                   "and hospital serve the coast. It is a town.")
    assert names_other_kind("Skjærvik University Hospital", town)  # "its hospital" is not it
    khan = Entity("k", "Khan Qadir", "A caravanserai. After 1950 it served as a warehouse. "
                                     "Since 1990 it has housed a museum.")
    assert not names_other_kind("Khan Qadir Museum", khan)  # it says so of itself
    rail = Entity("r", "Vennet Valley Railway", "A railway. It was called the Hohrain Tramway "
                                                "until 1921.")
    assert not names_other_kind("Hohrain Tramway", rail)  # another name of the page
    yard = Entity("y", "Yarema Shipyard", "Shipbuilding company in Dorovets.")
    assert not names_other_kind("Yarema Yard", yard)  # a word its title ends with


def test_a_place_s_name_before_the_larger_place():
    from allennlp_longent.linking.kinds import place_name

    assert place_name("Galde, Havsund", "GPE") == "Galde"
    assert place_name("Galde, Havsund", "ORG") == "Galde, Havsund"
    assert place_name(", Havsund", "LOC") == ", Havsund"


def test_a_storm_s_prefix_defines_an_event():
    from allennlp_longent.linking.kinds import EVENT_NOUNS
    velma = Entity("t", "Typhoon Velma (1961)", "Typhoon Velma made landfall near Kagamihama.")
    assert defines(velma, EVENT_NOUNS) and kind(velma) == THING
    assert not defines(Entity("c", "Cyclone", "Cyclone is a roller coaster."), EVENT_NOUNS)


def test_an_event_page_that_never_writes_the_name_is_not_put_first():
    entities = {e.id: e for e in (
        Entity("matsuri", "Tomoe Matsuri", "14-15 October: the autumn rite of the shrine."),
        Entity("lanterns", "Shinonome Lantern Festival", "An annual summer festival."))}
    ranked = [{"id": "matsuri", "unwritten": []}, {"id": "lanterns", "unwritten": ["tomoe"]}]
    moved = definition_order("EVENT", ranked, entities.__getitem__, 2, "Tomoe Festival")
    assert [c["id"] for c in moved] == ["matsuri", "lanterns"]
    # a page of the kind that writes every name word still goes first
    ranked[1]["unwritten"] = []
    moved = definition_order("EVENT", ranked, entities.__getitem__, 2, "Tomoe Festival")
    assert [c["id"] for c in moved] == ["lanterns", "matsuri"] and moved[0]["event"]


def test_a_name_ending_in_a_kind_goes_to_the_page_of_that_kind_that_writes_the_name():
    from allennlp_longent.linking.orders import kind_name_order
    entities = {e.id: e for e in (
        Entity("hamlet", "Chinnakuppam", "Chinnakuppam is a fishing hamlet with a harbour."),
        Entity("harbour", "Kadalur Fishing Harbour", "The harbour at Chinnakuppam lands fish."),
        Entity("town", "Neelapuram", "Neelapuram is a temple town on the backwater."),
        Entity("temple", "Neelambal Temple, Neelapuram", "Arulmigu Neelambal Thirukkovil stands "
                                                         "at Neelapuram."))}
    ranked = [{"id": "hamlet", "unwritten": []}, {"id": "harbour", "unwritten": []}]
    moved = kind_name_order("Chinnakuppam harbour", ranked, entities.__getitem__, 2)
    assert [c["id"] for c in moved] == ["harbour", "hamlet"] and moved[0]["kind_name"]
    # "a temple town" is a town; the temple's title says temple before its comma
    ranked = [{"id": "town", "unwritten": []}, {"id": "temple", "unwritten": []}]
    moved = kind_name_order("neelapuram temple", ranked, entities.__getitem__, 2)
    assert [c["id"] for c in moved] == ["temple", "town"]
    # a page of the kind that never writes the name stays where it is; so does a name of no kind
    ranked = [{"id": "hamlet", "unwritten": []}, {"id": "harbour", "unwritten": ["chinnakuppam"]}]
    assert kind_name_order("Chinnakuppam harbour", ranked, entities.__getitem__, 2) == ranked
    assert kind_name_order("Chinnakuppam Das", ranked, entities.__getitem__, 2) == ranked


def test_kind_named_reads_the_last_word_against_the_page_s_head():
    from allennlp_longent.linking.kinds import kind_named
    yard = Entity("y", "Lindqvist Verft", "Lindqvist Verft is a shipyard on the fjord.")
    town = Entity("t", "Neelapuram", "Neelapuram is a temple town on the backwater.")
    assert kind_named("Lindqvist's yard", yard) and kind_named("lindqvist Yard", yard)
    assert not kind_named("Lindqvist", yard) and not kind_named("Lindqvist's boat", yard)
    assert not kind_named("Neelapuram temple", town)  # a temple town is a town


def test_a_kind_before_of_in_a_name_goes_to_the_page_of_that_kind():
    # round 28: "HOLY MONASTERY OF AGIA THALASSINI" had gone to the saint's spring, whose page
    # writes the monastery, not to the Monastery of Agia Thalassini
    from allennlp_longent.linking.kinds import kind_before_of, kind_named
    from allennlp_longent.linking.orders import kind_name_order
    assert kind_before_of("HOLY MONASTERY OF AGIA THALASSINI") == "monastery"
    assert kind_before_of("mausoleum of Kutlug Khan") == "mausoleum"
    assert kind_before_of("Battle of Tellau") is None  # no kind of place or body
    assert kind_before_of("Monastery") is None and kind_before_of("of Kings") is None
    entities = {e.id: e for e in (
        Entity("spring", "Agiasma of Agia Mira", "A holy spring below the monastery of Agia "
                                                 "Mira, where pilgrims drink."),
        Entity("convent", "Monastery of Agia Mira", "A convent of nuns above the bay."))}
    assert kind_named("Holy Monastery of Agia Mira", entities["convent"])
    assert not kind_named("Holy Monastery of Agia Mira", entities["spring"])
    ranked = [{"id": "spring", "unwritten": []}, {"id": "convent", "unwritten": []}]
    moved = kind_name_order("HOLY MONASTERY OF AGIA MIRA", ranked, entities.__getitem__, 2)
    assert [c["id"] for c in moved] == ["convent", "spring"] and moved[0]["kind_name"]


def test_a_lower_case_name_does_not_put_a_page_of_the_clashing_kind_first():
    from allennlp_longent.linking.orders import noun_order
    pages = {"s": Entity("s", "Koharu (TV series)", "Koharu is an anime series."),
             "p": Entity("p", "Koharu Takasuga", "Koharu Takasuga is its heroine.")}
    # chat writes the heroine "koharu": the series' title is its kind noun, but the PERSON label
    # put the series back (label_clash), and the common-noun reading does not undo that
    ranked = [{"id": "p"}, {"id": "s", "label_clash": True}]
    assert noun_order("koharu", ranked, pages.get, 2) == ranked
    assert [c["id"] for c in noun_order("koharu", [{"id": "p"}, {"id": "s"}], pages.get, 2)] \
        == ["s", "p"]


def test_a_place_span_may_add_city_or_summit_to_a_place_s_title():
    from allennlp_longent.linking.orders import place_order
    titles = {"s": "Kōsaka Shipbuilding", "c": "Kagamihama", "r": "Galdetind Skisenter",
              "m": "Galdetind"}
    ranked = [{"id": "s"}, {"id": "c"}]
    assert [c["id"] for c in place_order("Kagamihama City", "GPE", ranked, titles.get, 2)] \
        == ["c", "s"]
    ranked = [{"id": "r"}, {"id": "m"}]
    assert [c["id"] for c in place_order("Galdetind summit", "LOC", ranked, titles.get, 2)] \
        == ["m", "r"]
    # another added word is no place's suffix; another label is left alone
    assert place_order("Galdetind Lodge", "LOC", ranked, titles.get, 2) == ranked
    assert place_order("Galdetind summit", "ORG", ranked, titles.get, 2) == ranked


def test_round_26_a_made_thing_s_qualifier_against_a_hand_set_label():
    from allennlp_longent.linking.kinds import made_against
    from allennlp_longent.linking.orders import made_order, naming_titles

    beer = Entity("B", "Drywan (beer)", "Dark ale, brewed since 2014 and named after the hill.")
    hill = Entity("M", "Moel Drywan", "Moel Drywan is the highest mountain of Dinorfa.")
    song = Entity("S", "Anyinamu (song)", "A highlife song of 1964.")
    kb = {e.id: e for e in (beer, hill, song)}
    for label in ("LOC", "GPE", "FAC", "ORG", "PERSON", "EVENT", "NORP"):
        assert made_against(label, beer) and made_against(label, song)
    for label in ("PRODUCT", "WORK_OF_ART", "MISC"):
        assert not made_against(label, beer)
    assert not made_against("LOC", hill)
    ranked = [{"id": "B"}, {"id": "M"}]
    assert [c["id"] for c in made_order("LOC", ranked, kb.__getitem__, 2)] == ["M", "B"]
    assert made_order("LOC", ranked, kb.__getitem__, 2)[1]["made_clash"]
    assert made_order("PRODUCT", ranked, kb.__getitem__, 2) == ranked
    # the title rules see no name in it for a hand-set label, its title for a NER's
    assert naming_titles("LOC", kb.__getitem__, annotated=True)("B") == ""
    assert naming_titles("LOC", kb.__getitem__)("B") == "Drywan (beer)"


def test_round_26_a_variant_title_goes_first_when_no_title_is_the_name():
    from allennlp_longent.linking.orders import title_order, variant_titles

    titles = {"T": "Porthgarreg", "R": "Porthgarreg RFC", "H": "Porthgarreg (hymn tune)",
              "C": "Cwmeurin"}
    ranked = [{"id": i} for i in ("R", "T", "C")]
    assert variant_titles("Borthgarreg", ranked, titles.__getitem__, 3) == [False, True, False]
    moved = title_order("Borthgarreg", ranked, titles.__getitem__, 3)
    assert [c["id"] for c in moved] == ["T", "R", "C"] and moved[0]["variant_title"]
    # an exact title wins; two variants are a tie, left alone
    assert title_order("Porthgarreg RFC", ranked, titles.__getitem__, 3)[0]["exact_title"]
    tied = [{"id": "T"}, {"id": "H"}]
    assert title_order("Borthgarreg", tied, titles.__getitem__, 2) == tied


def test_round_27_a_hand_set_label_picks_the_namesake_over_the_name_s_bearer():
    from allennlp_longent.linking.orders import name_bearers, naming_titles, title_order

    saint = Entity("S", "Santa Iluminada", "Santa Iluminada is a virgin martyr. She is the "
                   "patroness of the city; her relics lie in her shrine.")
    shrine = Entity("H", "Shrine of Santa Iluminada", "A church built in 1873. It is the "
                    "city's oldest church.")
    feast = Entity("F", "Fiesta de Santa Iluminada", "The religious feast of the patroness, "
                   "held each January.")
    kb = {e.id: e for e in (saint, shrine, feast)}
    ranked = [{"id": "S"}, {"id": "F"}, {"id": "H"}]
    # a FAC span excludes the saint (a person) and the feast (an event; "feast" defines one)
    assert is_event(feast)
    assert name_bearers("FAC", "Santa Iluminada", ranked, kb.__getitem__, 3) == {"S"}
    naming = naming_titles("FAC", kb.__getitem__, True, {"S"})
    assert naming("S") == "" and naming("H") == shrine.title
    assert title_order("Santa Iluminada", ranked, naming, 3) == ranked  # no title is the name
    moved = definition_order("FAC", ranked, kb.__getitem__, 3, "Santa Iluminada", naming)
    assert [c["id"] for c in moved] == ["S", "H", "F"]  # the feast goes after
    # a PERSON span is the saint's; a name no other title writes keeps its bearer
    assert name_bearers("PERSON", "Santa Iluminada", ranked, kb.__getitem__, 3) == frozenset()
    assert name_bearers("FAC", "Iluminada", ranked, kb.__getitem__, 3) == frozenset()
    alone = [{"id": "S"}, {"id": "F"}]  # the only namesake is excluded too
    assert name_bearers("FAC", "Santa Iluminada", alone, kb.__getitem__, 2) == frozenset()


def test_round_31_a_state_s_name_is_not_a_page_that_lies_in_it():
    from allennlp_longent.linking.kinds import names_other_kind, state_before_of

    city = Entity("c", "Kumushqala", "Kumushqala is an oasis city in the Republic of Ozodiston.")
    region = Entity("r", "Tilladaryo Region", "A region of the Republic of Ozodiston.")
    state = Entity("s", "Republic of Ozodiston", "A landlocked country.")
    country = Entity("k", "Ozodiston", "Ozodiston is a republic in the steppe.")
    assert state_before_of("the Republic of Ozodiston") == "republic"
    assert state_before_of("Ozodiston Republic") is None
    assert names_other_kind("Republic of Ozodiston", city)
    assert names_other_kind("Republic of Ozodiston", region)
    assert not names_other_kind("Republic of Ozodiston", state)  # its title writes it
    assert not names_other_kind("Republic of Ozodiston", country)  # its kind noun
    union = Entity("u", "Tagbaloc Federation of Jeepney Drivers", "A drivers' union.")
    assert not names_other_kind("Federation of Jeepney Drivers", union)
