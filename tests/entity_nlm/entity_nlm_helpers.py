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


def recompute_validation_metrics(archive: str) -> Dict[str, float]:
    """Validation perplexity, word perplexity and (with targets) entity_acc of an archived model,
    summed here from its per-document outputs on the config's validation data: a second
    aggregation, independent of the metric classes."""
    import math

    from allennlp.models.archival import load_archive

    loaded = load_archive(archive)
    reader = loaded.validation_dataset_reader
    items = list(reader.read(loaded.config["validation_data_path"]))
    log_p = words = tokens = right = targets = 0.0
    for instance, out in zip(items, loaded.model.eval().forward_on_instances(items)):
        log_p += float(out["log_likelihood"])
        words += float(out["word"])
        tokens += len(instance["tokens"])
        if "targets" in out:
            at = torch.as_tensor(out["targets"]).bool()
            gold, predicted = torch.as_tensor(out["entity_ids"]), out["predicted_entities"]
            right += int((torch.as_tensor(predicted) == gold)[at].sum())
            targets += int(at.sum())
    metrics = {"perplexity": math.exp(-log_p / tokens), "word_ppl": math.exp(-words / tokens)}
    if targets:
        metrics["entity_acc"] = right / targets
    return metrics
