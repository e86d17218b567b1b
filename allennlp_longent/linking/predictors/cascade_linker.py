"""Predictor ``cascade_linker``: ``allennlp predict`` with a ``cascade_linker`` archive.

Input: the JSON lines of the ``cross_encoder_linker`` predictor. The cascade retrieves its own
candidates: from ``world`` in ``documents_dir``, or from ``candidates`` when they are documents
``{"document_id", "title", "text"}`` (candidate ids with a world are the world's entities, so
the whole world is searched). Output: ``mention_id``, ``mention``, ``gold_document_id``,
``predicted_document_id`` (``NIL`` when the NIL option is likelier) and ``ranked``: the
candidates best first with every score (:meth:`allennlp_longent.linking.cascade.Cascade.ranked`).
"""

from typing import List

from allennlp.common.util import JsonDict
from allennlp.data import Instance
from allennlp.predictors import Predictor

from allennlp_longent.linking.candidates.generator import MentionQuery
from allennlp_longent.linking.dataset_readers.zeshel_mentions import words_of
from allennlp_longent.modules.json_lines_predictor import JsonLinesPredictor


@Predictor.register("cascade_linker")
class CascadeLinkerPredictor(JsonLinesPredictor):
    def __init__(self, model, dataset_reader, frozen: bool = True,
                 skip_bad_records: bool = False) -> None:
        # Predictor.__init__ reads the device off the model's first parameter; a cascade has
        # none of its own (its parts load on first use), so the device is the one it was given
        model.eval()
        self._model = model
        self._dataset_reader = dataset_reader
        self.cuda_device = model.cuda_device
        self.skip_bad_records = skip_bad_records
        self.records = 0
        self.skipped = 0

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        words = words_of(json_dict.get("context"), json_dict.get("context_words"))
        for field in ("mention_start", "mention_end"):
            if field not in json_dict:
                raise ValueError(f"input is missing the field {field!r}")
        start, end = int(json_dict["mention_start"]), int(json_dict["mention_end"])
        if not 0 <= start <= end < len(words):
            raise ValueError(f"mention_start/mention_end {start}/{end} outside the context's "
                             f"{len(words)} words (inclusive word offsets)")
        candidates = json_dict.get("candidates") or []
        inline = bool(candidates) and all(isinstance(c, dict) for c in candidates)
        if not inline:
            for field in ("world", "documents_dir"):
                if field not in json_dict:
                    raise ValueError("without candidate documents the input needs 'world' and "
                                     f"'documents_dir' ({field} is missing)")
        return self._dataset_reader.text_to_instance(
            MentionQuery(tuple(words), start, end), json_dict.get("world"),
            json_dict.get("documents_dir"), json_dict.get("gold_document_id"),
            json_dict.get("mention_id"), candidates if inline else None)

    def predict_json(self, inputs: JsonDict) -> JsonDict:
        return _summary(inputs, super().predict_json(inputs))

    def predict_batch_json(self, inputs: List[JsonDict]) -> List[JsonDict]:
        outputs = super().predict_batch_json(inputs)
        return [_summary(given, output) for given, output in zip(inputs, outputs)]


def _summary(inputs: JsonDict, output: JsonDict) -> JsonDict:
    return {"mention_id": inputs.get("mention_id"), "mention": output["mention"],
            "gold_document_id": inputs.get("gold_document_id"),
            "predicted_document_id": output["predicted_document_id"],
            "ranked": output["ranked"]}
