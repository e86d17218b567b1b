"""Label agreement (:mod:`allennlp_longent.linking.kinds`) on cases worked out by hand."""

from allennlp_longent.linking.kinds import PERSON, THING, clashes, kind, type_order
from allennlp_longent.linking.knowledge_base import Entity


def test_kind_counts_personal_against_impersonal_pronouns():
    assert kind(Entity("a", "Aldous", "He founded the town; his quay still stands.")) == PERSON
    assert kind(Entity("p", "Port", "A town. It has a quay and its own bell.")) == THING
    assert kind(Entity("s", "Ship", "She sails; it is said her mast is old.")) == PERSON  # 2 to 1
    assert kind(Entity("n", "Reefs", "Red rocks off the coast.")) is None  # no pronoun
    assert kind(Entity("t", "Tie", "He built it.")) is None  # one of each
    # whole words only: "hermit" and "shelter" hold no "he" and no "she"
    assert kind(Entity("h", "Hermitage", "The hermit's shelter; Itself a chapel.")) == THING


def test_only_a_person_span_against_a_thing_and_a_place_span_against_a_person_clash():
    assert clashes("PERSON", THING) and clashes("PER", THING)
    assert clashes("GPE", PERSON) and clashes("LOC", PERSON) and clashes("FAC", PERSON)
    assert not clashes("PERSON", PERSON) and not clashes("PERSON", None)
    assert not clashes("GPE", THING) and not clashes("GPE", None)
    assert not clashes("PRODUCT", PERSON) and not clashes("ORG", PERSON)  # a ship reads "she"
    assert not clashes("EVENT", THING)


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
