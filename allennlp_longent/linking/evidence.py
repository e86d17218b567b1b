"""Context evidence: the cascade's first stage re-scores every retrieved candidate with an
untrained sentence encoder that reads the mention string and the sentences around the mention.

For a mention with retrieved candidates e_i (``v``: unit vectors of the encoder; an entity is read
as its title and description):

    mention_i = cos(v(mention string), v(e_i))
    clue_i    = max_s cos(v(s), v(e_i)),  s a sentence within ``window`` words of the mention,
                the mention's own sentence without the mention's words

and the first-stage score is ``s_i = Σ_f w_f (x_{f,i} - μ_f) / σ_f`` over the features
f ∈ {retrieval, mention, clue, own_document, title_match}, where ``own_document`` is 1 for the
entity whose page the mention is on (zeshel contexts are pages of the knowledge base; a page
rarely links to itself, but its own words match the context best), 0 otherwise and for free text,
and ``title_match`` is 1 when the mention string is the title, ignoring case and a trailing
qualifier in brackets ("Edda Ambrell" and "Edda Ambrell (ship)"). μ, σ and w are fitted
on training mentions by the listwise softmax log-likelihood of the gold candidate (the ranking
loss of Logeswaran et al. 2019) with an L2 penalty, on other worlds than those linked.
"""

import logging
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

import numpy as np

from allennlp_longent.linking.candidates.generator import MentionQuery

if TYPE_CHECKING:
    from allennlp_longent.linking.dense_encoder import DenseEncoder
    from allennlp_longent.linking.knowledge_base import Entity

logger = logging.getLogger(__name__)
FEATURES = ("retrieval", "mention", "clue", "own_document", "title_match")
SENTENCE_ENDS = (".", "!", "?")


def nearby_sentences(words: Sequence[str], start: int, end: int, window: int) -> List[str]:
    """Whole sentences (ended by a word ending in ``. ! ?``) with a word within ``window`` words
    of the mention ``words[start:end + 1]``; the sentence holding the mention without the
    mention's words (the name alone is the ``mention`` feature), if anything is left of it."""
    sentences, first = [], 0
    for i, word in enumerate(words):
        if word.endswith(SENTENCE_ENDS) or i == len(words) - 1:
            near = i >= start - window and first <= end + window
            sentence = [w for j, w in enumerate(words[first : i + 1], first)
                        if not start <= j <= end]
            if near and any(not w.endswith(SENTENCE_ENDS) for w in sentence):
                sentences.append(" ".join(sentence))
            first = i + 1
    return sentences


def bare_title(text: str) -> str:
    """Lower case, a trailing ``(qualifier)`` removed, spaces collapsed."""
    text = " ".join(text.lower().split())
    if text.endswith(")") and " (" in text:
        text = text[: text.rindex(" (")]
    return text


@dataclass
class EvidenceSettings:
    """What the first stage runs with; ``fit`` fills ``weights`` and ``scales``."""

    encoder: str
    max_length: int = 256
    window: int = 48
    weights: Dict[str, float] = field(default_factory=dict)
    scales: Dict[str, List[float]] = field(default_factory=dict)  # feature -> [mean, std]
    fitted: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


class ContextEvidence:
    """Computes the features and the first-stage score; entity vectors are cached."""

    def __init__(self, settings: EvidenceSettings, batch_size: int = 32,
                 cache_size: int = 100_000) -> None:
        self.settings = settings
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._encoder: Optional[DenseEncoder] = None
        self._vectors: OrderedDict[Entity, np.ndarray] = OrderedDict()

    @property
    def encoder(self) -> "DenseEncoder":
        if self._encoder is None:
            from allennlp_longent.linking.dense_encoder import DenseEncoder

            self._encoder = DenseEncoder.load(self.settings.encoder, self.settings.max_length,
                                              batch_size=self.batch_size)
        return self._encoder

    def entity_vectors(self, entities: Sequence["Entity"]) -> np.ndarray:
        missing = list(dict.fromkeys(e for e in entities if e not in self._vectors))
        if missing:
            for entity, vector in zip(missing, self.encoder.documents(
                    [e.document() for e in missing])):
                self._vectors[entity] = vector
        for entity in entities:
            self._vectors.move_to_end(entity)
        rows = [self._vectors[e] for e in entities]
        while len(self._vectors) > max(self.cache_size, len(entities)):
            self._vectors.popitem(last=False)
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def features(self, queries: Sequence[MentionQuery], candidates: Sequence[Sequence["Entity"]],
                 retrieval: Sequence[np.ndarray]) -> List[np.ndarray]:
        """Per query, ``(len(candidates), len(FEATURES))`` rows, features in ``FEATURES`` order."""
        window = self.settings.window
        sentences = [nearby_sentences(q.words, q.start, q.end, window) for q in queries]
        texts = list(dict.fromkeys([q.mention for q in queries] + [s for ss in sentences
                                                                   for s in ss]))
        text_vectors = dict(zip(texts, self.encoder.texts(texts))) if texts else {}
        rows = []
        for query, near, found, scores in zip(queries, sentences, candidates, retrieval):
            if not found:
                rows.append(np.zeros((0, len(FEATURES))))
                continue
            entities = self.entity_vectors(found)
            mention = entities @ text_vectors[query.mention]
            clue = (np.stack([text_vectors[s] for s in near]) @ entities.T).max(0) if near \
                else np.zeros(len(found))
            own = np.array([float(e.id == query.document_id) for e in found])
            title = np.array([float(bare_title(e.title) == bare_title(query.mention))
                              for e in found])
            retrieved = np.asarray(scores, dtype=np.float64)
            rows.append(np.stack([retrieved, mention, clue, own, title], axis=1))
        return rows

    def score(self, rows: np.ndarray) -> np.ndarray:
        """``s_i`` of the module docstring for one mention's feature rows."""
        return standardize(rows, self.settings.scales) @ _weight_vector(self.settings.weights)


def standardize(rows: np.ndarray, scales: Dict[str, List[float]]) -> np.ndarray:
    mean = np.array([scales[f][0] for f in FEATURES])
    std = np.array([scales[f][1] for f in FEATURES])
    return (rows - mean) / std


def _weight_vector(weights: Dict[str, float]) -> np.ndarray:
    return np.array([weights.get(f, 0.0) for f in FEATURES])


def fit(rows: Sequence[np.ndarray], golds: Sequence[int], settings: EvidenceSettings,
        l2: float = 1e-2, steps: int = 200) -> EvidenceSettings:
    """Fits ``scales`` and ``weights`` (module docstring) on mentions whose gold index in their
    candidate rows is ``golds[i]`` (-1 or a single candidate: not used). Returns new settings."""
    import torch

    usable = [(r, g) for r, g in zip(rows, golds) if g >= 0 and len(r) > 1]
    if not usable:
        raise ValueError("no training mention has its gold among two or more candidates")
    stacked = np.concatenate([r for r, _ in usable])
    spread = stacked.std(0)
    scales = {f: [float(stacked[:, i].mean()), float(spread[i]) if spread[i] > 0 else 1.0]
              for i, f in enumerate(FEATURES)}
    inputs = [torch.tensor(standardize(r, scales)) for r, _ in usable]
    weights = torch.zeros(len(FEATURES), dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([weights], max_iter=steps, line_search_fn="strong_wolfe")

    def loss_fn() -> torch.Tensor:
        optimizer.zero_grad()
        loss = -sum(torch.log_softmax(x @ weights, 0)[g] for x, (_, g) in zip(inputs, usable))
        loss = loss / len(usable) + l2 * (weights ** 2).sum()
        loss.backward()
        return loss

    optimizer.step(loss_fn)
    fitted = EvidenceSettings(settings.encoder, settings.max_length, settings.window,
                              {f: float(w) for f, w in zip(FEATURES, weights.detach())}, scales)
    right = sum(int(np.argmax(standardize(r, scales) @ _weight_vector(fitted.weights))) == g
                for r, g in usable)
    plain = sum(int(np.argmax(r[:, 0])) == g for r, g in usable)
    fitted.fitted = {"mentions": len(usable), "first_stage_at_1": right, "retrieval_at_1": plain,
                     "loss": float(loss_fn().detach())}
    logger.info("first stage fitted on %d mentions: %s", len(usable), fitted.fitted)
    return fitted
