"""Predictor for the zero-shot linker.

Input, one JSON object per line::

    {"context": "whitespace tokenized text ...",      # or "context_words": [...]
     "mention_start": 12, "mention_end": 13,          # inclusive word offsets of the mention
     "candidates": ["DOC_ID", ...],                   # ids in <documents_dir>/<world>.json ...
     "world": "starwars", "documents_dir": "path/to/documents",
     "mention_id": "optional id", "gold_document_id": "optional, for reference"}

``candidates`` may instead hold documents ``{"document_id", "title", "text"}``, which needs no
``world``/``documents_dir``. Output: the input's ``mention_id`` and ``mention``,
``predicted_document_id``, and ``ranked``: ``[{"document_id", "title", "score", "probability"}]``
best first.
"""

from typing import Dict, List

from allennlp.common.util import JsonDict
from allennlp.data import Instance
from allennlp.predictors import Predictor

from allennlp_longent.linking.documents import Document, WorldDocuments
from allennlp_longent.linking.predictors.ranked import RankedLinkPredictor


@Predictor.register("cross_encoder_linker")
class CrossEncoderLinkerPredictor(RankedLinkPredictor):
    def __init__(self, model, dataset_reader, frozen: bool = True,
                 skip_bad_records: bool = False) -> None:
        super().__init__(model, dataset_reader, frozen, skip_bad_records)
        self._documents: Dict[str, WorldDocuments] = {}

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        if "context_words" in json_dict:
            words = list(json_dict["context_words"])
        elif "context" in json_dict:
            words = json_dict["context"].split()
        else:
            raise ValueError("input needs 'context' (text) or 'context_words' (list of words)")
        for field in ("mention_start", "mention_end", "candidates"):
            if field not in json_dict:
                raise ValueError(f"input is missing the field {field!r}")
        return self._dataset_reader.text_to_instance(
            words,
            int(json_dict["mention_start"]),
            int(json_dict["mention_end"]),
            self._candidates(json_dict),
            gold_document_id=json_dict.get("gold_document_id"),
            world=json_dict.get("world"),
            mention_id=json_dict.get("mention_id"),
        )

    def _candidates(self, json_dict: JsonDict) -> List[Document]:
        candidates = json_dict["candidates"]
        if all(isinstance(candidate, dict) for candidate in candidates):
            return candidates
        for field in ("world", "documents_dir"):
            if field not in json_dict:
                raise ValueError(
                    f"candidate ids need the fields 'world' and 'documents_dir' ({field})"
                )
        store = self._documents.setdefault(
            json_dict["documents_dir"], WorldDocuments(json_dict["documents_dir"])
        )
        world = store.world(json_dict["world"])
        missing = [doc_id for doc_id in candidates if doc_id not in world]
        if missing:
            raise ValueError(f"candidates {missing} not in {store.path(json_dict['world'])}")
        return [world[doc_id] for doc_id in candidates]

    def mention_of(self, output: JsonDict) -> str:
        return output["metadata"]["mention"]
