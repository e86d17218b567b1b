"""EntityNLM (Ji et al. 2017, "Dynamic Entity Representations in Neural Language Models")."""

import logging
import math
from typing import Any, Dict, List, Optional

import torch
import torch.nn.functional as F
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.nn import util
from torch import nn

from allennlp_longent.entity_nlm.metrics import EntityPredictionAccuracy, TokenPerplexity
from allennlp_longent.entity_nlm.models.heads import (
    EntityScorer,
    EntityState,
    EntityUpdater,
    decision_points,
    length_log_probs,
)
from allennlp_longent.entity_nlm.models.sampling import sample_structures
from allennlp_longent.entity_nlm.models.shallow_baseline import ShallowScorer
from allennlp_longent.entity_nlm.structure import check_structure

logger = logging.getLogger(__name__)


@Model.register("entity_nlm")
class EntityNLM(Model):
    """Generative LM with dynamic entity embeddings and latent R, E, L (paper §2).

    Between mentions e_current (eq. 5, 6) is the latest updated embedding of the most recently
    mentioned entity (§2.2 step 3; zeros before the first mention). A new entity's embedding is an
    eq. 7 draw (see ``_new_entity``) that E_t scores like any existing entity (eq. 4), and L_t
    ranges over the lengths that fit in the document (as the proposal's does).

    ``h_t = LSTM(h_{t-1}, x_t)`` reads words only, so the LSTM runs once over the sequence; the
    entity-dependent terms (E_t scores and the eq. 8 updates) run in a loop over time, batched over
    documents. Whole documents are one instance; long documents use truncated back-propagation
    inside ``forward``: every ``truncation_length`` tokens the LSTM state and the entity state are
    detached, so gradients stop there while the state itself carries over (it bounds the gradient
    path, not activation memory). The word distribution is a full softmax over the vocabulary
    (capped in the config): perplexity and the importance weights of §5.1 need exact, normalised
    word probabilities, which sampled softmax does not give.

    ``shallow_baseline=True`` trains the §5.3 shallow classifier (``ShallowScorer``, recency and
    frequency features of the gold history, no parameter shared) beside the model on the same
    batches, so that ``allennlp evaluate`` reports it with the model (``shallow_baseline_acc``).

    ``carry_entity=False`` is an ablation, not the paper's model: e_current is zero between
    mentions (what this model did before following §2.2 step 3), kept to measure that change.
    ``context_projection=True`` departs from eq. 6, which has one W_e: words outside mentions read
    e_current through their own W_c. R_t is drawn before X_t (§2.2), so X_t may depend on it; the
    authors' released code separates the two projections this way.

    A discriminative proposal ``q(R, E, L | X)`` for §5.1 is trained beside the model on detached
    features: the same heads as the model but reading ``h_t`` (which has seen ``x_t``) instead of
    ``h_{t-1}``, and with mention lengths limited to the tokens left in the document.
    """

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 64,
        hidden_dim: int = 64,
        max_mention_length: int = 25,
        dropout: float = 0.0,
        truncation_length: Optional[int] = None,
        new_entity_noise: float = 0.01,
        num_importance_samples: int = 0,
        importance_sample_batch: int = 32,
        namespace: str = "tokens",
        carry_entity: bool = True,
        context_projection: bool = False,
        shallow_baseline: bool = False,
    ) -> None:
        super().__init__(vocab)
        self.carry_entity = carry_entity
        self._namespace = namespace
        self._max_length = max_mention_length
        self._truncation = truncation_length
        self._noise = new_entity_noise
        self.num_importance_samples = num_importance_samples
        self._sample_batch = importance_sample_batch
        vocab_size = vocab.get_vocab_size(namespace)
        self.embedder = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        # r_0, r_1 of eq. 3; r_1 is also the mean of new entity embeddings (eq. 7).
        self.r_embeddings = nn.Parameter(torch.randn(2, hidden_dim) / math.sqrt(hidden_dim))
        self.w_r = nn.Linear(hidden_dim, hidden_dim, bias=False)
        self.w_entity = nn.Linear(hidden_dim, hidden_dim, bias=False)
        self.entity_scorer = EntityScorer()
        self.w_length = nn.Linear(2 * hidden_dim, max_mention_length)
        self.w_e = nn.Linear(hidden_dim, hidden_dim, bias=False)
        self.w_c = nn.Linear(hidden_dim, hidden_dim, bias=False) if context_projection else None
        self.output = nn.Linear(hidden_dim, vocab_size)
        self.updater = EntityUpdater(hidden_dim)
        self.q_r = nn.Linear(hidden_dim, 2)
        self.q_entity = nn.Linear(hidden_dim, hidden_dim, bias=False)
        self.q_entity_scorer = EntityScorer()
        self.q_length = nn.Linear(2 * hidden_dim, max_mention_length)
        self._perplexity = TokenPerplexity()
        self._word_perplexity = TokenPerplexity()
        self._marginal_perplexity = TokenPerplexity()
        self._entity_accuracy = EntityPredictionAccuracy()
        self.shallow = ShallowScorer() if shallow_baseline else None

    # ----- shared pieces -------------------------------------------------------------------------
    def encode(self, tokens: TextFieldTensors) -> Dict[str, torch.Tensor]:
        """LSTM states ``h_t`` and the shifted ``h_{t-1}`` (zeros before the first word)."""
        ids = util.get_token_ids_from_text_field_tensors(tokens)
        mask = util.get_text_field_mask(tokens)
        embedded = self.dropout(self.embedder(ids))
        chunk = self._truncation or embedded.size(1)
        outputs, state = [], None
        for start in range(0, embedded.size(1), chunk):
            output, state = self.lstm(embedded[:, start : start + chunk], state)
            outputs.append(output)
            state = tuple(s.detach() for s in state)
        hidden = torch.cat(outputs, dim=1)
        previous = F.pad(hidden[:, :-1], (0, 0, 1, 0))
        return {"ids": ids, "mask": mask, "hidden": hidden, "previous": previous}

    def _new_entity(self, batch: int) -> torch.Tensor:
        """Embedding of a new entity (eq. 7): u ~ N(r_1, sigma^2 I), e = u / ||u||, one draw per
        document and step while training; outside training the mean direction r_1 / ||r_1||, so
        evaluation, prediction and importance sampling are deterministic in this choice."""
        mean = self.r_embeddings[1].expand(batch, -1)
        if self.training and self._noise > 0:
            mean = mean + self._noise * torch.randn_like(mean)
        return F.normalize(mean, dim=-1)

    def _word_log_probs(
        self, enc: Dict[str, torch.Tensor], current: torch.Tensor, mentioned: torch.Tensor
    ) -> torch.Tensor:
        """log p(X_t | h_{t-1}, e_current) of eq. 6 at every position, (batch, time); with
        ``context_projection`` words outside mentions (``mentioned`` false) use W_c for W_e."""
        projected = self.w_e(current)
        if self.w_c is not None:
            projected = torch.where(mentioned.unsqueeze(-1), projected, self.w_c(current))
        logits = self.output(self.dropout(enc["previous"] + projected))
        return logits.log_softmax(-1).gather(-1, enc["ids"].unsqueeze(-1)).squeeze(-1)

    def _r_log_probs(self, previous: torch.Tensor) -> torch.Tensor:
        """log p(R_t | h_{t-1}) of eq. 3: softmax over ``h^T W_r r_i``, (batch, time, 2)."""
        return (self.w_r(previous) @ self.r_embeddings.t()).log_softmax(-1)

    # ----- scoring a given structure (eq. 9) ----------------------------------------------------
    def score_structure(
        self, enc: Dict[str, torch.Tensor], entity_ids: torch.Tensor, lengths: torch.Tensor
    ) -> Dict[str, torch.Tensor]:
        """Per-document log p(X, R, E, L) and its parts, log q(R, E, L | X), and the E_t
        predictions of §5.3 made from the left context with the gold history."""
        mask = enc["mask"]
        batch, steps = mask.shape
        entity_ids, decision, starts = decision_points(entity_ids, lengths, mask)
        slots = int(entity_ids.max().clamp(min=0)) + 2
        hidden, previous = enc["hidden"], enc["previous"]
        query_p, query_q = self.w_entity(previous), self.q_entity(hidden.detach())
        state = EntityState.empty(batch, slots, hidden.size(-1), hidden)
        p_logits, q_logits, currents, recent, counts = [], [], [], [], []
        for t in range(steps):
            if self._truncation and t > 0 and t % self._truncation == 0:
                state = state.detach()
            new = self._new_entity(batch)
            p_logits.append(self.entity_scorer(query_p[:, t], new, state, t))
            q_logits.append(self.q_entity_scorer(query_q[:, t], new.detach(), state.detach(), t))
            recent.append(state.most_recent())
            counts.append(state.count)
            ids = entity_ids[:, t]
            is_new = starts[:, t] & (ids == state.count)
            current = state.current(ids, is_new, new, self.carry_entity)
            currents.append(current)
            state = self.updater(state, ids, current, hidden[:, t], is_new, t)
        current = torch.stack(currents, 1)
        gold_e = entity_ids.clamp(min=0).unsqueeze(-1)
        p_entity = torch.stack(p_logits, 1).log_softmax(-1)
        q_entity = torch.stack(q_logits, 1).log_softmax(-1)
        gold_r = (entity_ids >= 0).long().unsqueeze(-1)
        gold_l = (lengths.clamp(min=1) - 1).unsqueeze(-1)
        remaining = mask.sum(1, keepdim=True) - torch.arange(steps, device=mask.device)
        p_length = length_log_probs(self.w_length(torch.cat([previous, current], -1)), remaining)
        q_length = length_log_probs(
            self.q_length(torch.cat([hidden, current], -1).detach()), remaining
        )
        q_r = self.q_r(hidden.detach()).log_softmax(-1)

        def total(values: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
            return torch.where(where, values, torch.zeros_like(values)).sum(-1)

        out = {
            "word": total(self._word_log_probs(enc, current, entity_ids >= 0), mask),
            "r": total(self._r_log_probs(previous).gather(-1, gold_r).squeeze(-1), decision),
            "e": total(p_entity.gather(-1, gold_e).squeeze(-1), starts),
            "l": total(p_length.gather(-1, gold_l).squeeze(-1), starts),
        }
        out["log_likelihood"] = out["word"] + out["r"] + out["e"] + out["l"]
        out["proposal_log_prob"] = (
            total(q_r.gather(-1, gold_r).squeeze(-1), decision)
            + total(q_entity.gather(-1, gold_e).squeeze(-1), starts)
            + total(q_length.gather(-1, gold_l).squeeze(-1), starts)
        )
        out["predicted_entities"] = p_entity.argmax(-1)
        out["most_recent"] = torch.stack(recent, 1)
        out["new_entity"] = torch.stack(counts, 1)
        out["mention_starts"] = starts
        out["e_current"] = current
        return out

    # ----- forward ------------------------------------------------------------------------------
    def forward(  # type: ignore[override]
        self,
        tokens: TextFieldTensors,
        entity_ids: torch.Tensor,
        mention_lengths: torch.Tensor,
        sentence_ids: torch.Tensor,
        metadata: Optional[List[Dict[str, Any]]] = None,
        targets: Optional[torch.Tensor] = None,
        human_majority: Optional[torch.Tensor] = None,
    ) -> Dict[str, torch.Tensor]:
        """Loss = -(log p(X, R, E, L) + log q(R, E, L | X)) per token (eq. 9 plus the proposal),
        plus the shallow classifier's cross-entropy when it is on. ``targets`` and
        ``human_majority`` (``inscript_tacl`` reader) select where entity prediction is counted."""
        entity_ids, mention_lengths = entity_ids.long(), mention_lengths.long()
        enc = self.encode(tokens)
        self._check(enc["mask"], entity_ids, mention_lengths, metadata)
        scores = self.score_structure(enc, entity_ids, mention_lengths)
        num_tokens = enc["mask"].sum(1)
        loss = -(scores["log_likelihood"] + scores["proposal_log_prob"]).sum() / num_tokens.sum()
        self._perplexity(scores["log_likelihood"], num_tokens)
        self._word_perplexity(scores["word"], num_tokens)
        shallow = None
        if self.shallow is not None:
            shallow_out = self.shallow(entity_ids, scores["mention_starts"])
            loss = loss + shallow_out["loss"]
            shallow = shallow_out["log_probs"].argmax(-1)
        self._entity_accuracy(
            scores["predicted_entities"], entity_ids, scores["mention_starts"],
            scores["new_entity"], scores["most_recent"], targets, human_majority, shallow,
        )
        output = {
            "loss": loss, **scores, "entity_ids": entity_ids, "mention_lengths": mention_lengths,
            "sentence_ids": sentence_ids,
        }
        if targets is not None:
            output["targets"] = targets
        if shallow is not None:
            output["shallow_predicted"] = shallow
        if not self.training and self.num_importance_samples > 0:
            marginal = self.marginal_log_likelihood(tokens, self.num_importance_samples, enc)
            self._marginal_perplexity(marginal, num_tokens)
            output["marginal_log_likelihood"] = marginal
        if metadata is not None:
            output["metadata"] = metadata
        return output

    def _check(self, mask, entity_ids, lengths, metadata) -> None:
        for row in range(mask.size(0)):
            size = int(mask[row].sum())
            meta = metadata[row] if metadata else {"source": f"batch row {row}"}
            where = " ".join(filter(None, [meta["source"], meta.get("document")]))
            check_structure(
                entity_ids[row, :size].tolist(), lengths[row, :size].tolist(), self._max_length,
                where,
            )

    # ----- §5.1 marginal likelihood by importance sampling --------------------------------------
    @torch.no_grad()
    def marginal_log_likelihood(
        self, tokens: TextFieldTensors, num_samples: int, enc: Optional[Dict] = None
    ) -> torch.Tensor:
        """log p(X) ~= log mean_n p(X, s_n) / q(s_n | X), s_n ~ q, per document (batch,)."""
        enc = enc or self.encode(tokens)
        batch = enc["mask"].size(0)
        per_call = max(1, self._sample_batch // batch)
        weights = []
        for start in range(0, num_samples, per_call):
            copies = min(per_call, num_samples - start)
            repeated = {k: v.repeat_interleave(copies, dim=0) for k, v in enc.items()}
            log_p, log_q = sample_structures(self, repeated)
            weights.append((log_p - log_q).view(batch, copies))
        return torch.cat(weights, 1).logsumexp(1) - math.log(num_samples)

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        metrics = {
            "perplexity": self._perplexity.get_metric(reset),
            "word_ppl": self._word_perplexity.get_metric(reset),
            **self._entity_accuracy.get_metric(reset),
        }
        marginal = self._marginal_perplexity.get_metric(reset)
        if marginal:
            metrics["marginal_perplexity"] = marginal
        return metrics

    default_predictor = "entity_nlm"
