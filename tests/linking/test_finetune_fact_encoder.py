"""The fact-encoder experiment reads mentions and pages as the first stage's ``fact`` feature does:
the same sentences, the same vectors (tokenisation and pooling of the packaged MiniLM), and its
loss falls when it trains on a mention."""

import json

import numpy as np
import pytest
import torch
from conftest import load_script

from allennlp_longent.linking.dense_encoder import DenseEncoder
from allennlp_longent.linking.evidence import description_sentences, nearby_sentences

CONTEXT = "The harbour was quiet . Vell rowed the mail boat across the sound at dawn . It rained ."
PAGES = {"A": ("Anna Vell", "Anna Vell carried the post by boat . She was born in Korr ."),
         "B": ("Anna Vell (painter)", "Anna Vell painted the sound . Her pictures hang in Korr ."),
         "C": ("Vell House", "Vell House is a museum . It stands by the quay .")}


@pytest.fixture()
def world(tmp_path):
    for sub in ("documents", "mentions", "first_stage_candidates"):
        (tmp_path / sub).mkdir()
    docs = [{"document_id": i, "title": t, "text": x} for i, (t, x) in PAGES.items()]
    docs.append({"document_id": "ctx", "title": "ctx", "text": CONTEXT})
    (tmp_path / "documents" / "docred_0001.json").write_text(  # the mention's world
        "".join(json.dumps(d) + "\n" for d in docs))
    mention = {"mention_id": "m1", "context_document_id": "ctx", "corpus": "docred_0001",
               "start_index": 5, "end_index": 5, "text": "Vell", "label_document_id": "A"}
    nil = {**mention, "mention_id": "m2", "label_document_id": "Z"}  # gold not listed: skipped
    (tmp_path / "mentions" / "train.json").write_text(
        json.dumps(mention) + "\n" + json.dumps(nil) + "\n")
    (tmp_path / "first_stage_candidates" / "train.json").write_text(
        "".join(json.dumps({"mention_id": m, "tfidf_candidates": ["B", "A", "C"]}) + "\n"
                for m in ("m1", "m2")))
    return tmp_path


def test_items_hold_the_sentences_the_fact_feature_reads(world):
    script = load_script("finetune_fact_encoder")
    [(near, pages, gold)] = script.load_items(world)
    assert near == nearby_sentences(CONTEXT.split(), 5, 5, 48)
    assert near[1] == "rowed the mail boat across the sound at dawn ."
    assert pages[1] == description_sentences(PAGES["A"][1], "Anna Vell")
    assert gold == 1
    assert script.load_items(world, corpus_prefix="other") == []


def test_scores_are_the_first_stage_encoders_cosines_and_training_lowers_the_loss(world):
    from transformers import AutoModel, AutoTokenizer

    from allennlp_longent.config_defaults import packaged_minilm

    script = load_script("finetune_fact_encoder")
    [item] = script.load_items(world)
    tokenizer = AutoTokenizer.from_pretrained(packaged_minilm())
    model = AutoModel.from_pretrained(packaged_minilm()).eval()
    with torch.no_grad():
        scores = script.fact_scores(model, tokenizer, item).numpy()
    encoder = DenseEncoder.load("packaged_minilm", 256)
    near = encoder.texts(item[0])
    expected = [(near @ encoder.texts(page).T).max() for page in item[1]]
    np.testing.assert_allclose(scores, expected, atol=1e-4)

    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(2):
        logits = 20 * script.fact_scores(model, tokenizer, item)
        loss = torch.nn.functional.cross_entropy(logits[None], torch.tensor([item[2]]))
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    assert losses[1] < losses[0]
