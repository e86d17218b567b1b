"""The shallow-feature baseline of entity prediction (Ji et al. 2017, §5.3, after Modi et al.
2017): a linear classifier over the candidate entities on recency and frequency features."""

from typing import Any, Dict, List, Optional

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.nn import util
from torch import nn

from allennlp_longent.entity_nlm.metrics import EntityPredictionAccuracy
from allennlp_longent.entity_nlm.models.heads import NEG_INF, decision_points

FEATURES = ("log_distance", "inverse_distance", "log_mentions", "most_recent", "new",
            "new_x_log_entities")


def candidate_features(
    last_position: torch.Tensor, mentions: torch.Tensor, count: torch.Tensor, step: int
) -> torch.Tensor:
    """(batch, slots, len(FEATURES)) features of every slot at ``step``: for an existing entity
    the token distance d to its latest mention (log d, 1/d), log(1 + its number of mentions) and
    whether it is the most recently mentioned; for the new-entity slot (number ``count``) an
    indicator and log(1 + entities so far). Other slots are zero."""
    slot = torch.arange(last_position.size(1), device=count.device)[None, :]
    existing, new = slot < count[:, None], slot == count[:, None]
    distance = (step - last_position).clamp(min=1.0)
    latest = torch.where(existing, last_position, torch.full_like(last_position, -1.0))
    most_recent = (slot == latest.argmax(-1, keepdim=True)) & existing
    log_entities = torch.log1p(count.to(last_position.dtype))[:, None].expand_as(last_position)
    columns = [distance.log(), distance.reciprocal(), torch.log1p(mentions), most_recent.float()]
    features = [torch.where(existing, c, torch.zeros_like(c)) for c in columns]
    features += [new.float(), torch.where(new, log_entities, torch.zeros_like(log_entities))]
    return torch.stack(features, -1)


class ShallowScorer(nn.Module):
    """The linear classifier: scores each candidate (existing entities and a new one) by
    ``w^T phi`` with the features of ``candidate_features``, given the gold left context."""

    def __init__(self) -> None:
        super().__init__()
        self.weights = nn.Linear(len(FEATURES), 1, bias=False)

    def forward(
        self, entity_ids: torch.Tensor, starts: torch.Tensor
    ) -> Dict[str, torch.Tensor]:
        """``entity_ids`` (-1 off mentions and on padding) and ``starts`` are (batch, time); returns
        E_t ``log_probs`` (batch, time, slots), the new-entity number ``new_entity`` and the most
        recent entity ``most_recent`` at each step, and ``loss``, the mean cross-entropy of the
        gold entity over the mention starts."""
        batch, steps = entity_ids.shape
        slots = int(entity_ids.max().clamp(min=0)) + 2
        last = self.weights.weight.new_zeros(batch, slots)
        mentions = torch.zeros_like(last)
        count = torch.zeros(batch, dtype=torch.long, device=entity_ids.device)
        slot = torch.arange(slots, device=entity_ids.device)[None, :]
        logits, counts, recent = [], [], []
        for t in range(steps):
            features = candidate_features(last, mentions, count, t)
            scores = self.weights(features).squeeze(-1)
            allowed = slot <= count[:, None]
            logits.append(torch.where(allowed, scores, torch.full_like(scores, NEG_INF)))
            counts.append(count)
            recent.append(torch.where(count > 0, features[..., 3].argmax(-1), count))
            hit = (slot == entity_ids[:, t, None]) & (entity_ids[:, t, None] >= 0)
            mentions = mentions + (hit & starts[:, t, None]).float()
            last = torch.where(hit, torch.full_like(last, t), last)
            count = count + (starts[:, t] & (entity_ids[:, t] == count)).long()
        log_probs = torch.stack(logits, 1).log_softmax(-1)
        gold = log_probs.gather(-1, entity_ids.clamp(min=0).unsqueeze(-1)).squeeze(-1)
        loss = -(gold * starts).sum() / starts.sum().clamp(min=1)
        return {"log_probs": log_probs, "new_entity": torch.stack(counts, 1),
                "most_recent": torch.stack(recent, 1), "loss": loss}


@Model.register("entity_nlm_shallow_baseline")
class ShallowEntityBaseline(Model):
    """The ``ShallowScorer`` alone, trained by cross-entropy at every mention start of the
    training data (R_t and the left context given). It reads the same instances as EntityNLM and
    reports the same entity-prediction metrics with the same baselines."""

    def __init__(self, vocab: Vocabulary) -> None:
        super().__init__(vocab)
        self.scorer = ShallowScorer()
        self._accuracy = EntityPredictionAccuracy()

    def forward(  # type: ignore[override]
        self, tokens: TextFieldTensors, entity_ids: torch.Tensor, mention_lengths: torch.Tensor,
        sentence_ids: torch.Tensor, metadata: Optional[List[Dict[str, Any]]] = None,
        targets: Optional[torch.Tensor] = None, human_majority: Optional[torch.Tensor] = None,
    ) -> Dict[str, torch.Tensor]:
        """Loss: cross-entropy of the gold entity at every mention start (§5.3 task)."""
        mask = util.get_text_field_mask(tokens)
        entity_ids, _, starts = decision_points(entity_ids, mention_lengths, mask)
        out = self.scorer(entity_ids, starts)
        predicted = out["log_probs"].argmax(-1)
        self._accuracy(predicted, entity_ids, starts, out["new_entity"], out["most_recent"],
                       targets, human_majority)
        return {"loss": out["loss"], "predicted_entities": predicted, "mention_starts": starts}

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        return self._accuracy.get_metric(reset)
