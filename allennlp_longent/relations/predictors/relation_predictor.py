"""Predictor for the relation models (``luke_relation_classifier`` and ``luke_docred``).

Input: one JSON object per line in the format of the archive's dataset reader, labels optional:
a TACRED record ``{"token", "subj_start", "subj_end", "obj_start", "obj_end"}`` (inclusive word
offsets) or a DocRED document ``{"title", "sents", "vertexSet"}``.
Output: TACRED ``{"relation": label, "probabilities": {label: p}}``; DocRED ``{"title",
"relations": [{"title", "h_idx", "t_idx", "r", "score"}]}`` (vertexSet indices, the official
submission layout; ``score`` is the logit margin over the threshold class).
"""

from typing import Any, Dict, List

from allennlp.common.util import JsonDict
from allennlp.data import Instance
from allennlp.predictors import Predictor

from allennlp_longent.modules.json_lines_predictor import JsonLinesPredictor


@Predictor.register("relation_extraction")
class RelationExtractionPredictor(JsonLinesPredictor):
    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        instances = self._dataset_reader.record_to_instances(json_dict, "input")
        if len(instances) != 1:
            raise ValueError(
                "input: no instance left (entities past the word-piece limit, or a document "
                "with fewer than two entities)"
            )
        return instances[0]

    def predict_json(self, inputs: JsonDict) -> JsonDict:
        return self.predict_instance(self._json_to_instance(inputs))["prediction"]

    def predict_batch_json(self, inputs: List[JsonDict]) -> List[Dict[str, Any]]:
        outputs = self.predict_batch_instance([self._json_to_instance(i) for i in inputs])
        return [output["prediction"] for output in outputs]
