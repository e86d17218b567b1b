"""Predictor for the entity-typing models.

Input: one JSON object per line in the format of the archive's dataset reader, labels optional:
``{"sent", "start", "end"}`` (open_entity), ``{"tokens", "mentions": [{"start", "end"}]}`` (figer)
or a DocRED document ``{"title", "sents", "vertexSet"}`` (docred_entity_typing).
Output: ``{"entities": [{"entity": index in the input, "mentions": [text], "labels": [predicted
types], "probabilities": {type: p}}]}`` for every entity the input holds (one per FIGER mention).
"""

from typing import Any, Dict, List

from allennlp.common.util import JsonDict
from allennlp.data import Instance
from allennlp.predictors import Predictor

from allennlp_longent.modules.json_lines_predictor import JsonLinesPredictor


@Predictor.register("entity_typing")
class EntityTypingPredictor(JsonLinesPredictor):
    def _instances(self, inputs: JsonDict) -> List[Instance]:
        instances = self._dataset_reader.record_to_instances(inputs, "input")
        if not instances:
            raise ValueError("input: every entity was past the word-piece limit")
        return instances

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        instances = self._instances(json_dict)
        if len(instances) != 1:
            raise ValueError(f"input: expected one instance, got {len(instances)}")
        return instances[0]

    def predict_json(self, inputs: JsonDict) -> JsonDict:
        outputs = self._model.forward_on_instances(self._instances(inputs))
        return {"entities": [entity for output in outputs for entity in output["entities"]]}

    def predict_batch_json(self, inputs: List[JsonDict]) -> List[Dict[str, Any]]:
        return [self.predict_json(record) for record in inputs]
