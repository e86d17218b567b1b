"""The spaCy entity_linker peer: aliases, candidate look-up and a tiny training run."""

import random

import numpy as np
import spacy

from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.spacy_peer import (
    COMPONENT,
    aliases,
    build_kb,
    candidates_of,
    link,
    new_pipeline,
    seeded_ties,
    span_keys,
    train,
    use_kb,
    word_doc,
)

ENTITIES = [Entity("person", "Edda Ambrell", "An inventor of lamps."),
            Entity("ship", "Edda Ambrell (ship)", "A schooner."),
            Entity("town", "Port Ambrell", "A harbour town.")]
VECTORS = np.eye(3, 4, dtype=np.float32)


def test_aliases_and_keys():
    assert aliases("Edda Ambrell (ship)") == {"edda ambrell (ship)", "edda ambrell", "edda",
                                              "ambrell"}
    assert span_keys("Dr Kell's") == ["kell"]
    assert span_keys("the Tin Lantern") == ["tin lantern", "tin", "lantern"]


def test_candidates_whole_alias_first_then_words():
    kb = build_kb(spacy.blank("en").vocab, ENTITIES, VECTORS)
    doc = spacy.blank("en")("Edda Ambrell met Ambrell in Port Ambrell and Mara Ambrell")

    def found(start, end):
        return sorted(c.entity_ for c in candidates_of(kb, doc[start:end]))

    assert found(0, 2) == ["person", "ship"]  # the alias "edda ambrell": the two Eddas
    assert found(3, 4) == ["person", "ship", "town"]  # a surname names everyone bearing it
    assert found(5, 7) == ["town"]
    assert found(8, 10) == ["person", "ship", "town"]  # no "mara ambrell": each word's
    prior = {c.entity_: c.prior_prob for c in candidates_of(kb, doc[0:2])}
    assert prior == {"person": 0.5, "ship": 0.5}


def test_training_runs_and_links_to_a_candidate():
    nlp = new_pipeline(4)
    kb = build_kb(nlp.vocab, ENTITIES, VECTORS)
    words = "Edda Ambrell sailed from Port Ambrell . Edda Ambrell invented lamps .".split()
    docs = [word_doc(nlp, words, [(0, 1, "ship"), (4, 5, "town"), (7, 8, "person")])]
    losses = train(nlp, kb, docs, epochs=2)
    assert len(losses) == 2 and all(np.isfinite(losses))
    use_kb(nlp, kb)
    doc = word_doc(nlp, words, [(0, 1, ""), (4, 5, "")])
    linked = nlp.get_pipe(COMPONENT)(doc)
    assert [e.kb_id_ in {"person", "ship"} for e in linked.ents][:1] == [True]
    assert linked.ents[1].kb_id_ == "town"  # its only candidate


def test_ties_go_the_same_way_in_every_run():
    """Two entities with one vector and one alias tie on every span; spaCy shuffles candidates
    before scoring, so only a seeded draw links the same docs the same way twice."""
    twins = [Entity("a", "Orm Valley", "A valley."), Entity("b", "Orm Valley (farm)", "A farm.")]
    nlp = new_pipeline(4)
    kb = build_kb(nlp.vocab, twins, np.ones((2, 4), dtype=np.float32))
    words = "Orm came to Orm and left Orm for Orm .".split()
    spans = [(i, i, "") for i in (0, 3, 6, 8)]
    train(nlp, kb, [word_doc(nlp, words, [(i, i, "a") for i in (0, 3, 6, 8)])], epochs=1)
    use_kb(nlp, kb)
    runs = [[e.kb_id_ for e in link(nlp, [word_doc(nlp, words, spans)] * 5)[0].ents]
            for _ in range(6)]
    assert all(run == runs[0] for run in runs)
    plain = {tuple(e.kb_id_ for d in nlp.get_pipe(COMPONENT).pipe([word_doc(nlp, words, spans)] * 5)
                   for e in d.ents) for _ in range(6)}
    assert len(plain) > 1  # without the seed the same docs are linked differently
    state = random.getstate()
    with seeded_ties():
        random.random()
    assert random.getstate() == state
