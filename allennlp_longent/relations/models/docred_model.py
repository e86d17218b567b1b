"""Document-level relation extraction over all ordered entity pairs (DocRED; Yao et al. 2019).

Entity features come from an :class:`EntityFeatureExtractor` over the LUKE outputs; with
``entity_mention_index`` (the readers' ``per_mention``) every mention is its own entity token and
the mention features are pooled per entity by log-sum-exp (ATLOP, Zhou et al. 2021, Eq. 2).
A pair (h, t) is mapped to ``z_h = tanh(W_h e_h)``, ``z_t = tanh(W_t e_t)`` and scored either by
ATLOP's group bilinear classifier (``block_size`` set; Eq. 3-4: ``z`` cut into ``d / k`` blocks of
size ``k``, ``logit_r = sum_i z_h^i^T W_r^i z_t^i + b_r``) or by ``W [z_h; z_t; z_h * z_t]``
(``block_size`` null). Each pair gets one logit per relation plus the threshold class TH at index 0.
With ``context_pooling`` the pair's localized context ``c^(s,o)`` (ATLOP §3.3, see
:mod:`~allennlp_longent.relations.models.context_pooling`) is added inside the projections:
``z_h = tanh(W_h e_h + W_c1 c)``, ``z_t = tanh(W_t e_t + W_c2 c)``.

Loss (``loss``): ``"atlop"`` is ATLOP's adaptive-thresholding loss as published (§2.2, Eq. 5-6):
per pair, L1 = -sum_{r in P_T} log softmax_{P_T + TH}(l)_r ranks each positive relation above TH,
L2 = -log softmax_{N_T + TH}(l)_TH ranks TH above every negative; the loss is the mean of L1 + L2
over all pairs (a pair without relations has L1 = 0). ``"atlop_positive_pairs"`` is an earlier
variant of this project: the L1 sum divided by the number of pairs that have a relation instead of
by all pairs, which weights positives ~30-fold more and drives recall over precision.

Decision rule: relation r is predicted for a pair iff ``l_r > l_TH + b``; with ``top_k`` set only
the ``top_k`` highest-scoring relations of a pair can be predicted (ATLOP predicts at most 4). A
pair with no relation above TH is N/A. ``b`` (``threshold_offset``) is 0, ATLOP's rule, unless
set; the ``docred_threshold`` trainer callback
(:mod:`~allennlp_longent.relations.threshold_calibration`) chooses it on the validation documents
after training.

``ign_train_file`` (a path, optionally ``file.json[START:STOP]``) enables Ign-F1.
"""

from typing import Any, Dict, List, Optional, Tuple

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models import Model
from allennlp.modules.token_embedders import TokenEmbedder
from allennlp.nn import InitializerApplicator

from allennlp_longent.modules.entity_features import EntityFeatureExtractor, LukeEntityModel
from allennlp_longent.relations.metrics.docred_f1 import DocredF1, load_train_facts
from allennlp_longent.relations.models.context_pooling import (
    LastLayerEntityAttention,
    localized_context,
)

LOSSES = ("atlop", "atlop_positive_pairs")


def adaptive_threshold_loss(
    logits: torch.Tensor, labels: torch.Tensor, variant: str = "atlop"
) -> torch.Tensor:
    """ATLOP Eq. 5-6 (module docstring). ``logits`` (K, R + 1) with TH at column 0; ``labels``
    (K, R) multi-hot."""
    positive = torch.cat([torch.zeros_like(labels[:, :1]), labels], 1).bool()
    threshold = torch.zeros_like(positive)
    threshold[:, 0] = True
    above = logits.masked_fill(~(positive | threshold), float("-inf")).log_softmax(-1)
    below = logits.masked_fill(positive, float("-inf")).log_softmax(-1)
    loss_positive = -(above.masked_fill(~positive, 0.0)).sum()
    if variant == "atlop":
        pairs = positive.size(0)
    elif variant == "atlop_positive_pairs":
        pairs = positive.any(-1).sum().clamp(min=1)
    else:
        raise ValueError(f"loss must be one of {LOSSES}, not {variant!r}")
    return loss_positive / pairs - below[:, 0].mean()


class GroupBilinear(torch.nn.Module):
    """ATLOP's group bilinear classifier (Eq. 3-4): ``dim / block_size`` blocks, each a bilinear
    form per output, summed, as one linear map of the blockwise outer products."""

    def __init__(self, dim: int, block_size: int, outputs: int) -> None:
        super().__init__()
        if dim % block_size:
            raise ValueError(f"projection_dim {dim} is not a multiple of block_size {block_size}")
        self.block_size = block_size
        self.linear = torch.nn.Linear(dim * block_size, outputs)

    def forward(self, head: torch.Tensor, tail: torch.Tensor) -> torch.Tensor:
        k = self.block_size
        head = head.view(*head.shape[:-1], -1, k, 1)
        tail = tail.view(*tail.shape[:-1], -1, 1, k)
        return self.linear((head * tail).flatten(-3))


def count_triples(metric: DocredF1, documents: List[List[Tuple[int, int, str, int]]],
                  metadata: List[Dict[str, Any]]) -> None:
    """Adds the predicted ``(head, tail, relation, pair)`` triples of labelled documents to
    ``metric``."""
    metric([{(h, t, r) for h, t, r, _ in doc} for doc in documents],
           [meta["gold"] for meta in metadata], [meta["entity_names"] for meta in metadata])


@Model.register("luke_docred")
class LukeDocred(LukeEntityModel):
    def __init__(
        self,
        vocab: Vocabulary,
        embedder: TokenEmbedder,
        feature_extractor: Optional[EntityFeatureExtractor] = None,
        projection_dim: int = 256,
        block_size: Optional[int] = None,
        context_pooling: bool = False,
        loss: str = "atlop",
        dropout: float = 0.1,
        top_k: Optional[int] = 4,
        threshold_offset: float = 0.0,
        ign_train_file: Optional[str] = None,
        label_namespace: str = "relation_labels",
        initializer: Optional[InitializerApplicator] = None,
        **kwargs,
    ) -> None:
        super().__init__(vocab, embedder, feature_extractor, dropout, label_namespace, **kwargs)
        self.head = torch.nn.Linear(self.feature_dim, projection_dim)
        self.tail = torch.nn.Linear(self.feature_dim, projection_dim)
        self.context_attention = None
        if context_pooling:
            self.context_attention = LastLayerEntityAttention(embedder)
            hidden = embedder.get_output_dim()
            self.head_context = torch.nn.Linear(hidden, projection_dim, bias=False)
            self.tail_context = torch.nn.Linear(hidden, projection_dim, bias=False)
        self.num_relations = vocab.get_vocab_size(label_namespace)
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, not {loss!r}")
        self.loss = loss
        self.bilinear = None
        if block_size is not None:
            self.bilinear = GroupBilinear(projection_dim, block_size, self.num_relations + 1)
        else:
            self.classifier = torch.nn.Linear(3 * projection_dim, self.num_relations + 1)
        self.top_k = top_k
        self.threshold_offset = threshold_offset
        facts = load_train_facts(ign_train_file) if ign_train_file else None
        self.metric = DocredF1(facts)
        if initializer is not None:
            initializer(self)

    def forward(
        self,
        tokens: TextFieldTensors,
        entity_ids: torch.Tensor,
        entity_position_ids: torch.Tensor,
        entity_mask: torch.Tensor,
        pair_indices: torch.Tensor,
        pair_labels: Optional[torch.Tensor] = None,
        metadata: Optional[List[Dict[str, Any]]] = None,
        entity_mention_index: Optional[torch.Tensor] = None,
    ) -> Dict[str, Any]:
        words, entities = self.encode(tokens, entity_ids, entity_position_ids, entity_mask)
        features, _ = self.pooled_features(
            words, entities, entity_position_ids, entity_mask, entity_mention_index
        )
        pair_mask = pair_indices[..., 0] >= 0
        index = pair_indices.clamp(min=0)
        rows = torch.arange(features.size(0), device=features.device).unsqueeze(1)
        z_head = self.head(features[rows, index[..., 0]])
        z_tail = self.tail(features[rows, index[..., 1]])
        if self.context_attention is not None:
            context = self.pair_context(words, entities, pair_indices, entity_mention_index)
            z_head = z_head + self.head_context(context)
            z_tail = z_tail + self.tail_context(context)
        z_head, z_tail = torch.tanh(z_head), torch.tanh(z_tail)
        z_head, z_tail = self.dropout(z_head), self.dropout(z_tail)
        if self.bilinear is not None:
            logits = self.bilinear(z_head, z_tail)
        else:
            logits = self.classifier(torch.cat([z_head, z_tail, z_head * z_tail], -1))
        predicted = self.decide(logits, pair_indices)
        output: Dict[str, Any] = {"logits": logits, "predicted": predicted}
        if pair_labels is not None:
            output["loss"] = adaptive_threshold_loss(
                logits[pair_mask], pair_labels[pair_mask].float(), self.loss
            )
        if metadata is not None:
            output["triples"] = self.triples(predicted, pair_indices, metadata)
            output["metadata"] = metadata
            if all(meta["gold"] is not None for meta in metadata):
                count_triples(self.metric, output["triples"], metadata)
        return output

    def pair_context(
        self,
        words: torch.Tensor,
        entities: torch.Tensor,
        pair_indices: torch.Tensor,
        entity_mention_index: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        """ATLOP's ``c^(s,o)`` (B, P, H) over the last-layer word and entity-token states, from
        the attention of the embedder call that produced ``words`` and ``entities``."""
        if self.context_attention is None:
            raise ValueError("pair_context needs context_pooling=True")
        states = torch.cat([words, entities], 1)
        attention = self.context_attention.probabilities()
        return localized_context(attention, states, pair_indices, entity_mention_index)

    def decide(
        self, logits: torch.Tensor, pair_indices: torch.Tensor, offset: Optional[float] = None
    ) -> torch.Tensor:
        """Relations whose logit beats TH + ``offset`` (default ``threshold_offset``), keeping the
        ``top_k`` best of them, on real pairs only. (B, P, R) bool."""
        offset = self.threshold_offset if offset is None else offset
        scores = logits[..., 1:]
        predicted = (scores > logits[..., :1] + offset) & (pair_indices[..., :1] >= 0)
        if self.top_k is not None and self.top_k < scores.size(-1):
            kth = scores.topk(self.top_k, -1).values[..., -1:]
            predicted &= scores >= kth
        return predicted

    def triples(self, predicted, pair_indices, metadata) -> List[List[Tuple[int, int, str, int]]]:
        """Predicted (head, tail, relation, pair) per document over ``vertexSet`` indices."""
        labels = self.vocab.get_index_to_token_vocabulary(self.label_namespace)
        documents: List[List[Tuple[int, int, str, int]]] = [[] for _ in metadata]
        for row, pair, relation in predicted.nonzero().tolist():
            kept = metadata[row]["entities"]
            head, tail = pair_indices[row, pair].tolist()
            documents[row].append((kept[head], kept[tail], labels[relation], pair))
        return documents

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        """Adds ``prediction``: ``{"title", "relations": [{"title", "h_idx", "t_idx", "r",
        "score"}]}``, the official DocRED submission layout plus the margin over TH."""
        predictions = []
        for row, triples in enumerate(output_dict["triples"]):
            title = output_dict["metadata"][row]["title"]
            logits = output_dict["logits"][row]
            relations = []
            for head, tail, relation, pair in triples:
                column = self.vocab.get_token_index(relation, self.label_namespace) + 1
                margin = (logits[pair, column] - logits[pair, 0]).item()
                relations.append(
                    {
                        "title": title,
                        "h_idx": head,
                        "t_idx": tail,
                        "r": relation,
                        "score": round(margin, 6),
                    }
                )
            predictions.append({"title": title, "relations": relations})
        output_dict["prediction"] = predictions
        return output_dict

    default_predictor = "relation_extraction"
