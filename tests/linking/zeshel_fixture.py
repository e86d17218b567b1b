"""The zeshel-format fixture of ``fixtures/linking/zeshel`` and a model built on it from a test
experiment, shared by the cross-encoder and bi-encoder tests."""

import json
from pathlib import Path
from typing import List

import pytest
import torch
from allennlp.common import Params
from allennlp.data import Batch, DatasetReader, Vocabulary
from allennlp.models import Model
from conftest import FIXTURES

ZESHEL = FIXTURES / "linking" / "zeshel"
TRAIN = ZESHEL / "mentions" / "train.json"


def fixture_words() -> List[str]:
    """Every word of the fixture documents, for a tiny BERT vocabulary."""
    words = {"a", "b"}  # AllenNLP's tokenizer verifies special tokens with "a" and "b"
    for path in (ZESHEL / "documents").glob("*.json"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            words.update(record["text"].split() + record["title"].split())
    return sorted(words)


def experiment_params(experiment: Path, bert: Path):
    """The experiment's Params with its ext vars pointing at ``bert`` and the fixture."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LONGENT_TEST_BERT", str(bert))
        patch.setenv("LONGENT_TEST_ZESHEL", str(ZESHEL))
        yield Params.from_file(str(experiment))


def model_and_batch(params: Params, reader_key: str) -> tuple:
    """(model in eval mode, tensor batch of the six fixture mentions, their instances)."""
    params = params.duplicate()
    reader = DatasetReader.from_params(params[reader_key])
    instances = list(reader.read(TRAIN))
    vocab = Vocabulary()
    torch.manual_seed(1)
    model = Model.from_params(vocab=vocab, params=params["model"])
    model.eval()
    batch = Batch(instances)
    batch.index_instances(vocab)
    return model, batch.as_tensor_dict(), instances
