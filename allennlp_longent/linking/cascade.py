"""Retrieve, then re-rank: a retriever proposes ``top_k`` entities, an optional first stage
re-scores all of them with context evidence from an untrained sentence encoder
(:mod:`allennlp_longent.linking.evidence`, fitted on training worlds), a cross-encoder scores only
the first ``rerank_k``, and the two are combined so that re-ranking cannot end below the first
stage on the validation data it was tuned on.

For the m = min(rerank_k, retrieved) first candidates of a mention, with first-stage scores r
(the retriever's own scores when there is no first stage) and
cross-encoder scores c, each standardised, z(x) = (x - mean) / std, with the mean and std of all
such scores on validation (or, uncalibrated, over the m candidates themselves):

    s_i = (1 - λ) z(r)_i + λ (z(c)_i - mean_j z(c)_j),
    p_i = exp(s_i / T) / (exp(b / T) + Σ_j exp(s_j / T))

The cross-encoder's term is centred per mention: it only re-orders the candidates, and the
absolute level that NIL is judged by comes from the first stage. Text in another style than the
training worlds shifts all of a mention's cross-encoder scores together (free text: NIL precision
fell from 4/5 to 6/18 on fixtures/freetext/dev with the uncentred sum, see docs/linking.md).

With ``title_abstain``, the cross-encoder abstains (λ = 0 for the mention, and it is not run
when linking) on a mention that is the bare title of exactly one of its m candidates ("Glimmerholt"
with the town Glimmerholt among them): the re-ranker is there to settle ambiguous names, and on
text in another style than its training worlds it overruled such titles for an entity named nearby
(docs/linking.md, "Free text").

λ = 0 is the retrieval order itself (ties keep retrieval order), so choosing λ on validation by
accuracy, ties to the smaller λ, gives validation accuracy ≥ retrieval's; a λ > 0 must also pass
a sign test against λ = 0 (:func:`calibrate`). b is the score of
"none of these" (NIL): standardising with validation statistics keeps the absolute level of the
scores, which is what tells a mention whose entity is missing. T and b maximise the likelihood
(temperature scaling, Guo et al. 2017) of the validation mentions twice: as they are (the gold is
right) and with the gold removed from the knowledge base (NIL is right), the two sets weighted by
the expected share of mentions without an entity. A mention is NIL when the NIL option is likelier
than its best candidate (and, if a user sets one, when the best p is under ``threshold``): an
ambiguous mention spreads p over its candidates without making NIL likelier.

With ``unwritten_nil``, a mention is also NIL when one of its name words (capitalised, not an
honorific; :mod:`allennlp_longent.linking.names` says what counts as written) is written on none
of its m candidates' pages: "Petra Corrander" in a KB whose
Corranders' pages never write "Petra" names a relative the KB lacks. The generated validation
worlds never have such a mention (every name they use is written somewhere), so this rule is not
fitted there; it was chosen on fixtures/freetext/dev (docs/linking.md).
"""

import json
import logging
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from allennlp_longent.linking.candidates.bm25 import bare_title, fold
from allennlp_longent.linking.candidates.generator import MentionQuery, Query, as_mention_query
from allennlp_longent.linking.definitions import PERSON
from allennlp_longent.linking.evidence import ContextEvidence, EvidenceSettings
from allennlp_longent.linking.kinds import kind
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase
from allennlp_longent.linking.names import unwritten_on_pages

if TYPE_CHECKING:
    from allennlp.data import DatasetReader
    from allennlp.models import Model

logger = logging.getLogger(__name__)
NIL = "NIL"
WEIGHTS = tuple(round(0.05 * i, 2) for i in range(21))
TEMPERATURES = tuple(float(t) for t in np.round(np.logspace(-2, 1, 31), 4))
NIL_SCORES = tuple(float(b) for b in np.linspace(-4, 4, 33))
# the keys of every candidate the cascade writes (:meth:`Cascade.link`), in their order; any
# other key of a candidate is a rule's mark
CANDIDATE_KEYS = ("id", "title", "score", "probability", "retriever", "retriever_score",
                  "first_stage_score", "rerank_score", "unwritten")


@dataclass
class CascadeSettings:
    """What the cascade is run with; ``calibrate`` fills ``weight``, ``temperature`` and
    ``nil_score`` from validation and records what it saw in ``validation``; ``threshold`` is a
    floor on the linked candidate's probability that a user may set (calibration leaves 0)."""

    top_k: int = 64
    rerank_k: int = 8
    weight: float = 0.5
    text_weight: Optional[float] = None  # λ for free text (spaCy); None: ``weight``
    text_nil: Optional[bool] = None  # the NIL option on free text (spaCy); None: on
    temperature: float = 1.0
    threshold: float = 0.0
    nil_score: Optional[float] = None
    title_abstain: bool = False  # `longent calibrate` sets it unless told not to
    unwritten_nil: bool = False  # NIL when a name word of the mention is on no candidate's page
    retrieval_scale: Optional[List[float]] = None  # [mean, std] on validation
    rerank_scale: Optional[List[float]] = None
    evidence: Optional[dict] = None  # EvidenceSettings of the first stage, None: no first stage
    validation: dict = field(default_factory=dict)

    @property
    def free_text_weight(self) -> float:
        """λ for free text linked through spaCy: ``text_weight`` if calibrated, else ``weight``."""
        return self.weight if self.text_weight is None else self.text_weight

    @property
    def free_text_nil_score(self) -> Optional[float]:
        """The NIL option's score for free text: ``nil_score`` unless ``text_nil`` is False
        (``longent calibrate --text-dev`` found it no better there than the rules' NIL)."""
        return None if self.text_nil is False else self.nil_score

    def save(self, path: Union[str, Path]) -> None:
        Path(path).write_text(json.dumps(asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, path: Union[str, Path]) -> "CascadeSettings":
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no cascade settings at {path}")
        try:
            return cls(**json.loads(path.read_text()))
        except (TypeError, json.JSONDecodeError) as error:
            raise ValueError(f"{path}: not cascade settings ({error})") from error


@dataclass
class Scored:
    """One mention's first candidates with both scores (``rerank`` is None without a ranker)."""

    entities: List[Entity]
    retrieval: np.ndarray  # the first stage's scores, or the retriever's without one
    rerank: Optional[np.ndarray]
    retriever: Optional[np.ndarray] = None  # the retriever's own scores under a first stage
    exact_title: bool = False  # the bare title of exactly one of ``entities`` (title_abstain)
    unwritten: Optional[List[List[str]]] = None  # per candidate (unwritten_nil): name words its
    # page never writes


def is_person(entity: Entity) -> bool:
    """Whether ``entity``'s page is a person's (:func:`~allennlp_longent.linking.kinds.kind`),
    for the unwritten-name rule's titles of address before a given name."""
    return kind(entity) == PERSON


def exact_title(mention: str, entities: Sequence[Entity]) -> bool:
    """Whether ``mention`` is the bare title (case, accents and a bracketed qualifier ignored) of
    exactly one of ``entities``."""
    bare = fold(bare_title(mention))
    return sum(fold(bare_title(e.title)) == bare for e in entities) == 1


def unwritten_everywhere(unwritten: Optional[Sequence[Sequence[str]]]) -> bool:
    """``unwritten_nil``'s rule: the mention has a name word that no candidate's page writes
    (False when not computed or no candidate)."""
    return bool(unwritten) and all(unwritten)


def written_by_first_only(unwritten: Sequence[Optional[Sequence[str]]], k: int) -> bool:
    """``unwritten_nil``'s converse: of the first ``k`` candidates (at least two), the first is
    the only one whose page writes every name word of the mention ("E. Marr": Eliza Marr's page
    writes the initial, Agnes Marr's does not); False when not computed."""
    head = list(unwritten[:k])
    return (len(head) > 1 and all(u is not None for u in head) and not head[0]
            and all(head[1:]))


def combine(scored: Scored, weight: float, settings: Optional[CascadeSettings] = None,
            temperature: Optional[float] = None, abstain: bool = True) -> Tuple[np.ndarray, ...]:
    """``(order, combined scores, probabilities)``; ``order`` best first, ties by retrieval.
    ``settings`` gives the scales, temperature and NIL score (none: per-mention z, T = 1) and
    whether the re-ranker abstains on an exact title (``abstain=False`` ignores that, to measure
    the cross-encoder alone)."""
    settings = settings or CascadeSettings()
    if abstain and settings.title_abstain and scored.exact_title:
        weight = 0.0
    combined = (1 - weight) * _z(scored.retrieval, settings.retrieval_scale)
    if scored.rerank is not None and weight:
        reranked = _z(scored.rerank, settings.rerank_scale)
        combined = combined + weight * (reranked - reranked.mean())
    order = np.lexsort((np.arange(len(combined)), -combined))
    return order, combined, probabilities(combined, temperature or settings.temperature,
                                          settings.nil_score)


def probabilities(combined: np.ndarray, temperature: float, nil_score: Optional[float]):
    """Softmax of ``combined / T`` with a NIL option scored ``nil_score`` (left out if None)."""
    logits = np.append(combined, -np.inf if nil_score is None else nil_score) / temperature
    if not len(combined):
        return combined
    exp = np.exp(logits - logits.max())
    return exp[:-1] / exp.sum()


def _z(scores: np.ndarray, scale: Optional[List[float]] = None) -> np.ndarray:
    if scale is not None:
        return (scores - scale[0]) / scale[1]
    if len(scores) < 2:
        return np.zeros_like(scores)
    spread = scores.std()
    return (scores - scores.mean()) / spread if spread > 0 else np.zeros_like(scores)


class Cascade:
    """``kb`` retrieves; ``ranker`` (a ``cross_encoder_ranker`` and its reader), if given,
    re-ranks; without it the links are retrieval's (λ = 0)."""

    def __init__(self, kb: KnowledgeBase, ranker: Optional[Tuple["Model", "DatasetReader"]] = None,
                 settings: Optional[CascadeSettings] = None, batch_size: int = 8,
                 evidence: Optional[ContextEvidence] = None) -> None:
        """``evidence``: a first stage to share (its encoder and entity vectors) instead of
        one built from ``settings.evidence``; its settings are replaced by those."""
        self.kb = kb
        self.ranker = ranker
        self.settings = settings or CascadeSettings()
        if self.settings.rerank_k < 1 or self.settings.top_k < 1 or batch_size < 1:
            raise ValueError(f"top_k, rerank_k and batch_size must be positive: {self.settings}")
        self.batch_size = batch_size
        # a dict: retrieval and re-ranker scores kept per mention (calibration links the same
        # mentions at many weights)
        self.memo: Optional[Dict[tuple, object]] = None
        self.evidence = evidence
        # entities to add to a mention's retrieved ones (the spaCy component's expansions of an
        # abbreviated name, :func:`allennlp_longent.linking.names.expansion`); None: none
        self.propose: Optional[Callable[[str], Sequence[Entity]]] = None
        if evidence is not None and self.settings.evidence:
            evidence.settings = EvidenceSettings(**self.settings.evidence)
        elif evidence is None and self.settings.evidence:
            self.evidence = ContextEvidence(EvidenceSettings(**self.settings.evidence), batch_size)

    def features(self, queries: Sequence[Query]) -> List[Tuple[List[Entity], np.ndarray]]:
        """The first stage's candidates (``top_k`` retrieved) and feature rows per query."""
        if self.evidence is None:
            raise ValueError("these cascade settings have no first stage (evidence)")
        retrieved = self.candidates(queries)
        entities = [[e for e, _ in found] for found in retrieved]
        rows = self.evidence.features(
            [as_mention_query(q) for q in queries], entities,
            [np.array([s for _, s in found], dtype=np.float64) for found in retrieved])
        return list(zip(entities, rows))

    def candidates(self, queries: Sequence[Query]) -> List[List[Tuple[Entity, float]]]:
        """The retriever's ``top_k`` ``(entity, score)`` per query, then the entities that
        ``propose`` adds for its mention and the retriever missed (scored 0)."""
        retrieved = self.kb.candidates(queries, self.settings.top_k)
        if self.propose is None:
            return retrieved
        for query, found in zip(queries, retrieved):
            ids = {e.id for e, _ in found}
            found += [(e, 0.0) for e in self.propose(as_mention_query(query).mention)
                      if e.id not in ids]
        return retrieved

    def retrieve(self, queries: Sequence[Query]) -> List[List[Tuple[Entity, float, float]]]:
        """``top_k`` candidates per query, re-scored and re-ordered by the first stage if any:
        ``(entity, score, the retriever's own score)``, the score being the first stage's."""
        if self.evidence is None:
            return [[(e, s, s) for e, s in found] for found in self.candidates(queries)]
        results = []
        for entities, rows in self.features(queries):
            first = self.evidence.score(rows) if entities else np.zeros(0)
            order = np.lexsort((np.arange(len(first)), -first))
            results.append([(entities[i], float(first[i]), float(rows[i][0])) for i in order])
        return results

    @property
    def retriever_name(self) -> str:
        """The retriever's registered name (``bm25``, ``dense``, ``hybrid``)."""
        try:
            return str(self.kb.generator.config()["type"])
        except (NotImplementedError, KeyError):
            return type(self.kb.generator).__name__

    def score(self, queries: Sequence[Query],
              retrieved: Optional[List[List[Tuple[Entity, float, float]]]] = None,
              rerank_all: bool = False) -> List[Scored]:
        """Retrieval (and first stage) for every query, unless ``retrieved`` (what
        :meth:`retrieve` returned) is given, then the cross-encoder on the first ``rerank_k``;
        not on mentions where it abstains (``title_abstain``) unless ``rerank_all`` (to measure
        it, or to calibrate)."""
        if retrieved is None:
            retrieved = self.memoised(queries)
        first = [found[: self.settings.rerank_k] for found in retrieved]
        scored = [
            Scored([e for e, _, _ in found], np.array([s for _, s, _ in found], dtype=np.float64),
                   None, None if self.evidence is None
                   else np.array([r for _, _, r in found], dtype=np.float64))
            for found in first
        ]
        if self.settings.title_abstain:
            for query, item in zip(queries, scored):
                item.exact_title = exact_title(as_mention_query(query).mention, item.entities)
        if self.settings.unwritten_nil:
            for query, item in zip(queries, scored):
                item.unwritten = unwritten_on_pages(as_mention_query(query).mention,
                                                    item.entities, is_person)
        if self.ranker is not None:
            pending = [i for i, s in enumerate(scored) if s.entities and (
                rerank_all or not (self.settings.title_abstain and s.exact_title))]
            memo = self.memo if self.memo is not None else {}
            keys = {i: _rerank_key(queries[i], scored[i]) for i in pending}
            todo = [i for i in pending if keys[i] not in memo]
            for start in range(0, len(todo), self.batch_size):
                batch = todo[start : start + self.batch_size]
                outputs = self._rerank([queries[i] for i in batch], [scored[i] for i in batch])
                for i, rerank in zip(batch, outputs):
                    memo[keys[i]] = rerank
            for i in pending:
                scored[i].rerank = memo[keys[i]]
        return scored

    def memoised(self, queries: Sequence[Query]) -> List[List[Tuple[Entity, float, float]]]:
        """:meth:`retrieve`, from and into ``memo`` when it is a dict."""
        if self.memo is None:
            return self.retrieve(queries)
        keys = [("retrieve",) + _query_key(q) for q in queries]
        missing = [i for i, key in enumerate(keys) if key not in self.memo]
        if missing:
            for i, found in zip(missing, self.retrieve([queries[i] for i in missing])):
                self.memo[keys[i]] = found
        return [self.memo[key] for key in keys]  # type: ignore[misc]

    def _rerank(self, queries: Sequence[Query], scored: Sequence[Scored]) -> List[np.ndarray]:
        model, reader = self.ranker
        instances = []
        for query, item in zip(queries, scored):
            mention: MentionQuery = as_mention_query(query)
            documents = [e.document() for e in item.entities]
            instance = reader.text_to_instance(list(mention.words), mention.start, mention.end,
                                               documents)
            reader.apply_token_indexers(instance)
            instances.append(instance)
        outputs = model.forward_on_instances(instances)
        return [np.asarray(o["scores"][: len(s.entities)], dtype=np.float64)
                for o, s in zip(outputs, scored)]

    def link(self, queries: Sequence[Query]) -> List[List[dict]]:
        """Per query, its first candidates best first (:meth:`ranked`); the link is the first if
        its probability passes ``threshold`` (:meth:`best`)."""
        return [self.ranked(s) for s in self.score(queries)]

    def ranked(self, scored: Scored) -> List[dict]:
        """Candidates best first, each number named for what it is: ``score``, the combined
        score s_i of the module docstring; ``probability``, p_i; ``retriever`` and
        ``retriever_score``, the retriever's name and own score (BM25's, the dense cosine...);
        ``first_stage_score``, the context-evidence score (None without a first stage);
        ``rerank_score``, the cross-encoder's (None when it did not run)."""
        weight = self.settings.weight if scored.rerank is not None else 0.0
        order, combined, probabilities = combine(scored, weight, self.settings)
        own = scored.retrieval if scored.retriever is None else scored.retriever
        return [
            {
                "id": scored.entities[i].id,
                "title": scored.entities[i].title,
                "score": float(combined[i]),
                "probability": float(probabilities[i]),
                "retriever": self.retriever_name,
                "retriever_score": float(own[i]),
                "first_stage_score": (None if scored.retriever is None
                                      else float(scored.retrieval[i])),
                "rerank_score": None if scored.rerank is None else float(scored.rerank[i]),
                "unwritten": None if scored.unwritten is None else scored.unwritten[i],
            }
            for i in order
        ]

    def best(self, ranked: List[dict]) -> str:
        """The first candidate, or NIL when the NIL option is likelier or ``threshold`` is not
        reached or ``unwritten_nil``'s rule holds (:func:`links`)."""
        unwritten = [c.get("unwritten") for c in ranked] if self.settings.unwritten_nil else None
        if links(np.array([c["probability"] for c in ranked]), self.settings.threshold, unwritten):
            return ranked[0]["id"]
        return NIL


def _query_key(query: Query) -> tuple:
    """What a mention's retrieval depends on: its words, its place among them, its page."""
    mention = as_mention_query(query)
    return tuple(mention.words), mention.start, mention.end, mention.document_id


def _rerank_key(query: Query, item: Scored) -> tuple:
    """What the cross-encoder's scores of a mention depend on: the mention and its candidates
    in order."""
    return ("rerank",) + _query_key(query) + (tuple(e.id for e in item.entities),)


def links(probabilities: np.ndarray, threshold: float = 0.0,
          unwritten: Optional[Sequence[Sequence[str]]] = None) -> bool:
    """Whether the best candidate is linked: its probability is at least that of NIL,
    ``1 - Σ p``, and at least ``threshold`` (a floor a user may set; calibration leaves 0), and
    ``unwritten_nil``'s rule does not hold on ``unwritten`` (each candidate's unwritten name
    words; None: the rule is off)."""
    if not len(probabilities) or unwritten_everywhere(unwritten):
        return False
    best = float(probabilities.max())
    return best >= threshold and best >= 1.0 - float(probabilities.sum())


def accuracy(scored: Sequence[Scored], golds: Sequence[Optional[str]], weight: float,
             settings: Optional[CascadeSettings] = None, abstain: bool = True) -> int:
    """Mentions whose first candidate after combining with ``weight`` is the gold
    (``abstain``: as :func:`combine`)."""
    return sum(_right(scored, golds, weight, settings, abstain))


def calibrate(scored: Sequence[Scored], golds: Sequence[Optional[str]],
              settings: CascadeSettings, significance: float = 0.05,
              nil_rate: float = 0.1) -> CascadeSettings:
    """Chooses the scales, λ, T and b on validation (module docstring).
    The most accurate λ is kept only if its gain over λ = 0 passes a one-sided sign test at
    ``significance`` on the mentions where the two disagree; otherwise λ = 0, so that a re-ranker
    whose help on a small validation set could be chance is not trusted. ``nil_rate``: the share
    of mentions expected to have no entity in the knowledge base; the mentions as they are weigh
    ``1 - nil_rate`` and the same mentions with their gold removed ``nil_rate`` in the fit of
    T and b."""
    if not 0.0 < nil_rate < 1.0:
        raise ValueError(f"nil_rate must be in (0, 1), got {nil_rate}")
    items = [item for item in scored if item.entities]
    has_rerank = bool(items) and all(item.rerank is not None for item in items)
    fitted = CascadeSettings(settings.top_k, settings.rerank_k, evidence=settings.evidence,
                             title_abstain=settings.title_abstain,
                             unwritten_nil=settings.unwritten_nil)
    if items:
        fitted.retrieval_scale = _scale(np.concatenate([i.retrieval for i in items]))
        if has_rerank:
            fitted.rerank_scale = _scale(np.concatenate([i.rerank for i in items]))
    right = {w: _right(scored, golds, w, fitted) for w in (WEIGHTS if has_rerank else (0.0,))}
    counts = {w: sum(r) for w, r in right.items()}
    fitted.weight, chosen = choose_weight(right, significance)
    # (combined scores, index of the right answer or None for NIL, which set, the candidates'
    # unwritten name words or None) as they are (0) and without the gold (1); the two sets weigh
    # 1 - nil_rate and nil_rate in all
    cases: List[Tuple[np.ndarray, Optional[int], int, Optional[List[List[str]]]]] = []
    reachable = 0
    for item, gold in zip(scored, golds):
        if not item.entities:
            continue
        _, combined, _ = combine(item, fitted.weight, fitted)
        ids = [e.id for e in item.entities]
        unwritten = item.unwritten if settings.unwritten_nil else None
        cases.append((combined, ids.index(gold) if gold in ids else None, 0, unwritten))
        reachable += gold in ids
        rest = [i for i, e in enumerate(ids) if e != gold]
        if rest and gold in ids:
            cases.append((combined[rest], None, 1, unwritten and [unwritten[i] for i in rest]))
    share = (1.0 - nil_rate, nil_rate)
    sizes = [sum(c[2] == s for c in cases) for s in (0, 1)]
    weighted = [(c, r, share[s] / sizes[s]) for c, r, s, _ in cases]

    def nll(temperature: float, nil_score: float) -> float:
        total = 0.0
        for combined, right, weight in weighted:
            p = probabilities(combined, temperature, nil_score)
            total -= weight * np.log(max(p[right] if right is not None else 1 - p.sum(), 1e-12))
        return total

    grid = [(t, b) for t in TEMPERATURES for b in NIL_SCORES]
    fitted.temperature, fitted.nil_score = min(grid, key=lambda tb: nll(*tb)) if cases else (1, 0)
    fitted.threshold = 0.0
    decisions = []  # (the rule links the best candidate, linking it is right, NIL is right)
    for combined, right, _, unwritten in cases:
        p = probabilities(combined, fitted.temperature, fitted.nil_score)
        decisions.append((links(p, fitted.threshold, unwritten),
                          right is not None and int(np.argmax(combined)) == right, right is None))

    def correct(linked: Sequence[bool]) -> int:
        return sum((go and ok) or (not go and nil) for go, (_, ok, nil) in zip(linked, decisions))

    fitted.validation = {
        "mentions": len(golds),
        "gold_in_reranked": reachable,
        "retrieval_at_1": counts[0.0],
        "reranker_alone_at_1": (accuracy(scored, golds, 1.0, fitted, abstain=False)
                                if has_rerank else None),
        "title_abstained": sum(item.exact_title for item in items) if fitted.title_abstain else 0,
        "cascade_at_1": counts[fitted.weight],
        "accuracy_by_weight": {str(w): c for w, c in counts.items()},
        "sign_test": chosen,
        "nil_rate": nil_rate,
        "nil_decision_correct": correct([d[0] for d in decisions]),
        "nil_decision_total": len(decisions),
        "never_nil_correct": correct([True] * len(decisions)),
        "unwritten_nil": [sum(unwritten_everywhere(c[3]) for c in cases if c[2] == s)
                          for s in (0, 1)],
    }
    return fitted


def _right(scored: Sequence[Scored], golds: Sequence[Optional[str]], weight: float,
           settings: Optional[CascadeSettings], abstain: bool = True) -> List[bool]:
    """Per mention with candidates, whether its first candidate with ``weight`` is the gold."""
    return [item.entities[combine(item, weight, settings, abstain=abstain)[0][0]].id == gold
            for item, gold in zip(scored, golds) if item.entities]


def choose_weight(right: Dict[float, Sequence[bool]], significance: float = 0.05
                  ) -> Tuple[float, dict]:
    """λ from per-mention outcomes ``right[λ]`` (the same mentions for every λ, 0 among them):
    the λ right most often, ties to the smaller, kept only if its gain over λ = 0 passes a
    one-sided sign test at ``significance`` on the mentions where the two differ, else 0.
    Returns λ and what the choice saw."""
    if 0.0 not in right:
        raise ValueError(f"choose_weight needs the outcomes at weight 0, got {sorted(right)}")
    best = max(right, key=lambda w: (sum(right[w]), -w))
    seen = paired_sign_test(right[best], right[0.0])
    return (best if seen["p_value"] <= significance else 0.0), {
        "weight": best, **seen, "significance": significance}


def choose_text_nil(with_nil: Sequence[bool], without_nil: Sequence[bool],
                    significance: float = 0.05) -> Tuple[bool, dict]:
    """Whether free text keeps the NIL option, from per-span outcomes with it and without it
    (the same spans): kept only if it is right more often and its gain passes the one-sided sign
    test of :func:`choose_weight`; without it, NIL comes from the rules alone."""
    seen = paired_sign_test(with_nil, without_nil)
    return seen["fixed"] > seen["broken"] and seen["p_value"] <= significance, {
        **seen, "significance": significance}


def paired_sign_test(new: Sequence[bool], old: Sequence[bool]) -> Dict[str, Any]:
    """Two systems' per-item outcomes on the same items: ``fixed`` (right only in ``new``),
    ``broken`` (right only in ``old``) and the one-sided :func:`sign_test` p-value of ``new``
    being better."""
    fixed = sum(a and not b for a, b in zip(new, old))
    broken = sum(b and not a for a, b in zip(new, old))
    return {"fixed": fixed, "broken": broken, "p_value": sign_test(fixed, broken)}


def sign_test(fixed: int, broken: int) -> float:
    """One-sided P(X ≥ fixed) for X ~ Binomial(fixed + broken, 1/2); 1.0 when nothing differs."""
    n = fixed + broken
    if n == 0:
        return 1.0
    return float(sum(math.comb(n, k) for k in range(fixed, n + 1)) / 2 ** n)


def _scale(scores: np.ndarray) -> List[float]:
    spread = float(scores.std())
    return [float(scores.mean()), spread if spread > 0 else 1.0]
