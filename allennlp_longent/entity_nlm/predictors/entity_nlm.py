"""Predictor for EntityNLM: entity prediction (§5.3) and coreference scoring/re-ranking (§5.2)."""

import math
from typing import Any, Dict, List, Sequence

from allennlp.common.util import JsonDict, sanitize
from allennlp.data import Instance
from allennlp.predictors import Predictor

from allennlp_longent.entity_nlm.dataset_readers.base import EntityNlmReader
from allennlp_longent.entity_nlm.structure import StructureError
from allennlp_longent.modules.json_lines_predictor import JsonLinesPredictor

Clusters = Sequence[Sequence[Sequence[int]]]


@Predictor.register("entity_nlm")
class EntityNlmPredictor(JsonLinesPredictor):
    """JSON in: ``{"tokens": [str], "clusters": [[[start, end], ...], ...],
    "candidates": [clusters, ...]}`` with inclusive token spans; ``clusters`` defaults to none and
    ``candidates`` (a k-best list of alternative structures) is optional.

    JSON out: ``log_likelihood`` (log p(X, R, E, L) of the given clusters), ``perplexity``,
    ``mentions``: one entry per mention start ``{start, end, gold_entity, predicted_entity,
    most_recent_entity, new_entity}`` (entities numbered in order of first mention; ``new_entity``
    is the number a new entity would get; predictions use the left context only), and with
    candidates ``candidate_log_likelihoods`` and ``ranking`` (candidate indices, best first).
    """

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        if "tokens" not in json_dict:
            raise StructureError("input JSON needs a 'tokens' field (a list of words)")
        reader: EntityNlmReader = self._dataset_reader  # type: ignore[assignment]
        return reader.text_to_instance(json_dict["tokens"], json_dict.get("clusters", []))

    def predict_json(self, inputs: JsonDict) -> JsonDict:
        output = self.predict_instance(self._json_to_instance(inputs))
        candidates = inputs.get("candidates")
        if candidates:
            scores = self.score_structures(inputs["tokens"], candidates)
            output["candidate_log_likelihoods"] = scores
            output["ranking"] = sorted(range(len(scores)), key=lambda i: -scores[i])
        return output

    def predict_instance(self, instance: Instance) -> JsonDict:
        raw = self._model.forward_on_instance(instance)
        return sanitize(_readable(raw, len(instance["tokens"])))

    def score_structures(self, tokens: List[str], candidates: Sequence[Clusters]) -> List[float]:
        """log p(X, R, E, L) of each candidate structure of one document (§5.2 re-ranking)."""
        reader: EntityNlmReader = self._dataset_reader  # type: ignore[assignment]
        instances = [reader.text_to_instance(tokens, clusters) for clusters in candidates]
        outputs = self._model.forward_on_instances(instances)
        return [float(out["log_likelihood"]) for out in outputs]


def _readable(raw: Dict[str, Any], num_tokens: int) -> Dict[str, Any]:
    starts = raw["mention_starts"][:num_tokens]
    words = raw["metadata"]["words"]
    gold, lengths = raw["entity_ids"], raw["mention_lengths"]
    mentions = []
    for t in [i for i, s in enumerate(starts) if s]:
        end = t + int(lengths[t]) - 1
        mentions.append({
            "start": t,
            "end": end,
            "text": " ".join(words[t : end + 1]),
            "gold_entity": int(gold[t]),
            "predicted_entity": int(raw["predicted_entities"][t]),
            "most_recent_entity": int(raw["most_recent"][t]),
            "new_entity": int(raw["new_entity"][t]),
        })
    log_likelihood = float(raw["log_likelihood"])
    return {
        "log_likelihood": log_likelihood,
        "perplexity": math.exp(-log_likelihood / num_tokens),
        "mentions": mentions,
    }
