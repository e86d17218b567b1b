"""Definite descriptions: a common-noun span ("the fort", "airport", "your paper") names its
entity by its kind, often in a word its page never writes ("Qasr Tamit is a mud-brick
fortress"), so neither BM25 nor :func:`allennlp_longent.linking.orders.noun_order` finds it.

Every entity of the knowledge base gets a kind phrase, the words its page defines it by
(:func:`kind_phrase`: "mud-brick fortress"); the span gets its words without
determiners or possessives (:func:`descriptor`: "fort"). Both are embedded by the first stage's
sentence encoder, unit-normed, and the span's nearest entity e* by cosine is its referent when

    cos(d, e*) >= ``min_cosine``  and  cos(d, e*) - cos(d, e2) >= ``min_margin``,

e2 being the second nearest: the noun must name one kind in the knowledge base, not two
("the paddle steamer" where two steamers are pages stays as it was). The thresholds were chosen
on the free-text dev sets (docs/linking.md, round 19).
"""

import re
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import numpy as np

from allennlp_longent.linking.cascade import CANDIDATE_KEYS
from allennlp_longent.linking.definitions import defining_words
from allennlp_longent.linking.kinds import DETERMINERS, common_noun
from allennlp_longent.linking.names import title_writes

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

MIN_COSINE = 0.4
MIN_MARGIN = 0.08
_WORD = re.compile(r"[\w'’-]+")


def descriptor(mention: str) -> Optional[str]:
    """The words of a common-noun span (:func:`~allennlp_longent.linking.kinds.common_noun`)
    without determiners and possessive words, lower case ("the saint's spring": "spring"); None
    for a span that is a name or has no word left."""
    if common_noun(mention) is None:
        return None
    words = [w for w in _WORD.findall(mention.lower())
             if w not in DETERMINERS and not w.endswith(("'s", "’s", "'", "’"))]
    return " ".join(words) or None


def kind_phrase(entity: "Entity") -> str:
    """What the page says its entity is
    (:func:`~allennlp_longent.linking.definitions.defining_words`: "mud-brick fortress"); its
    title for a page with no defining phrase."""
    return " ".join(defining_words(entity)) or entity.title


def _texts(entity: "Entity") -> List[str]:
    """The texts an entity is embedded by: its kind phrase and, when that is not its title, its
    title (a lower-case name, "morri" or "warden plate", is read as a common noun)."""
    phrase = kind_phrase(entity)
    return [phrase] if phrase == entity.title else [phrase, entity.title]


class DescriptorIndex:
    """The kind phrases of a knowledge base's entities, embedded once by ``encode`` (texts to
    rows), and the referent of a descriptor (module docstring)."""

    def __init__(self, entities: Sequence["Entity"], encode: Callable[[List[str]], np.ndarray],
                 min_cosine: float = MIN_COSINE, min_margin: float = MIN_MARGIN) -> None:
        self.ids = [e.id for e in entities]
        self._id_array = np.array(self.ids, dtype=object)
        self.titles = {e.id: e.title for e in entities}
        self.encode = encode
        self.min_cosine = min_cosine
        self.min_margin = min_margin
        rows = [(i, text) for i, e in enumerate(entities) for text in _texts(e)]
        self._owner = np.array([i for i, _ in rows], dtype=np.int64)
        self._vectors = _unit(encode([text for _, text in rows])) if rows else None
        self._found: Dict[Tuple[str, FrozenSet[str]], Optional[Tuple[str, float, float]]] = {}

    def nearest(self, words: str, excluded: FrozenSet[str] = frozenset()
                ) -> Optional[Tuple[str, float, float]]:
        """``(entity id, cosine, margin over the second)`` of the entity nearest ``words``, the
        ``excluded`` ids left out (those the span's label clashes with), when it passes both
        thresholds, else None."""
        key = (words, excluded)
        if key not in self._found:
            self._found[key] = self._nearest(words, excluded)
        return self._found[key]

    def _nearest(self, words: str, excluded: FrozenSet[str]
                 ) -> Optional[Tuple[str, float, float]]:
        if self._vectors is None:
            return None
        by_row = self._vectors @ _unit(self.encode([words]))[0]
        cosines = np.full(len(self.ids), -np.inf)
        np.maximum.at(cosines, self._owner, by_row)
        if excluded:
            cosines[np.isin(self._id_array, list(excluded))] = -np.inf
        order = np.argsort(-cosines, kind="stable")
        best = float(cosines[order[0]])
        margin = best - float(cosines[order[1]]) if len(order) > 1 else best
        if best < self.min_cosine or margin < self.min_margin:
            return None
        return self.ids[order[0]], best, margin


def descriptor_order(mention: str, ranked: List[dict], index: DescriptorIndex,
                     k: int, excluded: FrozenSet[str] = frozenset()) -> List[dict]:
    """For a common-noun span none of whose first ``k`` candidates is marked ``kind_noun`` (its
    noun is on no candidate's page as a defining word): its referent (:class:`DescriptorIndex`,
    the ``excluded`` ids left out) first, marked ``descriptor`` with its cosine, taken from the
    candidates or added; unchanged when it has none."""
    words = descriptor(mention)
    if words is None or any(c.get("kind_noun") for c in ranked[:k]) or _a_name(words, ranked[:k]):
        return ranked
    found = index.nearest(words, excluded)
    if found is None:
        return ranked
    entity_id, cosine, _ = found
    rest = [c for c in ranked if c["id"] != entity_id]
    same = [c for c in ranked if c["id"] == entity_id]
    first = same[0] if same else {**dict.fromkeys(CANDIDATE_KEYS), "id": entity_id,
                                  "title": index.titles[entity_id], "probability": 0.0}
    return [{**first, "descriptor": round(cosine, 4)}] + rest


def _a_name(words: str, ranked: Sequence[dict]) -> bool:
    """Some title among ``ranked`` writes every word of ``words`` as a name word: a name written
    in lower case ("khorabes", "hoi kok" in a chat), not a noun that names a kind (round 48)."""
    found = words.split()
    return any(all(title_writes(found, c.get("title") or "")) for c in ranked)


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)
