"""Person or not: the span's label against how a candidate's page refers to it.

A span from spaCy (or a gold span of a free-text set) carries its NER label; a knowledge base
entity carries only its page. English refers to a person with "he", "she", "his", "her" and to a
town, an inn or a company with "it" and "its", so an entity is read as

    kind(e) = person  when its description has more personal pronouns than "it"/"its"/"itself",
              thing   when it has more of the latter,
              unknown when neither (no pronoun, or as many of each).

A ship ("she") reads as a person, which is why only two clashes count: a span labelled a person
(``PERSON_LABELS``) against a *thing*, and a span labelled a place (``PLACE_LABELS``) against a
*person*. ``type_order`` moves the clashing candidates among the first ``k`` after the others,
keeping each group's order; the NIL decision is not touched. It was chosen on the free-text dev
set (docs/linking.md, "Labels against pages").
"""

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, List, Optional

from allennlp_longent.linking.names import PERSON_LABELS

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

PERSONAL = frozenset("he she his her hers him himself herself".split())
IMPERSONAL = frozenset("it its itself".split())
PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
PERSON, THING = "person", "thing"
_WORD = re.compile(r"[a-z]+")


@lru_cache(maxsize=1 << 16)
def kind(entity: "Entity") -> Optional[str]:
    """``person``, ``thing`` or None (module docstring)."""
    words = _WORD.findall(entity.description.lower())
    personal = sum(w in PERSONAL for w in words)
    impersonal = sum(w in IMPERSONAL for w in words)
    if personal == impersonal:
        return None
    return PERSON if personal > impersonal else THING


def clashes(label: str, entity_kind: Optional[str]) -> bool:
    """A person span against a thing, or a place span against a person."""
    return (label in PERSON_LABELS and entity_kind == THING
            or label in PLACE_LABELS and entity_kind == PERSON)


def type_order(label: str, ranked: List[dict], kind_of: Callable[[str], Optional[str]],
               k: int) -> List[dict]:
    """``ranked`` (best first, each with an ``id``) with the clashing candidates among the first
    ``k`` moved after the others of those ``k``, marked ``label_clash``; unchanged when all or
    none of them clash."""
    head, tail = ranked[:k], ranked[k:]
    clash = [clashes(label, kind_of(c["id"])) for c in head]
    if all(clash) or not any(clash):
        return ranked
    moved = [{**c, "label_clash": True} for c, x in zip(head, clash) if x]
    return [c for c, x in zip(head, clash) if not x] + moved + tail
