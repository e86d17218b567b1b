"""The model's log p(X, R, E, L) against a by-hand evaluation of eqs. 3-9, values and gradients."""

import torch
import torch.nn.functional as F
from entity_nlm_helpers import batch, tiny_model
from torch.func import functional_call

# entity 0 = "mary" and "she"; entity 1 = "her brother" and "him".
DOC = {
    "tokens": ["mary", "met", "her", "brother", ".", "she", "saw", "him", "."],
    "clusters": [[[0, 0], [5, 5]], [[2, 3], [7, 7]]],
}
R = [1, 0, 1, 1, 0, 1, 0, 1, 0]
E = [0, -1, 1, 1, -1, 0, -1, 1, -1]
L = [1, 1, 2, 1, 1, 1, 1, 1, 1]


def by_hand(model, word_ids: torch.Tensor) -> torch.Tensor:
    """Sum over t of the per-step terms of §2, written out without the model's own helpers."""
    p = dict(model.named_parameters())
    h = model.lstm(model.embedder(word_ids)[None])[0][0]
    r0, r1 = p["r_embeddings"][0], p["r_embeddings"][1]
    entities, last = {}, {}
    total = torch.zeros((), dtype=h.dtype)
    for t in range(len(word_ids)):
        h_prev = h[t - 1] if t > 0 else torch.zeros_like(h[0])
        decision = t == 0 or L[t - 1] == 1
        if decision:  # eq. 3
            r_scores = torch.stack([p["w_r.weight"] @ h_prev @ r0, p["w_r.weight"] @ h_prev @ r1])
            total = total + r_scores.log_softmax(0)[R[t]]
        if decision and R[t]:
            query = p["w_entity.weight"] @ h_prev
            scores = []
            for i in range(len(entities)):  # eq. 4 with f(e) = [log d, 1/d]
                d = torch.tensor(float(max(t - last[i], 1)), dtype=h.dtype)
                features = torch.stack([d.log(), 1 / d])
                distance_score = p["entity_scorer.distance.weight"][0] @ features
                scores.append(query @ entities[i] + distance_score)
            scores.append(query @ r1)
            total = total + torch.stack(scores).log_softmax(0)[E[t]]
            current = F.normalize(r1, dim=0) if E[t] == len(entities) else entities[E[t]]  # eq. 7
            length_logits = p["w_length.weight"] @ torch.cat([h_prev, current]) + p["w_length.bias"]
            total = total + length_logits.log_softmax(0)[L[t] - 1]  # eq. 5
        elif R[t]:
            current = entities[E[t]]
        else:
            current = torch.zeros_like(h_prev)
        context = h_prev + p["w_e.weight"] @ current  # eq. 6
        word_logits = p["output.weight"] @ context + p["output.bias"]
        total = total + word_logits.log_softmax(0)[word_ids[t]]
        if R[t]:  # eq. 8
            gate = torch.sigmoid(current @ (p["updater.gate.weight"] @ h[t]))
            entities[E[t]] = F.normalize(gate * current + (1 - gate) * h[t], dim=0)
            last[E[t]] = t
    return total


def model_log_likelihood(model, tensors) -> torch.Tensor:
    enc = model.encode(tensors["tokens"])
    out = model.score_structure(enc, tensors["entity_ids"], tensors["mention_lengths"])
    return out["log_likelihood"][0]


def test_reader_gives_the_structure_written_by_hand():
    model = tiny_model()
    tensors = batch(model, [DOC])
    assert tensors["entity_ids"][0].tolist() == E
    assert tensors["mention_lengths"][0].tolist() == L


def test_log_likelihood_equals_sum_of_hand_computed_terms_and_gradients_agree():
    model = tiny_model().double()
    tensors = batch(model, [DOC])
    word_ids = tensors["tokens"]["tokens"]["tokens"][0]
    ours = model_log_likelihood(model, tensors)
    theirs = by_hand(model, word_ids)
    assert torch.allclose(ours, theirs, atol=1e-10), (ours.item(), theirs.item())

    params = [p for _, p in model.named_parameters() if not _.startswith("q_")]
    names = [n for n, _ in model.named_parameters() if not n.startswith("q_")]
    grads_ours = torch.autograd.grad(ours, params, allow_unused=True)
    grads_theirs = torch.autograd.grad(theirs, params, allow_unused=True)
    for name, a, b in zip(names, grads_ours, grads_theirs):
        assert a is not None and b is not None, name
        assert a.abs().sum() > 0, f"{name} gets no gradient"
        assert torch.allclose(a, b, atol=1e-9), name


def test_gradients_match_finite_differences():
    model = tiny_model().double()
    tensors = batch(model, [DOC])
    names = ["r_embeddings", "entity_scorer.distance.weight", "updater.gate.weight", "w_e.weight"]
    scorer = _Scorer(model)
    base = dict(model.named_parameters())

    def loglik(*values):
        params = {**base, **dict(zip(names, values))}
        return functional_call(scorer, {f"model.{k}": v for k, v in params.items()}, (tensors,))

    inputs = tuple(base[n].detach().clone().requires_grad_(True) for n in names)
    assert torch.autograd.gradcheck(loglik, inputs, eps=1e-6, atol=1e-5)


class _Scorer(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, tensors):
        return model_log_likelihood(self.model, tensors)


def test_truncated_backpropagation_keeps_values_and_cuts_gradients():
    full = tiny_model().double()
    truncated = tiny_model(truncation_length=3).double()
    tensors = batch(full, [DOC])
    ours, cut = model_log_likelihood(full, tensors), model_log_likelihood(truncated, tensors)
    assert torch.allclose(ours, cut, atol=1e-10)  # the state carries over unchanged
    grad_full = torch.autograd.grad(ours, full.lstm.weight_hh_l0)[0]
    grad_cut = torch.autograd.grad(cut, truncated.lstm.weight_hh_l0)[0]
    assert not torch.allclose(grad_full, grad_cut, atol=1e-6)  # paths longer than 3 are cut
