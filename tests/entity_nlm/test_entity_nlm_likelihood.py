"""log p(X, R, E, L) of EntityNLM against the equations of Ji et al. (2017), §2, written out here.

A fixed 2-dimensional model with hand-set weights reads a 7-token document: "mary" (entity 0)
... "the boy" (entity 1, two tokens) ... "she" (entity 0 again), with words between every mention.
``paper_terms`` evaluates every per-step term from the paper's equations with plain tensors:

- h_t = LSTM(h_{t-1}, x_t) (standard LSTM equations), h_{-1} = 0 for the first word;
- eq. 3  p(R_t = r) ∝ exp(h_{t-1}^T W_r r_r), at t = 0 and wherever the previous mention ended;
- eq. 4  p(E_t = i) ∝ exp(h_{t-1}^T W_entity e_i + w_dist^T f(e_i)), f = [log d, 1/d] with d the
  tokens since e_i's latest mention; the new entity's embedding (eq. 7) scored the same way, f = 0;
- eq. 7  a new entity's embedding is u / ||u||, u ~ N(r_1, s^2 I); outside training u = r_1;
- eq. 5  p(L_t = l) ∝ exp(W_length,l^T [h_{t-1}; e_current]) over the lengths that fit;
- eq. 6  p(X_t) ∝ exp(W_x (h_{t-1} + W_e e_current)), where e_current is the mentioned entity on a
  mention token and, when R_t = 0, still the most recently mentioned entity (§2.2, step 3) with
  its latest embedding (zero before any mention);
- eq. 8  on a mention token d = sigmoid(e^T W_d h_t), e <- normalise(d e + (1 - d) h_t), which is
  also the new e_current.
"""

import math

import torch
import torch.nn.functional as F
from allennlp.data import Batch, Vocabulary
from entity_nlm_helpers import batch, reader, tiny_model
from torch.func import functional_call

from allennlp_longent.entity_nlm.models import EntityNLM

WORDS = ["mary", "met", "the", "boy", "and", "she", "smiled"]
CLUSTERS = [[[0, 0], [5, 5]], [[2, 3]]]
R = [1, 0, 1, 1, 0, 1, 0]
E = [0, -1, 1, 1, -1, 0, -1]
L = [1, 1, 2, 1, 1, 1, 1]
MAX_LENGTH = 3


def grid(rows: int, cols: int, low: float, high: float) -> torch.Tensor:
    return torch.linspace(low, high, rows * cols, dtype=torch.float64).view(rows, cols)


# Hand-set weights, in the paper's orientation (h^T W r, h^T W e, e^T W_d h).
VOCAB_SIZE = len(WORDS) + 2  # padding and OOV come first in an AllenNLP vocabulary
WEIGHTS = {
    "embedding": grid(VOCAB_SIZE, 2, -0.9, 0.8).flip(0),
    "lstm_x": grid(8, 2, -0.7, 0.9),  # rows: input, forget, cell, output gates (2 each)
    "lstm_h": grid(8, 2, 0.6, -0.8),
    "lstm_b": grid(8, 1, -0.2, 0.3).squeeze(1),
    "r0": torch.tensor([0.8, -0.5], dtype=torch.float64),
    "r1": torch.tensor([-0.3, 1.1], dtype=torch.float64),
    "W_r": torch.tensor([[1.2, -0.4], [0.7, 0.9]], dtype=torch.float64),
    "W_entity": torch.tensor([[0.9, -1.3], [1.4, 0.6]], dtype=torch.float64),
    "w_dist": torch.tensor([-0.8, 1.5], dtype=torch.float64),
    "W_length": grid(MAX_LENGTH, 4, -1.1, 1.0),
    "W_e": torch.tensor([[1.5, -0.7], [0.4, 1.8]], dtype=torch.float64),
    "W_x": grid(VOCAB_SIZE, 2, -2.0, 1.7),
    "W_d": torch.tensor([[0.6, 1.2], [-1.0, 0.3]], dtype=torch.float64),
}


def hand_set_model() -> EntityNLM:
    vocab = Vocabulary()
    vocab.add_tokens_to_namespace(WORDS, "tokens")
    model = EntityNLM(vocab, embedding_dim=2, hidden_dim=2, max_mention_length=MAX_LENGTH)
    model.double().eval()
    w = WEIGHTS
    values = {
        "embedder.weight": w["embedding"],
        "lstm.weight_ih_l0": w["lstm_x"], "lstm.weight_hh_l0": w["lstm_h"],
        "lstm.bias_ih_l0": w["lstm_b"], "lstm.bias_hh_l0": torch.zeros(8),
        "r_embeddings": torch.stack([w["r0"], w["r1"]]),
        "w_r.weight": w["W_r"].t(), "w_entity.weight": w["W_entity"].t(),
        "entity_scorer.distance.weight": w["w_dist"][None],
        "w_length.weight": w["W_length"], "w_length.bias": torch.zeros(MAX_LENGTH),
        "w_e.weight": w["W_e"], "output.weight": w["W_x"], "output.bias": torch.zeros(VOCAB_SIZE),
        "updater.gate.weight": w["W_d"],
    }
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, value in values.items():
            params[name].copy_(value)
    return model


def tensors(model: EntityNLM) -> dict:
    data = Batch([reader().text_to_instance(WORDS, CLUSTERS)])
    data.index_instances(model.vocab)
    return data.as_tensor_dict()


def lstm_states(word_ids: list) -> list:
    """h_t for t = 0..T-1 by the LSTM equations (gates i, f, g, o)."""
    w = WEIGHTS
    h, c, states = torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64), []
    for word in word_ids:
        z = w["lstm_x"] @ w["embedding"][word] + w["lstm_h"] @ h + w["lstm_b"]
        i, f, g, o = torch.sigmoid(z[0:2]), torch.sigmoid(z[2:4]), torch.tanh(z[4:6]), z[6:8]
        c = f * c + i * g
        h = torch.sigmoid(o) * torch.tanh(c)
        states.append(h)
    return states


def paper_terms(word_ids: list, new_entity=None) -> tuple:
    """Every per-step log-probability of the paper's generative story, and e_current per step.

    ``new_entity(t)`` gives the eq. 7 embedding of an entity created at step t (the mean direction
    r_1 / ||r_1|| when None, the model's choice outside training)."""
    w = WEIGHTS
    new_entity = new_entity or (lambda t: w["r1"] / w["r1"].norm())
    hs = lstm_states(word_ids)
    entities, last = {}, {}  # entity -> embedding, position of its latest mention
    e_current = torch.zeros(2, dtype=torch.float64)
    terms, currents = [], []
    for t, word in enumerate(word_ids):
        h_prev = hs[t - 1] if t > 0 else torch.zeros(2, dtype=torch.float64)
        step = {}
        if t == 0 or L[t - 1] == 1:  # eq. 3
            scores = torch.stack([h_prev @ w["W_r"] @ w["r0"], h_prev @ w["W_r"] @ w["r1"]])
            step["R"] = scores[R[t]] - scores.logsumexp(0)
        if R[t] and (t == 0 or L[t - 1] == 1):  # eq. 4 over existing entities + the new one
            candidates, scores = [], []
            for i in range(len(entities)):
                d = float(t - last[i])
                candidates.append(entities[i])
                f = torch.tensor([math.log(d), 1.0 / d], dtype=torch.float64)
                scores.append(h_prev @ w["W_entity"] @ entities[i] + w["w_dist"] @ f)
            new = new_entity(t)  # eq. 7
            scores.append(h_prev @ w["W_entity"] @ new)
            scores = torch.stack(scores)
            step["E"] = scores[E[t]] - scores.logsumexp(0)
            e_current = new if E[t] == len(entities) else entities[E[t]]
            if E[t] == len(entities):
                entities[E[t]] = new
            fits = min(MAX_LENGTH, len(word_ids) - t)  # eq. 5, lengths that fit in the document
            length_scores = w["W_length"][:fits] @ torch.cat([h_prev, e_current])
            step["L"] = length_scores[L[t] - 1] - length_scores.logsumexp(0)
        elif R[t]:
            e_current = entities[E[t]]
        # else: R_t = 0 and e_current stays the latest embedding of the latest mentioned entity
        word_scores = w["W_x"] @ (h_prev + w["W_e"] @ e_current)  # eq. 6
        step["X"] = word_scores[word] - word_scores.logsumexp(0)
        currents.append(e_current)
        if R[t]:  # eq. 8
            d = torch.sigmoid(e_current @ w["W_d"] @ hs[t])
            updated = d * e_current + (1 - d) * hs[t]
            entities[E[t]] = updated / updated.norm()
            last[E[t]] = t
            e_current = entities[E[t]]
        terms.append(step)
    return terms, currents


def model_scores(model: EntityNLM, data: dict) -> dict:
    enc = model.encode(data["tokens"])
    return model.score_structure(enc, data["entity_ids"], data["mention_lengths"])


def test_structure_read_from_the_clusters():
    data = tensors(hand_set_model())
    assert data["entity_ids"][0].tolist() == E
    assert data["mention_lengths"][0].tolist() == L


def test_log_likelihood_is_the_sum_of_the_paper_terms():
    model = hand_set_model()
    data = tensors(model)
    terms, _ = paper_terms(data["tokens"]["tokens"]["tokens"][0].tolist())
    ours = model_scores(model, data)
    # The decision points, and which terms exist at each step, as the generative story says.
    assert [sorted(step) for step in terms] == [
        ["E", "L", "R", "X"], ["R", "X"], ["E", "L", "R", "X"], ["X"], ["R", "X"],
        ["E", "L", "R", "X"], ["R", "X"],
    ]
    for part, key in (("R", "r"), ("E", "e"), ("L", "l"), ("X", "word")):
        expected = sum(step[part] for step in terms if part in step)
        assert torch.allclose(ours[key][0], expected, atol=1e-12), part
    total = sum(value for step in terms for value in step.values())
    assert torch.allclose(ours["log_likelihood"][0], total, atol=1e-12)


def test_e_current_between_mentions_is_the_latest_updated_embedding():
    model = hand_set_model()
    data = tensors(model)
    word_ids = data["tokens"]["tokens"]["tokens"][0].tolist()
    _, currents = paper_terms(word_ids)
    ours = model_scores(model, data)["e_current"][0]
    hs = lstm_states(word_ids)
    mary = WEIGHTS["r1"] / WEIGHTS["r1"].norm()  # created at t = 0 (eq. 7), updated by h_0
    d = torch.sigmoid(mary @ WEIGHTS["W_d"] @ hs[0])
    mary = F.normalize(d * mary + (1 - d) * hs[0], dim=0)
    assert torch.allclose(ours[1], mary, atol=1e-12)  # "met": still mary, as updated at t = 0
    for t in (1, 4, 6):  # every R_t = 0 step after a mention
        assert torch.allclose(ours[t], currents[t], atol=1e-12), t
        assert ours[t].norm() > 0.99
    assert not torch.allclose(ours[4], ours[1])  # after "the boy", the boy is the latest entity


def test_the_no_carry_ablation_zeroes_e_current_between_mentions_only():
    carried, zeroed = hand_set_model(), hand_set_model()
    zeroed.carry_entity = False
    data = tensors(carried)
    ours, ablation = model_scores(carried, data), model_scores(zeroed, data)
    for t in range(len(WORDS)):
        if E[t] >= 0:
            assert torch.equal(ablation["e_current"][0, t], ours["e_current"][0, t]), t
        else:
            assert not ablation["e_current"][0, t].any(), t
    assert torch.equal(ablation["e"], ours["e"])  # E_t reads entities, not e_current
    assert not torch.allclose(ablation["word"], ours["word"])


def test_context_projection_changes_only_words_outside_mentions():
    model = hand_set_model()
    data = tensors(model)
    plain = model_scores(model, data)
    model.w_c = torch.nn.Linear(2, 2, bias=False).double()
    with torch.no_grad():
        model.w_c.weight.copy_(model.w_e.weight)
    same = model_scores(model, data)
    assert torch.equal(same["log_likelihood"], plain["log_likelihood"])
    with torch.no_grad():
        model.w_c.weight.mul_(-2.0)
    enc = model.encode(data["tokens"])
    mentioned = torch.tensor([[e >= 0 for e in E]])
    words = model._word_log_probs(enc, plain["e_current"], mentioned)[0]
    reference = model._word_log_probs(enc, plain["e_current"], torch.ones_like(mentioned))[0]
    for t, e in enumerate(E):
        assert torch.equal(words[t], reference[t]) == (e >= 0), t


def test_the_sampled_new_entity_is_both_scored_and_created():
    model = hand_set_model().train()
    data = tensors(model)
    # u of eq. 7 at the three steps where E_t is predicted (a new entity is created at 0 and 2)
    draws = {0: [0.2, 1.0], 2: [-1.0, 0.4], 5: [0.7, -0.9]}
    draw = {t: torch.tensor(u, dtype=torch.float64) for t, u in draws.items()}
    steps = iter(range(len(WORDS)))
    model._new_entity = lambda batch: F.normalize(draw.get(next(steps), WEIGHTS["r1"]), dim=0)[
        None
    ]
    ours = model_scores(model, data)
    terms, _ = paper_terms(data["tokens"]["tokens"]["tokens"][0].tolist(),
                           lambda t: draw[t] / draw[t].norm())
    total = sum(value for step in terms for value in step.values())
    assert torch.allclose(ours["log_likelihood"][0], total, atol=1e-12)


def test_new_entity_draws_in_training_are_unit_vectors_around_r1():
    model = hand_set_model().train()
    torch.manual_seed(0)
    draws = model._new_entity(20000)
    mean_direction = WEIGHTS["r1"] / WEIGHTS["r1"].norm()
    assert torch.allclose(draws.norm(dim=-1), torch.ones(20000, dtype=torch.float64))
    assert torch.allclose(draws.mean(0), mean_direction, atol=1e-3)
    assert draws.std(0).max() > 1e-3  # really sampled (sigma = 0.01 around r_1, |r_1| ~ 1.14)
    assert torch.equal(model.eval()._new_entity(3), mean_direction.expand(3, 2))


def test_gradients_match_finite_differences():
    model = tiny_model().double()
    data = batch(model, [{"tokens": ["mary", "met", "her", "brother", ".", "she", "saw", "him"],
                          "clusters": [[[0, 0], [5, 5]], [[2, 3], [7, 7]]]}])
    names = ["r_embeddings", "entity_scorer.distance.weight", "updater.gate.weight", "w_e.weight"]
    scorer = _Scorer(model)
    base = dict(model.named_parameters())

    def loglik(*values):
        params = {**base, **dict(zip(names, values))}
        return functional_call(scorer, {f"model.{k}": v for k, v in params.items()}, (data,))

    inputs = tuple(base[n].detach().clone().requires_grad_(True) for n in names)
    assert torch.autograd.gradcheck(loglik, inputs, eps=1e-6, atol=1e-5)


class _Scorer(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, data):
        return model_scores(self.model, data)["log_likelihood"][0]


def test_truncated_backpropagation_keeps_values_and_cuts_gradients():
    doc = {"tokens": ["mary", "met", "her", "brother", ".", "she", "saw", "him", "."],
           "clusters": [[[0, 0], [5, 5]], [[2, 3], [7, 7]]]}
    full = tiny_model().double()
    truncated = tiny_model(truncation_length=3).double()
    data = batch(full, [doc])
    ours = model_scores(full, data)["log_likelihood"][0]
    cut = model_scores(truncated, data)["log_likelihood"][0]
    assert torch.allclose(ours, cut, atol=1e-10)  # the state carries over unchanged
    grad_full = torch.autograd.grad(ours, full.lstm.weight_hh_l0)[0]
    grad_cut = torch.autograd.grad(cut, truncated.lstm.weight_hh_l0)[0]
    assert not torch.allclose(grad_full, grad_cut, atol=1e-6)  # paths longer than 3 are cut
