"""Entity state and per-step pieces of EntityNLM shared by scoring and sampling (Ji et al. 2017).

The state of a batch of documents is a tensor of entity embeddings (one slot per entity, in order
of first mention), the position of each entity's latest mention, the number of entities so far and
``e_current``. The new-entity choice of E_t is always the slot numbered ``count``.
"""

from dataclasses import dataclass
from typing import Tuple

import torch
import torch.nn.functional as F
from torch import nn

NEG_INF = -1e30


@dataclass
class EntityState:
    embeddings: torch.Tensor  # (batch, slots, dim)
    last_position: torch.Tensor  # (batch, slots), float
    count: torch.Tensor  # (batch,), long
    # e_current of eq. 6 carried between mentions (§2.2 step 3): the latest updated embedding of
    # the most recently mentioned entity; zeros before the first mention. (batch, dim)
    latest: torch.Tensor

    @classmethod
    def empty(cls, batch: int, slots: int, dim: int, like: torch.Tensor) -> "EntityState":
        return cls(
            like.new_zeros(batch, slots, dim),
            like.new_zeros(batch, slots),
            torch.zeros(batch, dtype=torch.long, device=like.device),
            like.new_zeros(batch, dim),
        )

    def grow(self, slots: int) -> "EntityState":
        """The same state with at least ``slots`` slots (sampling can create any number)."""
        extra = slots - self.embeddings.size(1)
        if extra <= 0:
            return self
        return EntityState(
            F.pad(self.embeddings, (0, 0, 0, extra)), F.pad(self.last_position, (0, extra)),
            self.count, self.latest,
        )

    def detach(self) -> "EntityState":
        return EntityState(
            self.embeddings.detach(), self.last_position.detach(), self.count, self.latest.detach()
        )

    def slot_masks(self) -> tuple:
        slot = torch.arange(self.embeddings.size(1), device=self.count.device)[None, :]
        return slot < self.count[:, None], slot == self.count[:, None]

    def most_recent(self) -> torch.Tensor:
        """Most-recent-entity baseline of §5.3: latest mentioned entity, or new when none."""
        existing, _ = self.slot_masks()
        latest = torch.where(existing, self.last_position, torch.full_like(self.last_position, -1))
        return torch.where(self.count > 0, latest.argmax(-1), self.count)

    def current(
        self, ids: torch.Tensor, is_new: torch.Tensor, new: torch.Tensor, carry: bool = True
    ) -> torch.Tensor:
        """e_current at a step (eq. 6): the mentioned entity's embedding (the fresh ``new`` one of
        eq. 7 for a new entity) on a mention token, else the carried ``latest`` (zeros with
        ``carry=False``, the pre-§2.2 ablation)."""
        rows = torch.arange(ids.size(0), device=ids.device)
        old = self.embeddings[rows, ids.clamp(min=0)]
        chosen = torch.where(is_new[:, None], new, old)
        between = self.latest if carry else torch.zeros_like(self.latest)
        return torch.where((ids >= 0)[:, None], chosen, between)


class EntityScorer(nn.Module):
    """Scores E_t (eq. 4): ``q^T e_i + w_dist^T f(e_i)`` over the existing entities and the new
    one, whose embedding is the eq. 7 draw ``new`` (scored like the others, with f = 0 since it has
    no earlier mention); slots beyond the new one are masked. ``q`` is ``W_entity h_{t-1}``.

    f(e) = [log d, 1/d] with d the number of tokens since the entity's latest mention.
    """

    def __init__(self) -> None:
        super().__init__()
        self.distance = nn.Linear(2, 1, bias=False)

    def forward(
        self, query: torch.Tensor, new: torch.Tensor, state: EntityState, step: int
    ) -> torch.Tensor:
        existing, new_slot = state.slot_masks()
        scores = torch.bmm(state.embeddings, query.unsqueeze(-1)).squeeze(-1)
        distance = (step - state.last_position).clamp(min=1.0)
        features = torch.stack([distance.log(), distance.reciprocal()], dim=-1)
        scores = scores + self.distance(features).squeeze(-1)
        new_score = (new * query).sum(-1, keepdim=True).expand_as(scores)
        masked = torch.where(new_slot, new_score, torch.full_like(scores, NEG_INF))
        return torch.where(existing, scores, masked)


class EntityUpdater(nn.Module):
    """Gated update of eq. 8: d = sigmoid(e^T W_d h_t), e' = normalise(d e + (1 - d) h_t); e' is
    also the new carried e_current."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.gate = nn.Linear(dim, dim, bias=False)

    def forward(
        self, state: EntityState, ids: torch.Tensor, current: torch.Tensor, hidden: torch.Tensor,
        is_new: torch.Tensor, step: int,
    ) -> EntityState:
        gate = torch.sigmoid((self.gate(hidden) * current).sum(-1, keepdim=True))
        updated = F.normalize(gate * current + (1 - gate) * hidden, dim=-1)
        slot = torch.arange(state.embeddings.size(1), device=ids.device)[None, :]
        mentioned = ids >= 0
        hit = (slot == ids[:, None]) & mentioned[:, None]
        return EntityState(
            torch.where(hit[..., None], updated[:, None, :], state.embeddings),
            torch.where(hit, torch.full_like(state.last_position, step), state.last_position),
            state.count + is_new.long(),
            torch.where(mentioned[:, None], updated, state.latest),
        )


def decision_points(
    entity_ids: torch.Tensor, lengths: torch.Tensor, mask: torch.Tensor
) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Entity ids with padding set to -1, the steps where R_t is drawn (t = 0 or the previous
    mention ended: L_{t-1} = 1) and the mention starts among them; all (batch, time)."""
    entity_ids = torch.where(mask, entity_ids.long(), torch.full_like(entity_ids.long(), -1))
    decision = torch.ones_like(mask)
    decision[:, 1:] = lengths[:, :-1] <= 1
    decision = decision & mask
    return entity_ids, decision, decision & (entity_ids >= 0)


def length_log_probs(logits: torch.Tensor, remaining: torch.Tensor) -> torch.Tensor:
    """log-softmax over L = 1..max, lengths beyond the ``remaining`` tokens of the document masked
    (a mention cannot run past the end); rows with ``remaining`` <= 0 (padding) come out uniform."""
    lengths = torch.arange(1, logits.size(-1) + 1, device=logits.device)
    allowed = lengths <= remaining.unsqueeze(-1)
    return torch.where(allowed, logits, torch.full_like(logits, NEG_INF)).log_softmax(-1)
