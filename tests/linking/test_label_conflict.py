"""``label_conflict``: cases worked out by hand from its module docstring."""

import pytest

from allennlp_longent.linking.label_conflict import NIL, label_conflict, name_first


def cand(entity_id: str, title: str, probability: float, **marks) -> dict:
    return {"id": entity_id, "title": title, "probability": probability, "score": 0.0,
            "unwritten": [], **marks}


LAGOON = cand("lagoon", "Kokwaa Lagoon", 0.97, label_clash=True)
FISHER = cand("fisher", "Kobina Asmah", 0.01)


@pytest.mark.parametrize("annotated, expected", [(True, NIL), (False, "lagoon")])
def test_the_likeliest_writes_the_name_so_the_label_source_decides(annotated, expected):
    assert label_conflict("Nana Kokwaa", [FISHER, LAGOON], annotated) == expected


def test_nothing_writes_the_name_is_nil_whatever_the_labels():
    ship = cand("ship", "MV Maame Efua", 0.9, product_clash=True)
    harbour = cand("harbour", "Esiakwa Fishing Harbour", 0.004)
    for annotated in (True, False):
        assert label_conflict("Nkwaboso", [harbour, ship], annotated) == NIL


def test_no_conflict():
    # the first is the likeliest
    assert label_conflict("Nana Kokwaa", [LAGOON, FISHER], True) is None
    # the first writes a name word
    kobina = cand("kobina", "Kobina Kokwaa", 0.01)
    assert label_conflict("Nana Kokwaa", [kobina, LAGOON], True) is None
    # the first is there by a rule's own evidence (an alias), or is not far behind
    alias = cand("heron", "Pieter Rask", 0.0, alias=True)
    assert label_conflict("the Heron", [alias, cand("h", "Heron Island", 0.9)], True) is None
    near = cand("fisher", "Kobina Asmah", 0.2)
    assert label_conflict("Nana Kokwaa", [near, LAGOON], True) is None
    # the likeliest writes some of the name words only
    part = cand("stars", "Kokwaa Stars", 0.97, label_clash=True)
    assert label_conflict("Kokwaa Nkwa", [FISHER, part], True) is None
    # one candidate, or no name word
    assert label_conflict("Nana Kokwaa", [FISHER], True) is None
    assert label_conflict("the lagoon", [FISHER, LAGOON], True) is None


def test_name_first_moves_and_marks():
    moved = name_first([FISHER, LAGOON], "lagoon")
    assert [c["id"] for c in moved] == ["lagoon", "fisher"]
    assert moved[0]["name_over_label"] and "name_over_label" not in moved[1]


def test_a_page_promoted_for_its_kind_alone_gives_way_to_the_page_named_so():
    disaster = cand("d", "Aboasa canoe disaster", 0.003, event=True)
    festival = cand("f", "Kokwaa Afahye", 0.9)
    for annotated in (True, False):
        assert label_conflict("Afahye", [disaster, festival], annotated) == "f"
    # not when the likeliest page clashes with the label, nor when its title lacks a name word
    clash = cand("f", "Kokwaa Afahye", 0.9, event_clash=True)
    assert label_conflict("Afahye", [disaster, clash], True) is None
    assert label_conflict("Afahye Regatta", [disaster, festival], True) is None
    # any other mark is the first page's own evidence
    alias = cand("d", "Aboasa canoe disaster", 0.003, event=True, alias=True)
    assert label_conflict("Afahye", [alias, festival], True) is None
