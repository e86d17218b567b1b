"""The ``longent_mentions`` component: NER spans trimmed to names, the KB titles it missed."""

import json

import pytest
import spacy

from allennlp_longent.linking import mentions  # noqa: F401 (registers the factory)
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase
from allennlp_longent.linking.mentions import (
    DEFAULT_LABEL,
    kb_name_words,
    kb_patterns,
    lowercase_titles,
    written_title,
)

ENTITIES = [
    Entity("w", "Liss Corrander", "Liss Corrander is a lamp-maker of the isles. She was born in "
           "Port Corrander, where she keeps a workshop. Her lamps light the quay."),
    Entity("s", "Liss Corrander (ship)", "The Liss Corrander is a schooner named after the "
           "lamp-maker. It carries salt between the isles."),
    Entity("t", "Port Corrander", "Port Corrander is a harbour town of the isles. It has a quay "
           "and a lighthouse."),
    Entity("h", "Hollis Dray", "Hollis Dray is a helmsman of the isles. He sailed the "
           "schooner for ten years."),
    Entity("c", "harbour code", "The harbour code is a set of rules for the quay."),
]


def _pipeline(tmp_path, ner_patterns, **config):
    KnowledgeBase.add(kb := KnowledgeBase(), ENTITIES)
    kb.save(tmp_path / "kb")
    nlp = spacy.blank("en")
    if ner_patterns:  # an entity ruler stands in for a NER
        nlp.add_pipe("entity_ruler", name="ner").add_patterns(ner_patterns)
    nlp.add_pipe("longent_mentions", config={"kb": str(tmp_path / "kb"), **config})
    return nlp


def test_a_written_title_drops_its_qualifier_and_a_common_noun_is_none():
    assert written_title("Liss Corrander (ship)") == "Liss Corrander"
    assert written_title("Port  Corrander") == "Port Corrander"
    assert written_title("harbour code") is None


def test_the_label_is_the_pages_kind_and_neutral_when_two_pages_disagree():
    patterns = dict(kb_patterns(ENTITIES))
    assert patterns == {"Liss Corrander": DEFAULT_LABEL,  # the woman and the ship
                        "Port Corrander": DEFAULT_LABEL, "Hollis Dray": "PERSON"}
    assert dict(kb_patterns(ENTITIES[1:2]))["Liss Corrander"] == "PRODUCT"  # a vehicle


def test_titles_are_added_where_no_entity_overlaps_and_the_ner_spans_stay(tmp_path):
    text = "Hollis Dray took the Liss Corrander from Port Corrander past Wenna's harbour code."
    ner = [{"label": "GPE", "pattern": "Port"}, {"label": "PERSON", "pattern": "Wenna"}]
    ents = [(e.text, e.label_, e.start_char)
            for e in _pipeline(tmp_path, ner, extend=False)(text).ents]
    assert ents == [("Hollis Dray", "PERSON", 0), ("Liss Corrander", DEFAULT_LABEL, 21),
                    ("Port", "GPE", 41), ("Wenna", "PERSON", 61)]
    # extend widens the NER's "Port" to the title that holds it, with the NER's label
    ents = [(e.text, e.label_, e.start_char) for e in _pipeline(tmp_path, ner)(text).ents]
    assert ents[2] == ("Port Corrander", "GPE", 41)


def test_an_entity_inside_a_title_takes_the_label_the_page_gives(tmp_path):
    nlp = _pipeline(tmp_path, [{"label": "GPE", "pattern": "Dray"}])
    assert [(e.text, e.label_) for e in nlp("They met Hollis Dray.").ents] == [
        ("Hollis Dray", "PERSON")]
    # an entity wider than every title stays as it is
    nlp = _pipeline(tmp_path, [{"label": "ORG", "pattern": "Hollis Dray Trust"}])
    assert [e.text for e in nlp("They met the Hollis Dray Trust.").ents] == [
        "Hollis Dray Trust"]


def test_a_title_in_capitals_is_a_title_and_in_lower_case_if_no_page_writes_it_so(tmp_path):
    quay = Entity("q", "Salt Quay", "The Salt Quay is the old landing of Port Corrander.")
    assert lowercase_titles(ENTITIES + [quay]) == ["hollis dray", "liss corrander",
                                                   "port corrander"]
    KnowledgeBase.add(kb := KnowledgeBase(), ENTITIES + [quay])
    kb.save(tmp_path / "kb")
    nlp = spacy.blank("en")
    nlp.add_pipe("longent_mentions", config={"kb": str(tmp_path / "kb"), "names": False})
    text = "VISIT PORT CORRANDER TODAY: port corrander, Port corrander, the salt quay."
    # "salt" and "quay" are words the pages write in lower case (the ship "carries salt")
    assert [e.text for e in nlp(text).ents] == ["PORT CORRANDER", "port corrander"]


def test_capitalised_runs_that_write_a_title_name_word_are_marked(tmp_path):
    text = ("The Corranders came. Old Dray of Wenna and Doctor Hollis met at Gull Point "
            "Harbour, and Liss rode to Harbour Hotel.")
    ents = [(e.text, e.label_) for e in _pipeline(tmp_path, [], titles=False)(text).ents]
    # "Corranders" is not the word "corrander" (no stemming); "Gull Point Harbour" and "Harbour
    # Hotel" write no name word; the sentence's opening "The" is no part of a run
    assert ents == [("Old Dray of Wenna", DEFAULT_LABEL), ("Doctor Hollis", DEFAULT_LABEL),
                    ("Liss", DEFAULT_LABEL)]
    assert [e.text for e in _pipeline(tmp_path, [], titles=False, names=False)(text).ents] == []


def test_a_name_the_page_gives_its_entity_marks_a_run_too(tmp_path):
    ferryman = Entity("f", "Bartholomew Skerry", "Bartholomew Skerry is a ferryman of the isles, "
                      "known to everyone as Tank. He rows the mail to Port Corrander.")
    assert "tank" in kb_name_words(ENTITIES + [ferryman])
    assert "tank" not in kb_name_words(ENTITIES)
    KnowledgeBase.add(kb := KnowledgeBase(), ENTITIES + [ferryman])
    kb.save(tmp_path / "kb")
    nlp = spacy.blank("en")
    nlp.add_pipe("longent_mentions", config={"kb": str(tmp_path / "kb"), "titles": False})
    assert [(e.text, e.label_) for e in nlp("We waited for Tank at the quay.").ents] == [
        ("Tank", DEFAULT_LABEL)]


def test_of_two_overlapping_titles_the_longer_is_kept(tmp_path):
    nlp = _pipeline(tmp_path, [])
    KnowledgeBase.add(kb := KnowledgeBase(), ENTITIES + [Entity("x", "Corrander", "A family.")])
    kb.save(tmp_path / "kb2")
    nlp.replace_pipe("longent_mentions", "longent_mentions", config={"kb": str(tmp_path / "kb2")})
    ents = [(e.text, e.start_char) for e in nlp("Port Corrander and Corrander.").ents]
    assert ents == [("Port Corrander", 0), ("Corrander", 19)]


def test_a_saved_pipeline_keeps_its_titles_without_the_kb(tmp_path):
    nlp = _pipeline(tmp_path, [])
    text = "Hollis Dray came home to Port Corrander."
    before = [(e.text, e.label_) for e in nlp(text).ents]
    nlp.to_disk(tmp_path / "pipeline")
    saved = tmp_path / "pipeline" / "longent_mentions"
    assert json.loads((saved / "patterns.json").read_text())
    assert json.loads((saved / "names.json").read_text()) == ["corrander", "dray", "hollis",
                                                              "liss"]
    assert "port corrander" in json.loads((saved / "lowercase.json").read_text())
    for path in (tmp_path / "kb").rglob("*"):
        if path.is_file():
            path.unlink()
    after = [(e.text, e.label_) for e in spacy.load(tmp_path / "pipeline")(text).ents]
    assert after == before == [("Hollis Dray", "PERSON"), ("Port Corrander", DEFAULT_LABEL)]


def test_a_pipeline_saved_without_name_words_says_how_to_load_it(tmp_path):
    _pipeline(tmp_path, []).to_disk(tmp_path / "pipeline")
    (tmp_path / "pipeline" / "longent_mentions" / "names.json").unlink()
    with pytest.raises(ValueError, match="names.json is missing.*names: false"):
        spacy.load(tmp_path / "pipeline")
    nlp = spacy.load(tmp_path / "pipeline", config={
        "components": {"longent_mentions": {"names": False}}})
    assert [e.text for e in nlp("Hollis came to Port Corrander.").ents] == ["Port Corrander"]


def test_without_a_kb_the_ruler_says_what_to_pass():
    nlp = spacy.blank("en")
    nlp.add_pipe("longent_mentions")
    with pytest.raises(ValueError, match="config=.*'kb'"):
        nlp("Port Corrander.")


def test_an_article_and_a_possessive_come_off_unless_the_span_is_a_title(tmp_path):
    text = "The Hollis Dray's boat met the Port Corrander pilots and The Gullhaven Gazette's man."
    ner = [{"label": "PERSON", "pattern": "The Hollis Dray's"},
           {"label": "ORG", "pattern": "the Port Corrander pilots"},
           {"label": "ORG", "pattern": "The Gullhaven Gazette"}, {"label": "ORG", "pattern": "the"}]
    KnowledgeBase.add(kb := KnowledgeBase(), [Entity("g", "The Gullhaven Gazette", "A paper.")])
    kb.save(tmp_path / "gazette")
    found = {}
    for trim, titles in ((True, False), (False, False)):
        nlp = spacy.blank("en")
        nlp.add_pipe("entity_ruler", name="ner").add_patterns(ner)
        nlp.add_pipe("longent_mentions", config={"kb": str(tmp_path / "gazette"), "trim": trim,
                                                 "titles": titles})
        found[trim] = [(e.text, e.label_) for e in nlp(text).ents]
    assert found[False] == [("The Hollis Dray's", "PERSON"), ("the Port Corrander pilots", "ORG"),
                            ("The Gullhaven Gazette", "ORG")]
    assert found[True] == [("Hollis Dray", "PERSON"), ("Port Corrander pilots", "ORG"),
                           ("The Gullhaven Gazette", "ORG")]


def test_titles_are_left_out_when_turned_off(tmp_path):
    nlp = _pipeline(tmp_path, [{"label": "PERSON", "pattern": "the Hollis Dray"}], titles=False,
                    names=False)
    ents = [e.text for e in nlp("the Hollis Dray sailed from Port Corrander.").ents]
    assert ents == ["Hollis Dray"]


def test_extend_takes_in_a_hyphenated_word_and_a_kind_word_after_a_name(tmp_path):
    text = "Hollis-bhai sang in the Dray choir at the Wenna temple on 4 May market days."
    ner = [{"label": "PERSON", "pattern": "Hollis"}, {"label": "ORG", "pattern": "Dray"},
           {"label": "PERSON", "pattern": "Wenna"}, {"label": "DATE", "pattern": "4 May"}]
    found = {extend: [e.text for e in _pipeline(tmp_path, ner, extend=extend,
                                                 names=False)(text).ents]
             for extend in (True, False)}
    assert found[False] == ["Hollis", "Dray", "Wenna", "4 May"]
    # "market" is a word for a kind but a date is no name
    assert found[True] == ["Hollis-bhai", "Dray choir", "Wenna temple", "4 May"]


def test_trim_takes_off_the_marks_and_function_words_a_ner_leaves_at_a_names_ends(tmp_path):
    patterns = [{"label": "EVENT", "pattern": "Great Strike of"},
                {"label": "ORG", "pattern": '"Co-op'},
                {"label": "ORG", "pattern": "a Dray Shipping"},
                {"label": "ORG", "pattern": "Tarle ZRT."},
                {"label": "GPE", "pattern": "Wenna."}]
    nlp = _pipeline(tmp_path, patterns, titles=False, extend=False, names=False)
    text = 'After the Great Strike of 1921 the "Co-op and a Dray Shipping sold Tarle ZRT. in Wenna.'
    assert [e.text for e in nlp(text).ents] == ["Great Strike", "Co-op", "Dray Shipping",
                                                "Tarle ZRT.", "Wenna"]


def test_extend_takes_in_a_possessive_name_and_a_number_but_not_a_work_or_a_date(tmp_path):
    patterns = [{"label": "PERSON", "pattern": "Pelham"},
                {"label": "PERSON", "pattern": "Ross Dimarzo"},
                {"label": "WORK_OF_ART", "pattern": "Lemon Crossing"},
                {"label": "DATE", "pattern": "this year"},
                {"label": "ORG", "pattern": "Plant"}]
    text = ("We walked from Pelham's Dig to Plant No. 47 and read Ross Dimarzo's Lemon Crossing "
            "at this year's Fair.")
    ents = [(e.text, e.label_) for e in _pipeline(tmp_path, patterns, titles=False,
                                                 names=False)(text).ents]
    assert ents == [("Pelham's Dig", DEFAULT_LABEL), ("Plant No. 47", "ORG"),
                    ("Ross Dimarzo", "PERSON"), ("Lemon Crossing", "WORK_OF_ART"),
                    ("this year", "DATE")]
    unextended = _pipeline(tmp_path, patterns, titles=False, extend=False, names=False)
    assert [e.text for e in unextended(text).ents][:2] == ["Pelham", "Plant"]


def test_extend_takes_in_the_rest_of_a_capitalised_run_the_ner_cut_short(tmp_path):
    patterns = [{"label": "PERSON", "pattern": "Dorothy"}, {"label": "ORG", "pattern": "Steamer"},
                {"label": "CARDINAL", "pattern": "3"}, {"label": "NORP", "pattern": "Czech"},
                {"label": "ORG", "pattern": "HARBOURMEN"}, {"label": "PERSON", "pattern": "Ann"},
                {"label": "GPE", "pattern": "Wenna"}, {"label": "NORP", "pattern": "Dray"}]
    text = ("Dorothy Ivy Mahon left the Steamer Ghat with 3 Brothers, a Czech Herald, the "
            "Dray Girls School and Ann Wenna; HARBOURMEN CRUISE. Off the Steamer I went")
    ents = [(e.text, e.label_) for e in _pipeline(tmp_path, patterns, titles=False,
                                                 names=False)(text).ents]
    # a number, a people's name and a headline in capitals are not widened, but a "people's
    # name" that writes a name word of the KB is (Dray); Wenna is the NER's; "I" is no name
    assert ents == [("Dorothy Ivy Mahon", "PERSON"), ("Steamer Ghat", "ORG"), ("3", "CARDINAL"),
                    ("Czech", "NORP"), ("Dray Girls School", "NORP"), ("Ann", "PERSON"),
                    ("Wenna", "GPE"), ("HARBOURMEN", "ORG"), ("Steamer", "ORG")]
    unextended = _pipeline(tmp_path, patterns, titles=False, extend=False, names=False)
    assert [e.text for e in unextended(text).ents][:2] == ["Dorothy", "Steamer"]


def test_a_pipeline_saved_before_lowercase_titles_matches_none_so(tmp_path):
    _pipeline(tmp_path, []).to_disk(tmp_path / "pipeline")
    text = "Hollis came to port corrander."
    assert [e.text for e in spacy.load(tmp_path / "pipeline")(text).ents] == [
        "Hollis", "port corrander"]
    (tmp_path / "pipeline" / "longent_mentions" / "lowercase.json").unlink()
    assert [e.text for e in spacy.load(tmp_path / "pipeline")(text).ents] == ["Hollis"]
