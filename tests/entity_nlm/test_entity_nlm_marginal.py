"""Importance-sampled marginal likelihood (§5.1) against exact enumeration of R, E, L."""

import math

import pytest
import torch
from entity_nlm_helpers import batch, tiny_model

from allennlp_longent.entity_nlm.models.sampling import sample_structures

# Every (E, L) structure of a 2-token document (-1: no mention); R is E >= 0.
STRUCTURES = [
    ([-1, -1], [1, 1]),
    ([-1, 0], [1, 1]),
    ([0, -1], [1, 1]),
    ([0, 0], [1, 1]),  # two one-token mentions of one entity
    ([0, 1], [1, 1]),
    ([0, 0], [2, 1]),  # one two-token mention
]


def enumerated_scores(model, doc: dict) -> dict:
    """score_structure of ``doc`` under each of the STRUCTURES, one row each."""
    tensors = batch(model, [doc] * len(STRUCTURES))
    with torch.no_grad():
        return model.score_structure(
            model.encode(tensors["tokens"]),
            torch.tensor([s[0] for s in STRUCTURES]), torch.tensor([s[1] for s in STRUCTURES]),
        )


@pytest.mark.parametrize("context_projection", [False, True])
def test_importance_sampling_matches_exact_marginal(context_projection):
    model = tiny_model(
        dim=4, seed=3, importance_sample_batch=1000, context_projection=context_projection
    )
    doc = {"tokens": ["mary", "she"]}
    scores = enumerated_scores(model, doc)
    log_p, log_q = scores["log_likelihood"].double(), scores["proposal_log_prob"].double()
    # q is a distribution over exactly these structures (lengths past the end are masked).
    assert math.isclose(float(log_q.exp().sum()), 1.0, abs_tol=1e-5)
    exact = float(log_p.logsumexp(0).exp())
    weights = (log_p - log_q).exp()
    variance = float((log_q.exp() * weights**2).sum()) - exact**2
    assert variance > 1e-3 * exact**2, "proposal equals the posterior: the test would be vacuous"

    samples = 4000
    torch.manual_seed(0)
    single = batch(model, [doc])
    estimate = float(model.marginal_log_likelihood(single["tokens"], samples).exp())
    stderr = math.sqrt(variance / samples)
    assert abs(estimate - exact) < 4 * stderr, (estimate, exact, stderr)
    # With one sample the estimate is a single weight, so it differs from the exact value.
    assert abs(float(model.marginal_log_likelihood(single["tokens"], 1).exp()) - exact) > 1e-6


@pytest.mark.parametrize("context_projection", [False, True])
def test_each_sample_is_weighted_as_the_model_scores_its_structure(context_projection):
    """The sampler's (log p, log q) of every draw is the pair score_structure gives one of the
    enumerated structures, and every structure is drawn."""
    model = tiny_model(dim=4, seed=3, context_projection=context_projection)
    doc = {"tokens": ["mary", "she"]}
    scores = enumerated_scores(model, doc)
    pairs = torch.stack([scores["log_likelihood"], scores["proposal_log_prob"]], -1)
    with torch.no_grad():
        single = model.encode(batch(model, [doc])["tokens"])
        torch.manual_seed(0)
        log_p, log_q = sample_structures(
            model, {k: v.repeat_interleave(300, dim=0) for k, v in single.items()}
        )
    drawn = torch.stack([log_p, log_q], -1)
    distance = (drawn[:, None, :] - pairs[None, :, :]).abs().amax(-1)
    assert bool((distance.amin(1) < 1e-5).all())
    assert set(distance.argmin(1).tolist()) == set(range(len(STRUCTURES)))


def all_structures(num_tokens: int, entities: int = 0) -> list:
    """Every (E, L) structure of ``num_tokens`` tokens whose new entities are numbered from
    ``entities`` on, written out from the definitions of §2 (not from the model's code)."""
    if num_tokens == 0:
        return [([], [])]
    found = [([-1] + ids, [1] + lengths) for ids, lengths in all_structures(num_tokens - 1,
                                                                           entities)]
    for entity in range(entities + 1):
        for length in range(1, num_tokens + 1):
            for ids, lengths in all_structures(num_tokens - length,
                                               max(entities, entity + 1)):
                found.append(([entity] * length + ids, list(range(length, 0, -1)) + lengths))
    return found


def test_marginal_of_a_four_token_document_matches_enumeration():
    """log p(X) summed over all 4-token structures (every R, E, L) against the importance-sampled
    estimate; the estimate is also above the joint of the gold structure, as the exact value is."""
    structures = all_structures(4)
    assert len(structures) == len(set(map(str, structures)))
    model = tiny_model(dim=4, seed=1, importance_sample_batch=4000)
    doc = {"tokens": ["mary", "met", "her", "."], "clusters": [[[0, 0], [2, 2]]]}
    tensors = batch(model, [doc] * len(structures))
    with torch.no_grad():
        scores = model.score_structure(
            model.encode(tensors["tokens"]), torch.tensor([s[0] for s in structures]),
            torch.tensor([s[1] for s in structures]),
        )
    log_p, log_q = scores["log_likelihood"].double(), scores["proposal_log_prob"].double()
    assert math.isclose(float(log_q.exp().sum()), 1.0, abs_tol=1e-5)  # q covers them all
    exact = float(log_p.logsumexp(0).exp())
    weights = (log_p - log_q).exp()
    stderr = math.sqrt((float((log_q.exp() * weights**2).sum()) - exact**2) / 4000)
    single = batch(model, [doc])
    torch.manual_seed(0)
    estimate = float(model.marginal_log_likelihood(single["tokens"], 4000).exp())
    assert abs(estimate - exact) < 4 * stderr, (estimate, exact, stderr)
    gold = structures.index(([0, -1, 0, -1], [1, 1, 1, 1]))
    assert exact > float(log_p[gold].exp())
