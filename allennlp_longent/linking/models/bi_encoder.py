"""Bi-encoder for zero-shot entity linking (Wu et al. 2020, BLINK, §3.1).

A mention in context and an entity (title + description) are embedded separately,
y_m = pool(T_m([CLS] left [Ms] mention [Me] right [SEP])), y_e = pool(T_e([CLS] title [ENT]
description [SEP])), and scored by s(m, e) = y_m · y_e (cosine when the vectors are normalized).
Training (§3.1, eq. 3) minimises -s(m_i, e_i) + log Σ_j exp(s(m_i, e_j)) over the other mentions'
gold entities in the batch (in-batch negatives) plus the mention's hard negatives from a retriever.
"""

from typing import Any, Dict, List, Optional

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.modules import TextFieldEmbedder
from allennlp.nn import InitializerApplicator, util

from allennlp_longent.linking.metrics.zeshel_accuracy import ZeshelAccuracy
from allennlp_longent.linking.models.cross_encoder_ranker import add_ranking
from allennlp_longent.modules.sentence_pooling import POOLINGS, checkpoint_pooling, pool


@Model.register("bi_encoder")
class BiEncoder(Model):
    """Embeds mentions and entities apart; ranks candidates by dot product.

    Parameters
    ----------
    text_field_embedder : embeds mentions, and entities too unless ``entity_embedder`` is given
        (BLINK uses two transformers; one shared transformer is the sentence-encoder setting).
    pooling : ``cls``, ``mean``, ``max``, or ``auto``: what the sentence-transformers checkpoint
        under the embedder declares (``1_Pooling/config.json``); ``normalize`` then defaults to the
        checkpoint's ``Normalize`` module.
    scale : scores are multiplied by this in the loss (a temperature; cosines lie in [-1, 1]).
    chunk_size : candidate sequences embedded per transformer call.
    """

    def __init__(
        self,
        vocab: Vocabulary,
        text_field_embedder: TextFieldEmbedder,
        entity_embedder: Optional[TextFieldEmbedder] = None,
        pooling: str = "auto",
        normalize: Optional[bool] = None,
        scale: float = 20.0,
        chunk_size: int = 64,
        long_threshold: int = 512,
        initializer: Optional[InitializerApplicator] = None,
        **kwargs,
    ) -> None:
        super().__init__(vocab, **kwargs)
        self._mention_embedder = text_field_embedder
        self._entity_embedder = entity_embedder or text_field_embedder
        if pooling == "auto":
            pooling, declared = checkpoint_pooling(_checkpoint_path(text_field_embedder))
            normalize = declared if normalize is None else normalize
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be 'auto' or one of {POOLINGS}, got {pooling!r}")
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be positive, got {chunk_size}")
        self.pooling = pooling
        self.normalize = bool(normalize)
        self.scale = scale
        self.chunk_size = chunk_size
        self._accuracy = ZeshelAccuracy(long_threshold=long_threshold)
        (initializer or InitializerApplicator())(self)

    def embed(self, text: TextFieldTensors, entities: bool = False) -> torch.Tensor:
        """``(batch, dim)`` vectors of a batch of single sequences."""
        embedder = self._entity_embedder if entities else self._mention_embedder
        mask = util.get_text_field_mask(text)
        vectors = pool(embedder(text), mask, self.pooling)
        return torch.nn.functional.normalize(vectors, dim=-1) if self.normalize else vectors

    def forward(  # type: ignore[override]
        self,
        mention: TextFieldTensors,
        candidates: Optional[TextFieldTensors] = None,
        entity: Optional[TextFieldTensors] = None,
        label: Optional[torch.Tensor] = None,
        metadata: Optional[List[Dict[str, Any]]] = None,
    ) -> Dict[str, Any]:
        """``mention``: (batch, pieces); ``candidates``: (batch, candidates, pieces); ``entity``:
        the gold entity of each mention (batch, pieces); ``label``: gold position, -1 if absent."""
        mentions = self.embed(mention)
        output: Dict[str, Any] = {"mention_vectors": mentions}
        if metadata is not None:
            output["metadata"] = metadata
        scores = candidate_mask = None
        if candidates is not None:
            candidate_mask = util.get_text_field_mask(candidates, num_wrapping_dims=1).any(-1)
            vectors = self._embed_candidates(candidates, candidate_mask)
            scores = (mentions.unsqueeze(1) * vectors).sum(-1)
            scores = scores.masked_fill(~candidate_mask, torch.finfo(scores.dtype).min)
            output.update(
                scores=scores,
                candidate_mask=candidate_mask,
                probabilities=util.masked_softmax(scores, candidate_mask),
            )
        if entity is not None:
            output["loss"] = self._in_batch_loss(mentions, self.embed(entity, True), scores,
                                                 candidate_mask, label, metadata)
        elif label is not None and scores is not None:
            has_gold = label >= 0
            log_probs = util.masked_log_softmax(scores * self.scale, candidate_mask)
            picked = log_probs.gather(-1, label.clamp(min=0).unsqueeze(-1)).squeeze(-1)
            output["loss"] = -(picked * has_gold).sum() / has_gold.sum().clamp(min=1)
        if label is not None and scores is not None and metadata is not None:
            self._accuracy(scores, candidate_mask, label, [m.get("world") for m in metadata],
                           [m.get("dlength") for m in metadata])
        return output

    def _in_batch_loss(
        self,
        mentions: torch.Tensor,
        golds: torch.Tensor,
        candidate_scores: Optional[torch.Tensor],
        candidate_mask: Optional[torch.Tensor],
        label: Optional[torch.Tensor],
        metadata: Optional[List[Dict[str, Any]]],
    ) -> torch.Tensor:
        """Softmax over every gold entity of the batch and the mention's own candidates other
        than its gold; another mention's gold that is this mention's gold too is left out."""
        in_batch = mentions @ golds.T
        size = in_batch.size(0)
        eye = torch.eye(size, dtype=torch.bool, device=in_batch.device)
        same = eye.clone()
        if metadata is not None:
            gold_ids = [m.get("gold_document_id") for m in metadata]
            same = torch.tensor([[a is not None and a == b for b in gold_ids] for a in gold_ids],
                                dtype=torch.bool, device=in_batch.device) | eye
        logits = [in_batch.masked_fill(same & ~eye, torch.finfo(in_batch.dtype).min)]
        if candidate_scores is not None:
            negatives = candidate_mask.clone()
            if label is not None:
                rows = (label >= 0).nonzero().squeeze(-1)
                negatives[rows, label[rows]] = False
            logits.append(candidate_scores.masked_fill(~negatives, torch.finfo(in_batch.dtype).min))
        logits = torch.cat(logits, dim=1) * self.scale
        return torch.nn.functional.cross_entropy(logits, torch.arange(size, device=logits.device))

    def _embed_candidates(self, candidates: TextFieldTensors, candidate_mask: torch.Tensor):
        """``(batch, candidates, dim)``; padding candidates are never embedded (zeros)."""
        real = candidate_mask.flatten().nonzero().squeeze(-1)
        flat = {indexer: {key: tensor.flatten(0, 1) for key, tensor in tensors.items()}
                for indexer, tensors in candidates.items()}
        lengths = util.get_text_field_mask(flat).sum(-1)
        pieces = []
        for chunk in real.split(self.chunk_size):
            width = int(lengths[chunk].max())
            pieces.append(self.embed(
                {indexer: {key: tensor[chunk][:, :width] for key, tensor in tensors.items()}
                 for indexer, tensors in flat.items()},
                entities=True,
            ))
        dim = pieces[0].size(-1) if pieces else 1
        vectors = candidate_mask.new_zeros((candidate_mask.numel(), dim), dtype=torch.float32)
        if pieces:
            vectors = vectors.index_put((real,), torch.cat(pieces).to(vectors.dtype))
        return vectors.view(*candidate_mask.shape, dim)

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        return add_ranking(output_dict) if "scores" in output_dict else output_dict

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        return self._accuracy.get_metric(reset)

    default_predictor = "cross_encoder_linker"


def _checkpoint_path(embedder: TextFieldEmbedder) -> str:
    """The folder the embedder's transformer was loaded from (for ``pooling: auto``)."""
    for module in embedder.modules():
        model = getattr(module, "transformer_model", None)
        if model is not None:
            return model.config._name_or_path
    raise ValueError("pooling 'auto' needs a pretrained-transformer token embedder")
