"""Context evidence: the cascade's first stage re-scores every retrieved candidate with an
untrained sentence encoder that reads the mention string and the sentences around the mention,
and with lexical evidence that needs no page structure (free text has none).

For a mention with retrieved candidates e_i (``v``: unit vectors of the encoder; an entity is read
as its title and description; C: the content words within ``window`` words of the mention, the
mention's own words left out; N ⊆ C: those written with a capital inside a sentence, i.e. names;
D_i: the content words of e_i's title and description; df(w): how many of the K candidates hold w):

    mention_i   = cos(v(mention string), v(e_i))
    clue_i      = max_s cos(v(s), v(e_i)),  s a sentence within ``window`` words of the mention,
                  the mention's own sentence without the mention's words
    share_i     = retrieval_i / max_j retrieval_j (retrieval's scale differs between KBs)
    context_i   = Σ_{w ∈ C ∩ D_i} idf(w) / Σ_{w ∈ C} idf(w),   idf(w) = log(1 + K / (1 + df(w)))
    names_i     = the same over N: other names near the mention that e_i's page mentions
    overlap_i   = Dice overlap of the mention's and e_i's bare title's content words (a word
                  written with a short suffix or one edit counts as the same word,
                  :func:`~allennlp_longent.linking.candidates.bm25.same_word`)
    qualifier_i = +1 when a word of e_i's bracketed title qualifier ("ship" in "Edda Ambrell
                  (ship)") is in C, -1 when e_i has a qualifier none of whose words is, else 0
    fact_i      = b_i - max_j b_j,  b_i = max_{s, d} cos(v(s), v(d)), s as in clue_i, d one of
                  the first ``FACT_SENTENCES`` sentences of e_i's description with the words of
                  e_i's bare title left out: the one fact of the page that a nearby sentence
                  paraphrases ("who had once hunted whales" for "a former whaler"), which a
                  vector of the whole page blurs. Relative to the query's best, so that its level,
                  high where contexts repeat a page's sentences (the generated worlds) and lower in
                  free prose, does not move the NIL option's threshold; the ranking is the same
    unmatched_i = |M − D_i| / |M|, M the mention's content words after the titles that open it
                  ("Mr", "Madame": :func:`~allennlp_longent.linking.names.untitled`): the share
                  of the mention's words that e_i's page never writes, nor as the same word
                  ("Galdetinden" is written by a page writing "Galdetind") ("Oriel" of "Oriel
                  Corrander" against every Corrander of the KB), evidence against e_i and, for
                  all candidates, for NIL

and the first-stage score is ``s_i = Σ_f w_f (x_{f,i} - μ_f) / σ_f`` over the features
f ∈ ``FEATURES``, with also ``retrieval`` (the retriever's score), ``own_document`` (1 for the
entity whose page the mention is on: zeshel contexts are pages of the knowledge base; a page rarely
links to itself, but its own words match the context best; 0 for free text) and ``title_match``
(1 when the mention string is the title, ignoring case and a trailing qualifier in brackets).
μ, σ and w are fitted on training mentions by the listwise softmax log-likelihood of the gold
candidate (the ranking loss of Logeswaran et al. 2019) with an L2 penalty, on other worlds than
those linked; a feature left out of a fit (an ablation) has weight 0.
"""

import logging
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import (
    TYPE_CHECKING,
    AbstractSet,
    Callable,
    Dict,
    FrozenSet,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

import numpy as np

from allennlp_longent.linking.candidates.bm25 import (
    bare_title,
    bm25_tokens,
    known,
    name_match,
    qualifier_words,
)
from allennlp_longent.linking.candidates.generator import MentionQuery
from allennlp_longent.linking.names import untitled

if TYPE_CHECKING:
    from allennlp_longent.linking.dense_encoder import DenseEncoder
    from allennlp_longent.linking.knowledge_base import Entity

logger = logging.getLogger(__name__)
FEATURES = ("retrieval", "mention", "clue", "own_document", "title_match", "share", "context",
            "names", "overlap", "qualifier", "fact", "unmatched")
ENCODER_FEATURES = ("mention", "clue", "fact")
# the direction each feature's definition gives it: +1, evidence for the candidate; -1, against
# (own_document: a page rarely links to itself; unmatched: words the page never writes)
DIRECTIONS = {f: -1 if f in ("own_document", "unmatched") else 1 for f in FEATURES}
FACT_SENTENCES = 24
SENTENCE_ENDS = (".", "!", "?")


def sentence_spans(words: Sequence[str]) -> List[Tuple[int, int]]:
    """``(first, last)`` word indices of each sentence: words up to one ending in ``. ! ?`` (the
    last sentence may have no stop)."""
    spans, first = [], 0
    for i, word in enumerate(words):
        if word.endswith(SENTENCE_ENDS) or i == len(words) - 1:
            spans.append((first, i))
            first = i + 1
    return spans


def _has_words(sentence: Sequence[str]) -> bool:
    return any(not w.endswith(SENTENCE_ENDS) for w in sentence)


def nearby_sentences(words: Sequence[str], start: int, end: int, window: int) -> List[str]:
    """Whole sentences (ended by a word ending in ``. ! ?``) with a word within ``window`` words
    of the mention ``words[start:end + 1]``; the sentence holding the mention without the
    mention's words (the name alone is the ``mention`` feature), if anything is left of it."""
    sentences = []
    for first, last in sentence_spans(words):
        sentence = [w for j, w in enumerate(words[first : last + 1], first)
                    if not start <= j <= end]
        if last >= start - window and first <= end + window and _has_words(sentence):
            sentences.append(" ".join(sentence))
    return sentences


def description_sentences(text: str, title: str = "") -> List[str]:
    """Sentences of a description (as :func:`sentence_spans` splits them), the words of
    ``title`` left out (case and surrounding punctuation ignored; a sentence's last word is
    kept); a sentence left with nothing but its stop is dropped."""
    names = set(title.lower().split())
    words = text.split()
    sentences = []
    for first, last in sentence_spans(words):
        sentence = [w for j, w in enumerate(words[first : last + 1], first)
                    if j == last and w.endswith(SENTENCE_ENDS)
                    or w.lower().strip(".,;:!?'\"") not in names]
        if _has_words(sentence):
            sentences.append(" ".join(sentence))
    return sentences


@lru_cache(maxsize=1 << 16)
def page_words(entity: "Entity") -> FrozenSet[str]:
    """D_i of the module docstring: the content words of an entity's title and description."""
    return frozenset(bm25_tokens(f"{entity.title} {entity.description}"))


def window_words(words: Sequence[str], start: int, end: int, window: int
                 ) -> Tuple[Set[str], Set[str]]:
    """C and N of the module docstring: content words within ``window`` words of the mention,
    and those of them capitalised inside a sentence (names)."""
    context: Set[str] = set()
    names: Set[str] = set()
    for i in range(max(0, start - window), min(len(words), end + window + 1)):
        if start <= i <= end:
            continue
        tokens = bm25_tokens(words[i])
        context.update(tokens)
        inside = i > 0 and not words[i - 1].endswith(SENTENCE_ENDS)
        if inside and words[i][:1].isupper():
            names.update(tokens)
    return context, names


def weighted_share(words: Set[str], pages: Sequence[AbstractSet[str]]) -> np.ndarray:
    """``context_i`` of the module docstring for each page's word set."""
    if not words or not pages:
        return np.zeros(len(pages))
    listed = sorted(words)
    df = np.array([sum(w in page for page in pages) for w in listed])
    idf = np.log1p(len(pages) / (1.0 + df))
    return np.array([sum(f for w, f in zip(listed, idf) if w in page) for page in pages]) \
        / idf.sum()


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
        self._facts: OrderedDict[Entity, np.ndarray] = OrderedDict()

    @property
    def encoder(self) -> "DenseEncoder":
        if self._encoder is None:
            from allennlp_longent.linking.dense_encoder import DenseEncoder

            self._encoder = DenseEncoder.load(self.settings.encoder, self.settings.max_length,
                                              batch_size=self.batch_size)
        return self._encoder

    def entity_vectors(self, entities: Sequence["Entity"]) -> np.ndarray:
        rows = self._cached(self._vectors, entities, lambda missing: self.encoder.documents(
            [e.document() for e in missing]))
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def _cached(self, cache: "OrderedDict[Entity, np.ndarray]", entities: Sequence["Entity"],
                encode: Callable[[List["Entity"]], Sequence[np.ndarray]]) -> List[np.ndarray]:
        """``cache``'s row of each entity, ``encode`` run once on those it lacks; the least
        recently used beyond ``cache_size`` (or this call's entities) are dropped."""
        missing = list(dict.fromkeys(e for e in entities if e not in cache))
        if missing:
            cache.update(zip(missing, encode(missing)))
        for entity in entities:
            cache.move_to_end(entity)
        rows = [cache[e] for e in entities]
        while len(cache) > max(self.cache_size, len(entities)):
            cache.popitem(last=False)
        return rows

    def features(self, queries: Sequence[MentionQuery], candidates: Sequence[Sequence["Entity"]],
                 retrieval: Sequence[np.ndarray]) -> List[np.ndarray]:
        """Per query, ``(len(candidates), len(FEATURES))`` rows, features in ``FEATURES`` order.
        Fitted settings that give the encoder's features no weight never run the encoder (their
        columns are 0)."""
        window = self.settings.window
        encoded = self.uses_encoder()
        facts = encoded and self.uses_encoder(("fact",))
        sentences = [nearby_sentences(q.words, q.start, q.end, window) if encoded else []
                     for q in queries]
        texts = list(dict.fromkeys([q.mention for q in queries] + [s for ss in sentences
                                                                   for s in ss]))
        text_vectors = dict(zip(texts, self.encoder.texts(texts))) if texts and encoded else {}
        rows = []
        for query, near, found, scores in zip(queries, sentences, candidates, retrieval):
            if not found:
                rows.append(np.zeros((0, len(FEATURES))))
                continue
            mention = clue = fact = np.zeros(len(found))
            if encoded:
                entities = self.entity_vectors(found)
                mention = entities @ text_vectors[query.mention]
                if near:
                    near_vectors = np.stack([text_vectors[s] for s in near])
                    clue = (near_vectors @ entities.T).max(0)
                    if facts:
                        best = np.array([(near_vectors @ f.T).max() if len(f) else 0.0
                                         for f in self.fact_vectors(found)])
                        fact = best - best.max()
            own = np.array([float(e.id == query.document_id) for e in found])
            retrieved = np.asarray(scores, dtype=np.float64)
            top = retrieved.max()
            share = retrieved / top if top > 0 else np.zeros(len(found))
            context, names = window_words(query.words, query.start, query.end, window)
            pages = [page_words(e) for e in found]
            mention_words = bm25_tokens(query.mention)
            bare = bare_title(query.mention)
            overlap, title = np.array([name_match(mention_words, bare, e.title)
                                       for e in found]).T
            qualifier = np.array([_qualifier(qualifier_words(e.title), context) for e in found])
            said = set(bm25_tokens(untitled(query.mention)))
            unmatched = np.array([sum(not known(w, page) for w in said) / max(len(said), 1)
                                  for page in pages])
            rows.append(np.stack([retrieved, mention, clue, own, title, share,
                                  weighted_share(context, pages), weighted_share(names, pages),
                                  overlap, qualifier, fact, unmatched], axis=1))
        return rows

    def fact_vectors(self, entities: Sequence["Entity"]) -> List[np.ndarray]:
        """Unit vectors of the first ``FACT_SENTENCES`` sentences of each entity's description."""
        return self._cached(self._facts, entities, self._encode_facts)

    def _encode_facts(self, entities: List["Entity"]) -> List[np.ndarray]:
        split = [description_sentences(e.description, bare_title(e.title))[:FACT_SENTENCES]
                 for e in entities]
        flat = [t for ts in split for t in ts]
        vectors = self.encoder.texts(flat) if flat else np.zeros((0, 0))
        ends = np.cumsum([len(ts) for ts in split])
        return [vectors[end - len(ts):end] for ts, end in zip(split, ends)]

    def uses_encoder(self, features: Sequence[str] = ENCODER_FEATURES) -> bool:
        """Unfitted settings (features for a fit) or a weight on one of ``features``."""
        weights = self.settings.weights
        return not weights or any(weights.get(f) for f in features)

    def score(self, rows: np.ndarray) -> np.ndarray:
        """``s_i`` of the module docstring for one mention's feature rows."""
        return standardize(rows, self.settings.scales) @ _weight_vector(self.settings.weights)


def _qualifier(words: Set[str], context: Set[str]) -> float:
    return 0.0 if not words else (1.0 if words & context else -1.0)


def standardize(rows: np.ndarray, scales: Dict[str, List[float]]) -> np.ndarray:
    """Settings fitted before a feature existed have no scale for it (and weight 0)."""
    mean = np.array([scales.get(f, [0.0, 1.0])[0] for f in FEATURES])
    std = np.array([scales.get(f, [0.0, 1.0])[1] for f in FEATURES])
    return (rows - mean) / std


def _weight_vector(weights: Dict[str, float]) -> np.ndarray:
    return np.array([weights.get(f, 0.0) for f in FEATURES])


def fit(rows: Sequence[np.ndarray], golds: Sequence[int], settings: EvidenceSettings,
        l2: float = 1e-2, steps: int = 200, features: Sequence[str] = FEATURES,
        signed: bool = True) -> EvidenceSettings:
    """Fits ``scales`` and ``weights`` (module docstring) on mentions whose gold index in their
    candidate rows is ``golds[i]`` (-1 or a single candidate: not used); only ``features`` get
    a weight. With ``signed``, a feature whose weight comes out against its definition's
    direction (``DIRECTIONS``) is left out and the others refitted, until none is: on the
    training worlds' correlated features a sign can flip ("context" and "title_match" came out
    negative on the generated worlds), and a flipped sign carries that world's quirk to text
    written otherwise. Returns new settings."""
    unknown = set(features) - set(FEATURES)
    if unknown or not features:
        raise ValueError(f"features must be a non-empty subset of {FEATURES}, got {features}")
    used = list(features)
    while True:
        fitted = _fit_once(rows, golds, settings, l2, steps, used)
        against = [f for f in used if DIRECTIONS[f] * fitted.weights[f] < 0]
        if not signed or not against:
            break
        logger.info("first stage: %s left out, its weight against its direction", against)
        used = [f for f in used if f not in against]
        if not used:
            raise ValueError("every feature's fitted weight is against its direction")
    left_out = [f for f in features if f not in used]
    fitted.weights.update(dict.fromkeys(left_out, 0.0))
    fitted.fitted["left_out"] = left_out
    return fitted


def _fit_once(rows: Sequence[np.ndarray], golds: Sequence[int], settings: EvidenceSettings,
              l2: float, steps: int, features: Sequence[str]) -> EvidenceSettings:
    import torch

    mask = torch.tensor([float(f in features) for f in FEATURES], dtype=torch.float64)

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
        used = weights * mask
        loss = -sum(torch.log_softmax(x @ used, 0)[g] for x, (_, g) in zip(inputs, usable))
        loss = loss / len(usable) + l2 * (weights ** 2).sum()
        loss.backward()
        return loss

    optimizer.step(loss_fn)
    fitted = EvidenceSettings(settings.encoder, settings.max_length, settings.window,
                              {f: float(w) for f, w in zip(FEATURES, weights.detach() * mask)
                               if f in features}, scales)
    right = sum(int(np.argmax(standardize(r, scales) @ _weight_vector(fitted.weights))) == g
                for r, g in usable)
    plain = sum(int(np.argmax(r[:, 0])) == g for r, g in usable)
    fitted.fitted = {"mentions": len(usable), "first_stage_at_1": right, "retrieval_at_1": plain,
                     "loss": float(loss_fn().detach())}
    logger.info("first stage fitted on %d mentions: %s", len(usable), fitted.fitted)
    return fitted
