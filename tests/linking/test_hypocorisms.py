from allennlp_longent.linking.hypocorisms import PET_NAMES, nicknames
from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.names import unwritten_on_pages


def test_a_pet_name_is_written_by_a_page_that_writes_the_full_name_in_any_spelling():
    assert nicknames("sasha", {"oleksandr", "marchuk"})
    assert nicknames("sasha", {"alessandro"})
    assert nicknames("resi", {"theresia"})
    assert nicknames("mitsos", {"dimitrios"})
    assert not nicknames("sasha", {"petro", "marchuk"})
    assert not nicknames("marchuk", {"marchuk"})  # no pet name: the spelling rules decide


def test_the_unwritten_name_rule_reads_pet_names_against_each_page():
    pages = [Entity("a", "Oleksandr Marchuk", "Oleksandr Marchuk is a welder."),
             Entity("b", "Petro Marchuk", "Petro Marchuk is a priest.")]
    assert unwritten_on_pages("Sasha Marchuk", pages) == [[], ["sasha"]]


def test_pet_names_that_are_given_names_in_their_own_right_are_left_out():
    for name in ("frank", "hans", "lola", "rita", "greta", "nino", "jack"):
        assert name not in PET_NAMES


def test_a_diminutive_is_a_pet_name_of_its_stem():
    """A given name's stem with a diminutive ending ("Juanito", "Verochka", "Remiken") is a pet
    name of the name; endings that given names have of their own are not read (round 44)."""
    assert nicknames("juanito", {"juan", "pastor"}) and nicknames("juanillo", {"juan"})
    assert nicknames("verochka", {"vera"}) and nicknames("remiken", {"remi"})
    assert nicknames("rosita", {"rosa"}) and nicknames("zezinho", {"ze"}) is False
    assert not nicknames("paulina", {"paul"})  # "-ina": a name of its own
    assert not nicknames("juanito", {"juliana"})
    pages = [Entity("j", "Juan Pastor", "Juan Pastor was a cooper."),
             Entity("r", "Ramon Pastor", "Ramon Pastor was a carter.")]
    assert unwritten_on_pages("Juanito Pastor", pages) == [[], ["juanito"]]


def test_the_pet_names_of_round_44():
    assert nicknames("biddy", {"bridget"}) and nicknames("fien", {"seraphine"})
    assert nicknames("henk", {"hendrik"}) and nicknames("wal", {"walter"})
    assert not nicknames("biddy", {"walter"})
