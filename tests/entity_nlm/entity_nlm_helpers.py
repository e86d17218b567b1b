"""Tiny EntityNLM models and batches built on the fly for the tests."""

from typing import Dict, List, Sequence

import torch
from allennlp.data import Batch, Instance, Vocabulary

from allennlp_longent.entity_nlm.dataset_readers import EntityNlmConllReader
from allennlp_longent.entity_nlm.models import EntityNLM

WORDS = ["mary", "met", "her", "brother", "she", "saw", "him", "."]


def reader() -> EntityNlmConllReader:
    return EntityNlmConllReader(singletons=True)


def tiny_model(dim: int = 4, seed: int = 0, **kwargs) -> EntityNLM:
    vocab = Vocabulary()
    vocab.add_tokens_to_namespace(WORDS, "tokens")
    torch.manual_seed(seed)
    model = EntityNLM(vocab, embedding_dim=dim, hidden_dim=dim, **kwargs)
    for parameter in model.parameters():  # larger than the default init so every term matters
        torch.nn.init.normal_(parameter, std=0.5)
    return model.eval()


def instances(docs: Sequence[Dict]) -> List[Instance]:
    return [reader().text_to_instance(d["tokens"], d.get("clusters", [])) for d in docs]


def batch(model: EntityNLM, docs: Sequence[Dict]) -> Dict:
    items = instances(docs)
    data = Batch(items)
    data.index_instances(model.vocab)
    return data.as_tensor_dict()
