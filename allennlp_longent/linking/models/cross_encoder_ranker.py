"""Cross-encoder candidate ranking for zero-shot entity linking (Logeswaran et al. 2019, §5.2;
Yao et al. 2020, §4): score(m, e) = w · pool(Transformer([CLS] context [SEP] entity [SEP])),
trained with softmax cross-entropy over each mention's candidates.

With ``name_features``, a wide part beside the deep one (Cheng et al. 2016, wide & deep):
score(m, e) += u · [dice(m, e), exact(m, e)], the Dice overlap of the mention's and e's bare
title's content words and 1 when they are equal, u two learned weights. On candidates that share
the mention's name the two features are equal and the softmax ignores u, so what those teach
(read the page) and what candidates with other names teach (read the name) no longer pull the
same weights.
"""

from typing import Any, Dict, List, Optional

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.modules import Seq2VecEncoder, TextFieldEmbedder
from allennlp.modules.seq2vec_encoders import ClsPooler
from allennlp.nn import InitializerApplicator, util

from allennlp_longent.linking.candidates.bm25 import bare_title, bm25_tokens, name_match
from allennlp_longent.linking.metrics.zeshel_accuracy import ZeshelAccuracy


@Model.register("cross_encoder_ranker")
class CrossEncoderRanker(Model):
    """Ranks each mention's candidates with a cross-encoder.

    Parameters
    ----------
    text_field_embedder : embeds each (mention, candidate) pair, e.g. with an
        ``extended_pretrained_transformer`` token embedder.
    pooler : pair vector from the embedded pair; the [CLS] vector by default.
    candidate_chunk_size : pairs encoded per transformer call. Padding candidates are never
        encoded, and each chunk is cut to its longest pair. In evaluation this bounds memory at
        one chunk of activations; in training, combine it with gradient checkpointing.
    name_features : adds the wide part of the module docstring (``_name_scorer``, initialised
        to 0); it reads the mention and titles from the reader's metadata.
    """

    def __init__(
        self,
        vocab: Vocabulary,
        text_field_embedder: TextFieldEmbedder,
        pooler: Optional[Seq2VecEncoder] = None,
        dropout: float = 0.1,
        candidate_chunk_size: int = 16,
        long_threshold: int = 512,
        name_features: bool = False,
        initializer: Optional[InitializerApplicator] = None,
        **kwargs,
    ) -> None:
        super().__init__(vocab, **kwargs)
        if candidate_chunk_size < 1:
            raise ValueError(f"candidate_chunk_size must be positive, got {candidate_chunk_size}")
        self._embedder = text_field_embedder
        self._pooler = pooler or ClsPooler(text_field_embedder.get_output_dim())
        self._dropout = torch.nn.Dropout(dropout)
        self._scorer = torch.nn.Linear(self._pooler.get_output_dim(), 1)
        self._name_scorer = torch.nn.Linear(2, 1, bias=False) if name_features else None
        self.candidate_chunk_size = candidate_chunk_size
        self._accuracy = ZeshelAccuracy(long_threshold=long_threshold)
        (initializer or InitializerApplicator())(self)
        if self._name_scorer is not None:
            torch.nn.init.zeros_(self._name_scorer.weight)

    def forward(  # type: ignore[override]
        self,
        pairs: TextFieldTensors,
        label: Optional[torch.Tensor] = None,
        metadata: Optional[List[Dict[str, Any]]] = None,
    ) -> Dict[str, torch.Tensor]:
        """``pairs``: (batch, candidates, pieces); ``label``: gold position, -1 if absent."""
        mask = util.get_text_field_mask(pairs, num_wrapping_dims=1)
        candidate_mask = mask.any(-1)
        scores = self._score_pairs(pairs, mask, candidate_mask)
        if self._name_scorer is not None:
            if metadata is None:
                raise ValueError("name_features needs the reader's metadata (mention, titles)")
            features = name_features(metadata, candidate_mask.shape).to(scores.device)
            wide = self._name_scorer(features).squeeze(-1)
            scores = torch.where(candidate_mask, scores + wide, scores)
        probabilities = util.masked_softmax(scores, candidate_mask)
        output = {
            "scores": scores,
            "probabilities": probabilities,
            "candidate_mask": candidate_mask,
        }
        if metadata is not None:
            output["metadata"] = metadata
        if label is not None:
            has_gold = label >= 0
            log_probs = util.masked_log_softmax(scores, candidate_mask)
            picked = log_probs.gather(-1, label.clamp(min=0).unsqueeze(-1)).squeeze(-1)
            gold_count = has_gold.sum()
            output["loss"] = -(picked * has_gold).sum() / gold_count.clamp(min=1)
            if metadata is not None:
                self._accuracy(
                    scores,
                    candidate_mask,
                    label,
                    [entry.get("world") for entry in metadata],
                    [entry.get("dlength") for entry in metadata],
                )
        return output

    def _score_pairs(
        self, pairs: TextFieldTensors, mask: torch.Tensor, candidate_mask: torch.Tensor
    ) -> torch.Tensor:
        """Scores of the real candidates, encoded chunk by chunk; padding gets the lowest score."""
        flat_real = candidate_mask.flatten().nonzero().squeeze(-1)
        flat_mask = mask.flatten(0, 1)
        flat_pairs = {
            indexer: {key: tensor.flatten(0, 1) for key, tensor in tensors.items()}
            for indexer, tensors in pairs.items()
        }
        lengths = flat_mask.sum(-1)
        flat_scores = []
        for chunk in flat_real.split(self.candidate_chunk_size):
            width = int(lengths[chunk].max())
            chunk_pairs = {
                indexer: {key: tensor[chunk][:, :width] for key, tensor in tensors.items()}
                for indexer, tensors in flat_pairs.items()
            }
            embedded = self._embedder(chunk_pairs)
            pooled = self._pooler(embedded, flat_mask[chunk][:, :width])
            flat_scores.append(self._scorer(self._dropout(pooled)).squeeze(-1))
        scores = candidate_mask.new_full(
            candidate_mask.shape, torch.finfo(torch.float32).min, dtype=torch.float32
        )
        if flat_scores:
            real_scores = torch.cat(flat_scores).to(scores.dtype)
            scores = scores.flatten().index_put((flat_real,), real_scores).view_as(candidate_mask)
        return scores

    def make_output_human_readable(
        self, output_dict: Dict[str, torch.Tensor]
    ) -> Dict[str, torch.Tensor]:
        return add_ranking(output_dict)

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        return self._accuracy.get_metric(reset)

    default_predictor = "cross_encoder_linker"


def name_features(metadata: List[Dict[str, Any]], shape: torch.Size) -> torch.Tensor:
    """(batch, candidates, 2): :func:`~allennlp_longent.linking.candidates.bm25.name_match` of the
    mention's bare title and each candidate's title (module docstring); 0 for padding."""
    features = torch.zeros(*shape, 2)
    for row, entry in enumerate(metadata):
        bare = bare_title(entry["mention"])
        words = bm25_tokens(bare)
        for column, title in enumerate(entry["candidate_titles"]):
            features[row, column] = torch.tensor(name_match(words, bare, title))
    return features


def add_ranking(output_dict: Dict[str, Any]) -> Dict[str, Any]:
    """Adds ``ranked``: per mention, its candidates best first with id, title, score and
    probability, and ``predicted_document_id``. Needs ``scores``, ``probabilities`` and
    ``candidate_mask``; ids and titles come from the ``metadata``."""
    ranked_batch, predicted = [], []
    scores = output_dict["scores"].detach().cpu()
    probabilities = output_dict["probabilities"].detach().cpu()
    masks = output_dict["candidate_mask"].cpu()
    for row, entry in enumerate(output_dict.get("metadata") or [{}] * scores.size(0)):
        count = int(masks[row].sum())
        order = scores[row, :count].argsort(descending=True).tolist()
        ids = entry.get("candidate_ids") or [str(i) for i in range(count)]
        titles = entry.get("candidate_titles") or [None] * count
        ranked = [
            {
                "document_id": ids[i],
                "title": titles[i],
                "score": float(scores[row, i]),
                "probability": float(probabilities[row, i]),
            }
            for i in order
        ]
        ranked_batch.append(ranked)
        predicted.append(ranked[0]["document_id"] if ranked else None)
    output_dict["ranked"] = ranked_batch
    output_dict["predicted_document_id"] = predicted
    return output_dict
