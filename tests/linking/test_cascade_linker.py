"""The cascade as AllenNLP components: model ``context_evidence`` (the first stage, trained by
``allennlp train``), model ``cascade_linker`` and its predictor, reader ``zeshel_mentions``, and
the one-archive spaCy configuration."""

import json
import tarfile

import pytest
import spacy
from allennlp.common.testing import ModelTestCase
from conftest import write_tiny_sentence_encoder
from tiny_linker import (
    KB_FIXTURES,
    PARAGRAPH,
    RULER_PATTERNS,
    ZESHEL_FIXTURE,
    _vocabulary_texts,
    _words,
    build_tiny_linker,
    cascade_of,
)

import allennlp_longent.registered  # noqa: F401
from allennlp_longent.linking.cascade import CascadeSettings
from allennlp_longent.linking.dataset_readers.zeshel_mentions import ZeshelMentionsReader
from allennlp_longent.linking.models.cascade_linker import write_cascade_archive

TRAIN = ZESHEL_FIXTURE / "mentions" / "train.json"


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    return write_tiny_sentence_encoder(tmp_path_factory.mktemp("encoder") / "st",
                                       _words(_vocabulary_texts()))


@pytest.fixture(scope="session")
def linker_files(tmp_path_factory):
    return build_tiny_linker(tmp_path_factory.getbasetemp() / "tiny_linker")


class TestFirstStage(ModelTestCase):
    def test_trains_saves_and_loads(self, tmp_path, encoder):
        config = {
            "dataset_reader": {"type": "zeshel_mentions"},
            "train_data_path": str(TRAIN),
            "validation_data_path": str(TRAIN),
            "model": {"type": "context_evidence", "encoder": str(encoder), "top_k": 4},
            "data_loader": {"batch_size": 3},
            "trainer": {"num_epochs": 2, "optimizer": {"type": "adam", "lr": 0.1},
                        "cuda_device": -1},
        }
        (tmp_path / "config.json").write_text(json.dumps(config))
        self.set_up_model(tmp_path / "config.json", TRAIN)
        self.ensure_model_can_train_save_and_load(tmp_path / "config.json",
                                                  gradients_to_ignore=set())


def test_reader_reads_queries_and_names_bad_lines(tmp_path):
    reader = ZeshelMentionsReader()
    [first, *_] = [i["mention"].metadata for i in reader.read(TRAIN)]
    assert first["query"].mention == "Mara Quill" and first["gold"] == "D_MARA"
    assert first["documents_dir"].endswith("zeshel/documents") and first["world"] == "islands"
    with pytest.raises(ValueError, match=r"bad_offsets.json:\d+: mention offsets"):
        list(reader.read(ZESHEL_FIXTURE / "mentions" / "bad_offsets.json"))


def test_fit_trainer_matches_evidence_fit_and_the_archive_ranks(tmp_path, encoder):
    """``allennlp train`` with trainer ``context_evidence_fit`` holds the weights
    :func:`evidence.fit` finds on the same feature rows, computed here apart."""
    import numpy as np
    from allennlp.commands.train import train_model
    from allennlp.common import Params
    from allennlp.models.archival import load_archive

    from allennlp_longent.linking.cascade import Cascade
    from allennlp_longent.linking.evidence import EvidenceSettings, fit
    from allennlp_longent.linking.world_index import WorldIndexes

    config = {"dataset_reader": {"type": "zeshel_mentions"}, "train_data_path": str(TRAIN),
              "model": {"type": "context_evidence", "encoder": str(encoder), "top_k": 4},
              "data_loader": {"batch_size": 2}, "trainer": {"type": "context_evidence_fit"}}
    train_model(Params(config), tmp_path / "run")
    model = load_archive(str(tmp_path / "run" / "model.tar.gz")).model
    mentions = [i["mention"].metadata for i in ZeshelMentionsReader().read(TRAIN)]
    indexes = WorldIndexes(ZESHEL_FIXTURE / "documents")
    rows, golds = [], []
    settings = CascadeSettings(top_k=4, evidence=EvidenceSettings(str(encoder)).to_dict())
    for mention in mentions:
        cascade = Cascade(indexes.kb(mention["world"]), None, settings)
        [(entities, found)] = cascade.features([mention["query"]])
        ids = [e.id for e in entities]
        rows.append(found)
        golds.append(ids.index(mention["gold"]) if mention["gold"] in ids else -1)
    expected = fit(rows, golds, EvidenceSettings(str(encoder)))
    got = model.settings()
    np.testing.assert_allclose([got.weights[f] for f in expected.weights],
                               list(expected.weights.values()), atol=1e-4)
    ranked = model([mentions[0]])["ranked"][0]
    assert {i for i, _ in ranked} == {e.id for e in Cascade(
        indexes.kb("islands"), None, settings).features([mentions[0]["query"]])[0][0]}


def test_a_first_stage_fitted_before_a_feature_was_added_loads_with_it_at_weight_0(encoder):
    import torch
    from allennlp.data import Vocabulary

    from allennlp_longent.linking.evidence import FEATURES
    from allennlp_longent.linking.models.first_stage import ContextEvidenceFirstStage

    old = len(FEATURES) - 1
    model = ContextEvidenceFirstStage(Vocabulary(), encoder=str(encoder))
    model.load_state_dict({"weights": torch.arange(1.0, old + 1, dtype=torch.float64),
                           "scales": torch.tensor([[2.0, 3.0]] * old, dtype=torch.float64)})
    settings = model.settings()
    assert [settings.weights[f] for f in FEATURES] == [*range(1, old + 1), 0.0]
    assert settings.scales[FEATURES[-1]] == [0.0, 1.0] and settings.scales[FEATURES[0]] == [2, 3]


def test_spacy_takes_one_archive_and_refuses_the_old_keys(linker_files):
    archive, kb = linker_files
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
    with pytest.raises(ValueError, match="replaced by 'model'.*longent calibrate"):
        nlp.add_pipe("longent_linker", config={"archive": str(archive), "kb": str(kb)})
    nlp.add_pipe("longent_linker", name="cross", config={"model": str(archive), "kb": str(kb)})
    with pytest.raises(ValueError, match="not a cascade_linker"):
        nlp(PARAGRAPH)


def test_weight_zero_never_loads_the_cross_encoder(linker_files, tmp_path):
    """A cascade archive whose cross-encoder is not even an archive links when its weight is 0
    (so the cross-encoder is never opened) and fails at once when its weight is above 0."""
    _, kb = linker_files
    broken = tmp_path / "not_an_archive.tar.gz"
    broken.write_text("not a tar file")

    def pipeline(weight):
        path = write_cascade_archive(tmp_path / f"w{weight}.tar.gz",
                                     CascadeSettings(weight=weight), str(broken))
        with tarfile.open(path) as packed:
            assert "cross_encoder.tar.gz" in packed.getnames()
        nlp = spacy.blank("en")
        nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
        nlp.add_pipe("longent_linker", config={"model": str(path), "kb": str(kb)})
        return nlp

    doc = pipeline(0.0)(PARAGRAPH)
    # the fixture KB has no Tollan Ferry: no candidate, so that span alone is NIL
    assert {e.text for e in doc.ents if e._.longent_status == "linked"} == {
        "Mara Quill", "Grey Sea", "Arbor Lighthouse", "Vell Island"}
    assert all(c["rerank_score"] is None for e in doc.ents for c in e._.longent_candidates)
    with pytest.raises(Exception, match="not_an_archive|cross_encoder|tar"):
        pipeline(0.5)(PARAGRAPH)


def test_predictor_and_evaluate_on_the_fixture_worlds(linker_files, tmp_path):
    """``allennlp predict`` and ``allennlp evaluate`` with a cascade archive; BM25@1 is counted
    here from the knowledge base's own ranking."""
    from allennlp.commands import main as allennlp_main

    from allennlp_longent.linking.world_index import WorldIndexes, read_mentions

    archive = cascade_of(linker_files[0])
    lines = [json.loads(line) for line in (KB_FIXTURES.parent / "examples" / "mentions.jsonl")
             .read_text().splitlines() if line.strip()]
    import sys

    out = tmp_path / "predicted.jsonl"
    sys.argv = ["allennlp", "predict", archive, str(KB_FIXTURES.parent / "examples" /
                "mentions.jsonl"), "--predictor", "cascade_linker", "--output-file", str(out),
                "--include-package", "allennlp_longent", "--silent"]
    allennlp_main()
    predicted = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["mention_id"] for p in predicted] == [line["mention_id"] for line in lines]
    for p in predicted:
        assert p["predicted_document_id"] == p["ranked"][0]["id"]
    metrics_file = tmp_path / "metrics.json"
    sys.argv = ["allennlp", "evaluate", archive, str(TRAIN), "--output-file", str(metrics_file),
                "--include-package", "allennlp_longent", "--overrides", json.dumps(
                    {"model.baselines": ["bm25"],
                     "validation_dataset_reader.documents_dir": str(ZESHEL_FIXTURE /
                                                                    "documents")})]
    allennlp_main()
    metrics = json.loads(metrics_file.read_text())
    indexes = WorldIndexes(ZESHEL_FIXTURE / "documents")
    mentions = read_mentions(TRAIN, indexes.documents)
    bm25 = sum(indexes.kb(m["corpus"]).candidates([m["query"]], 1)[0][0][0].id
               == m["label_document_id"] for m in mentions)
    assert metrics["mentions"] == len(mentions) == 3
    assert metrics["bm25_right"] == bm25
    sizes = {w: len((ZESHEL_FIXTURE / "documents" / f"{w}.json").read_text().split("\n")) - 1
             for w in ("islands", "rivers")}
    assert metrics["chance"] == pytest.approx(
        sum(1 / sizes[m["corpus"]] for m in mentions) / len(mentions))
    assert 0 <= metrics["cascade_right"] <= 3 and "cross_encoder_right" in metrics


def test_weight_override_links_with_the_first_stage_alone(linker_files, tmp_path):
    """``weight: 0`` in the component's config (what ``longent freetext`` uses for the first-stage
    row) links with an archive whose cross-encoder is broken and whose calibrated weight is 0.5:
    the cross-encoder is never opened and no span gets a re-ranker score."""
    _, kb = linker_files
    broken = tmp_path / "not_an_archive.tar.gz"
    broken.write_text("not a tar file")
    path = write_cascade_archive(tmp_path / "w.tar.gz", CascadeSettings(weight=0.5), str(broken))
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
    nlp.add_pipe("longent_linker", config={"model": str(path), "kb": str(kb), "weight": 0.0})
    doc = nlp(PARAGRAPH)
    assert {e.text for e in doc.ents if e._.longent_status == "linked"} == {
        "Mara Quill", "Grey Sea", "Arbor Lighthouse", "Vell Island"}
    assert all(c["rerank_score"] is None for e in doc.ents for c in e._.longent_candidates)
    with pytest.raises(ValueError, match=r"weight=1\.5 must be in \[0, 1\]"):
        spacy.blank("en").add_pipe("longent_linker", config={"kb": str(kb), "weight": 1.5})


def test_the_free_text_weight_is_the_components_unless_a_weight_is_configured(linker_files,
                                                                                tmp_path):
    """An archive calibrated with ``--text-dev`` to λ = 0 for free text links through spaCy
    without opening its (broken) cross-encoder although its λ for zeshel mentions is 0.5; a
    ``weight`` in the component's config overrides both."""
    _, kb = linker_files
    broken = tmp_path / "not_an_archive.tar.gz"
    broken.write_text("not a tar file")
    path = write_cascade_archive(tmp_path / "w.tar.gz",
                                 CascadeSettings(weight=0.5, text_weight=0.0), str(broken))

    def pipeline(**config):
        nlp = spacy.blank("en")
        nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
        nlp.add_pipe("longent_linker", config={"model": str(path), "kb": str(kb), **config})
        return nlp

    doc = pipeline()(PARAGRAPH)
    assert {e.text for e in doc.ents if e._.longent_status == "linked"} == {
        "Mara Quill", "Grey Sea", "Arbor Lighthouse", "Vell Island"}
    assert all(c["rerank_score"] is None for e in doc.ents for c in e._.longent_candidates)
    with pytest.raises(Exception, match="not_an_archive|cross_encoder|tar"):
        pipeline(weight=0.5)(PARAGRAPH)


def test_the_free_text_sweep_links_as_the_component_does_at_each_setting(linker_files, tmp_path):
    """``outcomes_by_weight`` (what ``longent calibrate --text-dev`` chooses λ and the NIL option
    on) gives, at each weight, with and without the NIL option, the outcomes of a spaCy component
    configured with that weight and an archive whose ``text_nil`` says the same, with the
    cross-encoder run once per mention."""
    from allennlp_longent.linking.cascade import CascadeSettings
    from allennlp_longent.linking.freetext import (
        evaluate,
        longent_linker,
        outcomes_by_weight,
        read_set,
        save_kb,
    )
    from allennlp_longent.linking.models.cascade_linker import write_cascade_archive

    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "kb.jsonl").write_text((KB_FIXTURES / "entities.jsonl").read_text())
    ids = {"Mara Quill": "Q_MARA", "Grey Sea": "Q_GREY", "Arbor Lighthouse": "Q_ARBOR",
           "Tollan Ferry": "NIL", "Vell Island": "Q_VELL"}
    spans, at = [], 0
    for name, kb_id in list(ids.items()) + [("Mara Quill", "Q_MARA")]:
        at = PARAGRAPH.index(name, at)
        spans.append({"start_char": at, "end_char": at + len(name), "label": "PERSON",
                      "kb_id": kb_id})
        at += len(name)
    (folder / "paragraphs.jsonl").write_text(json.dumps({"text": PARAGRAPH, "entities": spans}))
    data = read_set(folder)
    # a NIL option scored high enough to take some spans, and the same archive without it
    archives = {nil: str(write_cascade_archive(
        tmp_path / f"nil_{nil}.tar.gz",
        CascadeSettings(nil_score=1.0, text_nil=None if nil else False), str(linker_files[0])))
        for nil in (True, False)}
    outcomes = outcomes_by_weight([data], archives[True], (0.0, 0.5, 1.0), tmp_path / "scratch",
                                  (True, False))
    assert sorted(outcomes) == [(w, nil) for w in (0.0, 0.5, 1.0) for nil in (False, True)]
    kb = save_kb(data.entities, tmp_path / "kb")
    for (weight, nil), right in outcomes.items():
        # the archive's choice, and the component's nil_option overriding the other archive's;
        # the set's labels are hand-set, as the sweep reads them
        for linker in (longent_linker(kb, archives[nil], weight=weight, labels="annotated"),
                       longent_linker(kb, archives[not nil], weight=weight, nil_option=nil,
                                      labels="annotated")):
            found = evaluate(data, {"w": linker})["w"][2]
            assert right == [f == g for f, g in zip(found, data.gold())]
        assert len(right) == 6
    assert any(outcomes[w, True] != outcomes[w, False] for w in (0.0, 0.5, 1.0))
    # "with the NIL option" is the calibrated option even where the archive drops it for free text
    assert outcomes_by_weight([data], archives[False], (0.0, 1.0), tmp_path / "scratch2",
                              (True, False)) == {k: v for k, v in outcomes.items() if k[0] != 0.5}


@pytest.mark.parametrize("fixed, broken, kept", [(5, 0, True), (4, 0, False), (7, 1, True),
                                                 (6, 1, False),
                                                 (3, 3, False), (0, 5, False)])
def test_free_text_keeps_the_nil_option_only_when_a_sign_test_says_it_helps(fixed, broken,
                                                                              kept):
    from allennlp_longent.linking.cascade import choose_text_nil

    # one-sided binomial tail by hand: 5 of 5 -> 1/32, 4 of 4 -> 1/16, 7 of 8 -> 9/256,
    # 6 of 7 -> 8/128; kept below 0.05
    with_nil = [True] * fixed + [False] * broken + [True, False]
    without = [False] * fixed + [True] * broken + [True, False]
    keep, seen = choose_text_nil(with_nil, without)
    assert keep is kept
    assert (seen["fixed"], seen["broken"]) == (fixed, broken)
