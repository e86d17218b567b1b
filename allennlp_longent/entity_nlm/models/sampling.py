"""Sampling coreference structures from the discriminative proposal (Ji et al. 2017, §5.1)."""

from typing import Callable, Dict, Protocol, Tuple

import torch
from torch import nn
from torch.distributions import Categorical

from allennlp_longent.entity_nlm.models.heads import (
    EntityScorer,
    EntityState,
    EntityUpdater,
    length_log_probs,
)


class SamplingHeads(Protocol):
    """What the sampler reads of a model (EntityNLM): its p heads and its proposal q heads."""

    carry_entity: bool
    w_entity: nn.Module
    w_length: nn.Module
    entity_scorer: EntityScorer
    q_r: nn.Module
    q_entity: nn.Module
    q_length: nn.Module
    q_entity_scorer: EntityScorer
    updater: EntityUpdater
    _r_log_probs: Callable[[torch.Tensor], torch.Tensor]
    _new_entity: Callable[[int], torch.Tensor]
    _word_log_probs: Callable[..., torch.Tensor]


def sample_structures(
    model: SamplingHeads, enc: Dict[str, torch.Tensor]
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Draws one structure s ~ q(R, E, L | X) per row of ``enc`` and returns
    ``(log p(X, s), log q(s | X))`` per row, with the same terms as ``score_structure``.

    At a decision point (the previous mention ended) R_t, then E_t and L_t are sampled from the
    proposal heads; inside a mention R, E and L follow deterministically.
    """
    mask, hidden, previous = enc["mask"], enc["hidden"], enc["previous"]
    batch, steps = mask.shape
    rows = torch.arange(batch, device=mask.device)
    doc_length = mask.sum(1)
    r_p = model._r_log_probs(previous)
    r_q = model.q_r(hidden).log_softmax(-1)
    query_p, query_q = model.w_entity(previous), model.q_entity(hidden)
    state = EntityState.empty(batch, 2, hidden.size(-1), hidden)
    log_p = hidden.new_zeros(batch)
    log_q = hidden.new_zeros(batch)
    entity = torch.full((batch,), -1, dtype=torch.long, device=mask.device)
    remaining = torch.ones(batch, dtype=torch.long, device=mask.device)
    currents, mentioned = [], []
    for t in range(steps):
        state = state.grow(int(state.count.max()) + 2)
        valid = mask[:, t]
        decision = valid & (remaining <= 1)
        inside = valid & (remaining > 1)
        r = Categorical(logits=r_q[:, t]).sample()
        log_q = log_q + torch.where(decision, r_q[rows, t, r], 0.0)
        log_p = log_p + torch.where(decision, r_p[rows, t, r], 0.0)
        start = decision & (r == 1)

        new = model._new_entity(batch)
        e_q = model.q_entity_scorer(query_q[:, t], new, state, t).log_softmax(-1)
        e_p = model.entity_scorer(query_p[:, t], new, state, t).log_softmax(-1)
        e = Categorical(logits=e_q).sample()
        log_q = log_q + torch.where(start, e_q[rows, e], 0.0)
        log_p = log_p + torch.where(start, e_p[rows, e], 0.0)
        entity = torch.where(start, e, torch.where(inside, entity, torch.full_like(entity, -1)))
        is_new = start & (entity == state.count)
        current = state.current(entity, is_new, new, model.carry_entity)

        l_q = length_log_probs(
            model.q_length(torch.cat([hidden[:, t], current], -1)), doc_length - t
        )
        l_p = length_log_probs(
            model.w_length(torch.cat([previous[:, t], current], -1)), doc_length - t
        )
        length = Categorical(logits=l_q).sample()
        log_q = log_q + torch.where(start, l_q[rows, length], 0.0)
        log_p = log_p + torch.where(start, l_p[rows, length], 0.0)
        remaining = torch.where(start, length + 1, torch.where(inside, remaining - 1, 1))

        currents.append(current)
        mentioned.append(entity >= 0)
        state = model.updater(state, entity, current, hidden[:, t], is_new, t)
    words = model._word_log_probs(enc, torch.stack(currents, 1), torch.stack(mentioned, 1))
    log_p = log_p + torch.where(mask, words, torch.zeros_like(words)).sum(1)
    return log_p, log_q
