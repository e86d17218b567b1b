"""Predictor ``cascade_linker``: ``allennlp predict`` with a ``cascade_linker`` archive.

Input: the JSON lines of the ``cross_encoder_linker`` predictor. The cascade retrieves its own
candidates: from ``world`` in ``documents_dir``, or from ``candidates`` when they are documents
``{"document_id", "title", "text"}`` (candidate ids with a world are the world's entities, so
the whole world is searched). Output: ``mention_id``, ``mention``, ``gold_document_id``,
``predicted_document_id`` (``NIL`` when the NIL option is likelier) and ``ranked``: the
candidates best first with every score (:meth:`allennlp_longent.linking.cascade.Cascade.ranked`).
"""

from allennlp.common.util import JsonDict
from allennlp.data import Instance
from allennlp.predictors import Predictor

from allennlp_longent.linking.candidates.generator import MentionQuery
from allennlp_longent.linking.dataset_readers.zeshel_mentions import words_of
from allennlp_longent.linking.predictors.ranked import RankedLinkPredictor


@Predictor.register("cascade_linker")
class CascadeLinkerPredictor(RankedLinkPredictor):
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

    def mention_of(self, output: JsonDict) -> str:
        return output["mention"]
