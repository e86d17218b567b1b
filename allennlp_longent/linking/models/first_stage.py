"""Model ``context_evidence``: the cascade's first stage as an AllenNLP model, and trainer
``context_evidence_fit`` that fits it with ``allennlp train``.

The features and the score are :mod:`allennlp_longent.linking.evidence`'s (its module docstring
gives the equation); this model holds the fitted weights w (a parameter) and the feature scales
μ, σ (a buffer), retrieves ``top_k`` candidates per mention from the mention's world, and is
fitted by :func:`allennlp_longent.linking.evidence.fit` (listwise softmax log-likelihood of the
gold with an L2 penalty, by L-BFGS) over every training mention at once.
"""

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import torch
from allennlp.data import DataLoader, Vocabulary
from allennlp.models import Model
from allennlp.training.trainer import Trainer

from allennlp_longent.linking.candidates.bm25 import BM25CandidateGenerator
from allennlp_longent.linking.cascade import Cascade, CascadeSettings
from allennlp_longent.linking.evidence import FEATURES, ContextEvidence, EvidenceSettings, fit
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase
from allennlp_longent.linking.world_index import WorldIndexes


class MentionKnowledgeBases:
    """The knowledge base of each mention record: its world's index (one ``WorldIndexes`` per
    documents folder) or an index of the record's inline ``entities``."""

    def __init__(self, retriever: str = "bm25", encoder: str = "packaged_minilm",
                 mention_length: int = 16) -> None:
        self.retriever = retriever
        self.encoder = encoder
        self.mention_length = mention_length
        self._folders: Dict[str, WorldIndexes] = {}

    def indexes(self, documents_dir: str) -> WorldIndexes:
        if documents_dir not in self._folders:
            self._folders[documents_dir] = WorldIndexes(documents_dir, self.encoder,
                                                        self.mention_length)
        return self._folders[documents_dir]

    def of(self, mention: dict, retriever: Optional[str] = None) -> KnowledgeBase:
        if mention.get("entities") is not None:
            entities = [Entity(d["document_id"], d["title"], d["text"])
                        for d in mention["entities"]]
            generator = BM25CandidateGenerator()
            generator.index_documents([e.document() for e in entities])
            return KnowledgeBase.indexed(entities, generator)
        return self.indexes(mention["documents_dir"]).kb(mention["world"],
                                                         retriever or self.retriever)

    def grouped(self, mentions: List[dict]) -> Dict[Any, List[int]]:
        """Positions of ``mentions`` by knowledge base (inline entities: one group each)."""
        groups: Dict[Any, List[int]] = defaultdict(list)
        for i, mention in enumerate(mentions):
            key = i if mention.get("entities") is not None else (mention["documents_dir"],
                                                                 mention["world"])
            groups[key].append(i)
        return groups


@Model.register("context_evidence")
class ContextEvidenceFirstStage(Model):
    """Retrieves ``top_k`` candidates by ``retriever`` and re-scores them with context evidence
    read by ``encoder`` (a sentence-transformers folder or ``packaged_minilm``), used untrained.
    """

    def __init__(self, vocab: Vocabulary, encoder: str = "packaged_minilm", window: int = 48,
                 max_length: int = 256, top_k: int = 64, retriever: str = "bm25",
                 l2: float = 1e-2, steps: int = 200, batch_size: int = 32,
                 signed: bool = True, **kwargs) -> None:
        super().__init__(vocab, **kwargs)
        self.encoder, self.window, self.max_length = encoder, window, max_length
        self.top_k, self.l2, self.steps, self.signed = top_k, l2, steps, signed
        self.weights = torch.nn.Parameter(torch.zeros(len(FEATURES), dtype=torch.float64))
        self.register_buffer("scales", torch.tensor([[0.0, 1.0]] * len(FEATURES),
                                                    dtype=torch.float64))
        self.kbs = MentionKnowledgeBases(retriever, encoder)
        self._evidence = ContextEvidence(self.settings(), batch_size)
        self._counts = {"mentions": 0, "first_stage_right": 0, "retrieval_right": 0}

    def settings(self) -> EvidenceSettings:
        """The first stage's settings as :mod:`evidence` reads them (``weights``, ``scales``)."""
        weights = dict(zip(FEATURES, self.weights.detach().tolist()))
        if not any(weights.values()):  # unfitted: no weights, so every feature is computed
            weights = {}  # (zero weights would skip the encoder's: evidence.uses_encoder)
        scales = self.scales.tolist()
        return EvidenceSettings(self.encoder, self.max_length, self.window, weights,
                                dict(zip(FEATURES, scales)))

    def _load_from_state_dict(self, state_dict: Dict[str, torch.Tensor], prefix: str,
                              *args: Any, **kwargs: Any) -> None:
        """An archive fitted before a feature was appended to ``FEATURES`` holds fewer rows: the
        new features get weight 0 and scale (0, 1), as :func:`evidence.standardize` reads
        settings that lack them."""
        for name, pad in (("weights", [0.0]), ("scales", [0.0, 1.0])):
            held = state_dict.get(prefix + name)
            if held is not None and 0 < len(held) < len(FEATURES):
                rows = torch.tensor([pad] * (len(FEATURES) - len(held)), dtype=held.dtype)
                state_dict[prefix + name] = torch.cat([held, rows.reshape(-1, *held.shape[1:])])
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def load_fitted(self, fitted: EvidenceSettings) -> None:
        with torch.no_grad():
            self.weights.copy_(torch.tensor([fitted.weights[f] for f in FEATURES]))
            self.scales.copy_(torch.tensor([fitted.scales[f] for f in FEATURES]))

    def features(self, mentions: List[dict]) -> List[Tuple[List[Entity], np.ndarray]]:
        """Per mention, its ``top_k`` retrieved candidates and their feature rows."""
        self._evidence.settings = self.settings()
        found: List[Optional[Tuple[List[Entity], np.ndarray]]] = [None] * len(mentions)
        for rows in self.kbs.grouped(mentions).values():
            cascade = Cascade(self.kbs.of(mentions[rows[0]]), None,
                              CascadeSettings(top_k=self.top_k, evidence={}),
                              evidence=self._evidence)
            for i, item in zip(rows, cascade.features([mentions[i]["query"] for i in rows])):
                found[i] = item
        return found  # type: ignore[return-value]

    def forward(self, mention: List[dict]) -> Dict[str, Any]:  # type: ignore[override]
        """Ranks each mention's candidates; ``loss``: the mean listwise negative log-likelihood of
        the golds found among two or more candidates, plus ``l2`` ‖w‖²."""
        scale = self.scales
        losses, ranked = [], []
        for item, (entities, rows) in zip(mention, self.features(mention)):
            if not entities:
                ranked.append([])
                continue
            x = (torch.as_tensor(rows, dtype=torch.float64) - scale[:, 0]) / scale[:, 1]
            scores = x @ self.weights
            values = scores.detach().numpy()
            order = np.lexsort((np.arange(len(entities)), -values))
            ranked.append([(entities[i].id, float(values[i])) for i in order])
            ids = [e.id for e in entities]
            if item.get("gold") is None:
                continue
            self._counts["mentions"] += 1
            self._counts["first_stage_right"] += ids[int(order[0])] == item["gold"]
            self._counts["retrieval_right"] += ids[0] == item["gold"]
            if item["gold"] in ids and len(ids) > 1:
                losses.append(-torch.log_softmax(scores, 0)[ids.index(item["gold"])])
        output: Dict[str, Any] = {"ranked": ranked}
        if losses:
            output["loss"] = torch.stack(losses).mean() + self.l2 * (self.weights ** 2).sum()
        elif self.training:  # keeps the trainer's graph when a batch has no usable mention
            output["loss"] = self.l2 * (self.weights ** 2).sum()
        return output

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        total = self._counts["mentions"]
        metrics = {"first_stage_at_1": self._counts["first_stage_right"] / max(total, 1),
                   "retrieval_at_1": self._counts["retrieval_right"] / max(total, 1),
                   **{k: float(v) for k, v in self._counts.items()}}
        if reset:
            self._counts = dict.fromkeys(self._counts, 0)
        return metrics


@Trainer.register("context_evidence_fit")
class ContextEvidenceFit(Trainer):
    """Fits a ``context_evidence`` model in one step on all training mentions (what a convex
    loss over a dozen weights needs, rather than epochs of SGD), then evaluates it on validation
    and writes ``best.th`` and ``metrics.json`` as the gradient-descent trainer does."""

    def __init__(self, model: Model, data_loader: DataLoader,
                 serialization_dir: Optional[str] = None,
                 validation_data_loader: Optional[DataLoader] = None,
                 local_rank: int = 0, cuda_device: Optional[int] = None, **kwargs) -> None:
        super().__init__(serialization_dir, cuda_device if cuda_device is not None else -1,
                         local_rank=local_rank)
        if not isinstance(model, ContextEvidenceFirstStage):
            raise ValueError(f"trainer context_evidence_fit fits a context_evidence model, not "
                             f"a {type(model).__name__}")
        self.model = model
        self.data_loader = data_loader
        self.validation_data_loader = validation_data_loader
        self._best = Path(self._serialization_dir) / "best.th"

    def train(self) -> Dict[str, Any]:
        mentions = [i["mention"].metadata for i in self.data_loader.iter_instances()]
        rows, golds = [], []
        for mention, (entities, found) in zip(mentions, self.model.features(mentions)):
            ids = [e.id for e in entities]
            rows.append(found)
            golds.append(ids.index(mention["gold"]) if mention["gold"] in ids else -1)
        fitted = fit(rows, golds, self.model.settings(), self.model.l2, self.model.steps,
                     signed=self.model.signed)
        self.model.load_fitted(fitted)
        metrics: Dict[str, Any] = {f"training_{k}": v for k, v in fitted.fitted.items()}
        metrics.update({f"weight_{k}": v for k, v in fitted.weights.items()})
        if self.validation_data_loader is not None:
            self.model.eval()
            with torch.no_grad():
                for batch in self.validation_data_loader:
                    self.model(**batch)
            metrics.update({f"validation_{k}": v
                            for k, v in self.model.get_metrics(reset=True).items()})
        torch.save(self.model.state_dict(), self._best)
        (Path(self._serialization_dir) / "metrics.json").write_text(
            json.dumps(metrics, indent=2) + "\n")
        return metrics

    def get_checkpoint_state(self) -> None:
        return None

    def get_best_weights_path(self) -> str:
        return str(self._best)
