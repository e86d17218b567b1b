"""Documents per CPU second of the Re-DocRED recipe's model (training step and inference) with
Long-LUKE's flex and blocked backends and with dense attention, at 512, 2k and 8k word pieces.

``python scripts/benchmarks/benchmark_redocred_throughput.py [--lengths 512 2048 8192]
[--documents 3]``

Model: ``training_configs/relations/redocred_minilm_cpu.jsonnet`` (Long-LUKE from the packaged
MiniLM: hidden 384, 12 heads, 6 layers, window 256; ATLOP head), built from the config with
``max_length`` raised to the measured length and ``attention_dropout`` 0 (flex has none). Weights
are the initial ones: throughput does not depend on them. Backends: ``flex`` and ``blocked``
(``attention_backend``); ``dense`` swaps each layer's attention back to transformers'
``LukeSelfAttention`` with the same weights (full ``(n + m)²`` attention, LUKE itself).

Documents: real Re-DocRED dev documents (``../shared/data/re-docred/dev_revised.json``, from
``--first`` on) concatenated in order (sentences appended, entities and relation labels re-indexed)
until the words reach the length; the reader cuts at ``length`` word pieces and drops the entities
past the cut. ``--max-entities N`` keeps each document's first ``N`` entities (the head's pair
features grow with the square of the entities). One document per batch. Method: one process per
length holds the backends' models (same weights); after one warm-up pass each, ``--documents``
rounds run every backend on the same document in turn (interleaved). Training step = forward, ATLOP
loss, backward, AdamW step. Printed: documents per CPU second (1 / median process CPU seconds per
document, one thread) with the spread, and the flex/dense and flex/blocked ratios.
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

CONFIG = "training_configs/relations/redocred_minilm_cpu.jsonnet"
DATA = "../shared/data/re-docred/dev_revised.json"
BACKENDS = ("flex", "blocked", "dense")
DENSE_MAX = 2048  # dense at 8k pieces: (8k)² scores × 12 heads × 4 B = 3.2 GiB per tensor and layer


def concatenate(documents: list, words: int, first: int) -> tuple:
    """One document of at least ``words`` words from consecutive ``documents`` from ``first``;
    returns it and the index after the last one used."""
    merged = {"title": "", "sents": [], "vertexSet": [], "labels": []}
    index = first
    while sum(len(s) for s in merged["sents"]) < words:
        if index >= len(documents):
            raise ValueError(f"{DATA}: not enough documents for {words} words from {first}")
        doc = documents[index]
        sentences, entities = len(merged["sents"]), len(merged["vertexSet"])
        merged["title"] += ("" if not merged["title"] else " + ") + doc["title"]
        merged["sents"] += doc["sents"]
        merged["vertexSet"] += [[dict(m, sent_id=m["sent_id"] + sentences) for m in entity]
                                for entity in doc["vertexSet"]]
        merged["labels"] += [dict(label, h=label["h"] + entities, t=label["t"] + entities)
                             for label in doc.get("labels", [])]
        index += 1
    return merged, index


def keep_entities(document: dict, limit: Optional[int]) -> dict:
    """The document with its first ``limit`` entities and the labels between them (all if None):
    the head scores every ordered entity pair, so its features grow with the square of the
    entities (about 700 entities at 8k pieces need more memory than the 2-core machine has)."""
    if limit is None or len(document["vertexSet"]) <= limit:
        return document
    labels = [x for x in document["labels"] if x["h"] < limit and x["t"] < limit]
    return dict(document, vertexSet=document["vertexSet"][:limit], labels=labels)


class DenseAttention:
    """transformers' ``LukeSelfAttention`` (dense) behind Long-LUKE's attention interface."""

    @staticmethod
    def swap(encoder) -> None:
        import torch
        from transformers.models.luke.modeling_luke import LukeSelfAttention

        from allennlp_longent.modules.entity_aware_attention import WordEntityMask

        class Adapter(torch.nn.Module):
            def __init__(self, banded):
                super().__init__()
                self.dense = LukeSelfAttention(encoder.luke.config)
                self.dense.load_state_dict(banded.state_dict())
                self.dense.dropout.p = 0.0

            def forward(self, words, entities, mask: WordEntityMask, *args, **kwargs):
                keys = mask.words if entities is None else torch.cat([mask.words, mask.entities], 1)
                additive = (~keys)[:, None, None, :].to(words.dtype) * torch.finfo(words.dtype).min
                return self.dense(words, entities, additive)[:2]

        for layer in encoder.luke.encoder.layer:
            layer.attention.self = Adapter(layer.attention.self)


def build_model(length: int, backend: str):
    import torch
    from allennlp.common import Params
    from allennlp.data import DatasetReader
    from allennlp.models import Model

    overrides = {"dataset_reader.max_length": length, "model.embedder.attention_dropout": 0.0,
                 "model.embedder.attention_backend": "blocked" if backend == "dense" else backend}
    if length > 512:  # the position table is extended past MiniLM's 512
        overrides["model.embedder.max_length"] = length
    params = Params.from_file(CONFIG, params_overrides=json.dumps(overrides))
    reader = DatasetReader.from_params(params.pop("dataset_reader"))
    vocab_params = params.pop("vocabulary")
    vocab_params.pop("type")
    from allennlp_longent.relations.dataset_readers.schema import RelationSchemaVocabulary

    vocab = RelationSchemaVocabulary.from_instances_and_schema([], **vocab_params.as_dict())
    torch.manual_seed(0)  # the same head initialisation for every backend
    model = Model.from_params(vocab=vocab, params=params.pop("model"))
    if backend == "dense":
        DenseAttention.swap(model.embedder.encoder)
    return reader, vocab, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[512, 2048, 8192])
    parser.add_argument("--documents", type=int, default=3, help="timed documents per backend")
    parser.add_argument("--first", type=int, default=0, help="first dev document used")
    parser.add_argument("--max-entities", type=int,
                        help="keep each long document's first N entities (default: all)")
    parser.add_argument("--modes", nargs="+", default=["train", "inference"],
                        choices=["train", "inference"])
    args = parser.parse_args()
    import torch
    from allennlp.common.util import import_module_and_submodules
    from allennlp.data import Batch

    import_module_and_submodules("allennlp_longent")  # registers components, sets config defaults

    torch.set_num_threads(1)
    documents = json.loads(Path(DATA).read_text())
    print(f"{CONFIG}; one thread; documents per CPU second (median over {args.documents} "
          "documents, [min-max]), one document per batch")
    for length in args.lengths:
        backends = [b for b in BACKENDS if b != "dense" or length <= DENSE_MAX]
        models = {b: build_model(length, b) for b in backends}
        start, long_documents = args.first, []
        for _ in range(args.documents + 1):
            doc, start = concatenate(documents, length, start)
            long_documents.append(keep_entities(doc, args.max_entities))
        with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
            json.dump(long_documents, file)
            file.flush()
            reader, vocab, _ = models[backends[0]]
            instances = list(reader.read(file.name))
        for instance in instances:
            instance.index_fields(vocab)
        pieces = [len(i["tokens"]) for i in instances]
        entities = [len(i["metadata"]["entities"]) for i in instances]
        print(f"\n{length} word pieces: documents of {pieces} pieces, {entities} entities")
        for mode in args.modes:
            seconds = {b: [] for b in backends}
            optimizers = {b: torch.optim.AdamW(models[b][2].parameters(), lr=1e-5)
                          for b in backends}
            for number, instance in enumerate(instances):
                for backend in backends:
                    model = models[backend][2]
                    tensors = Batch([instance]).as_tensor_dict()
                    begin = time.process_time()
                    if mode == "train":
                        model.train()
                        model(**tensors)["loss"].backward()
                        optimizers[backend].step()
                        optimizers[backend].zero_grad(set_to_none=True)
                    else:
                        model.eval()
                        with torch.no_grad():
                            model(**tensors)
                    if number:  # the first document warms up (flex compiles)
                        seconds[backend].append(time.process_time() - begin)
            rates = {b: 1 / statistics.median(s) for b, s in seconds.items()}
            for backend, s in seconds.items():
                print(f"  {mode:<10}{backend:<8}{rates[backend]:>7.3f} docs/CPU s "
                      f"[{1 / max(s):.3f}-{1 / min(s):.3f}]  ({statistics.median(s):.2f} CPU s "
                      "per document)", flush=True)
            ratios = [f"flex {rates['flex'] / rates[b]:.2f}x {b}" for b in backends[1:]]
            print(f"  {mode:<10}" + ", ".join(ratios), flush=True)
        del models


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main()
