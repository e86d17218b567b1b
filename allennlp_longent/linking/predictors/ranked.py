"""What both linking predictors print for a mention: the input's ``mention_id`` and
``gold_document_id``, the ``mention``, ``predicted_document_id`` and ``ranked`` (best first)."""

from typing import List

from allennlp.common.util import JsonDict

from allennlp_longent.modules.json_lines_predictor import JsonLinesPredictor


class RankedLinkPredictor(JsonLinesPredictor):
    """A linking predictor whose output is :meth:`summary` of the model's; subclasses say where
    the model's output holds the mention's text."""

    def mention_of(self, output: JsonDict) -> str:
        raise NotImplementedError

    def summary(self, inputs: JsonDict, output: JsonDict) -> JsonDict:
        return {"mention_id": inputs.get("mention_id"), "mention": self.mention_of(output),
                "gold_document_id": inputs.get("gold_document_id"),
                "predicted_document_id": output["predicted_document_id"],
                "ranked": output["ranked"]}

    def predict_json(self, inputs: JsonDict) -> JsonDict:
        return self.summary(inputs, super().predict_json(inputs))

    def predict_batch_json(self, inputs: List[JsonDict]) -> List[JsonDict]:
        outputs = super().predict_batch_json(inputs)
        return [self.summary(given, output) for given, output in zip(inputs, outputs)]
