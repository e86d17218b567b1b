"""When a span's label and its name point to different pages.

The label rules of :mod:`allennlp_longent.linking.kinds` move the candidates whose kind clashes
with the span's label after the others. When every page that writes the name clashes, what they
leave first is a page the cascade gave almost nothing and whose title writes none of the span's
name words: "Nana Kokwaa" labelled PERSON, the lagoon god, went to a fisherman whose page
mentions the Kokwaa lagoon, because the lagoon's page is a place's. That first candidate is
no evidence of anything; what to do instead depends on whom to believe:

- when the likeliest candidate's title writes none of the name words either, nothing names the
  span: NIL;
- when it writes them all, the name and the label disagree. A label set by hand
  (``labels="annotated"``) is right, and the bearer of the name is absent from the knowledge
  base: NIL ("Aboasa" labelled LOC is a beach, not the Aboasa canoe disaster). A label from a
  statistical NER (``labels="ner"``, spaCy's) is the likelier mistake: the likeliest candidate
  goes back first, marked ``name_over_label`` ("Qhispi Urqu" labelled PERSON by en_core_web_sm
  is the song). Since round 37 the spaCy component runs this rule with a NER's labels only when
  its ``label_agreement`` is turned on.

A first candidate that :func:`~allennlp_longent.linking.orders.definition_order` put there for being
an event, a work or a vehicle, as the span's label says, meets the same test: when the likeliest
page's title writes the whole name and no rule found its kind clashing, that page goes back
first ("Afahye" labelled EVENT is the Kokwaa Afahye, a festival whose page no rule reads as an
event, not the canoe disaster whose page mentions it).

Measured on the free-text dev sets dev..dev19 (docs/linking.md, round 26): of the spans this rule
meets whose likeliest candidate writes the whole name, 8 of 12 with the sets' labels are NIL and
33 of 41 with en_core_web_sm's are the likeliest candidate; the first candidate was right for 1
and 0 of them.
"""

from typing import List, Optional, Sequence

from allennlp_longent.linking.cascade import CANDIDATE_KEYS
from allennlp_longent.linking.evaluation import NIL
from allennlp_longent.linking.names import name_words, title_writes
from allennlp_longent.linking.orders import clashing

FAR_BEHIND = 0.05  # a first candidate below this probability is there by the rules alone
# the marks of :func:`~allennlp_longent.linking.orders.definition_order`: a page moved first for
# being an event, a work or a vehicle, as the span's label says, not for writing its name
KIND_MARKS = frozenset({"event", "work_of_art", "product"})
PLAIN_KEYS = frozenset(CANDIDATE_KEYS)  # anything else is a rule's mark


def label_conflict(mention: str, candidates: Sequence[dict], annotated: bool) -> Optional[str]:
    """NIL, the likeliest candidate's id, or None (no conflict) for a span whose first candidate
    (module docstring) is not the likeliest, carries no rule's mark, has a probability below
    ``FAR_BEHIND`` and a title that writes none of the span's name words; ``annotated``: the
    span's label was set by hand. A mark that says the page clashes with the span is no rule's
    evidence for it (every page of the first ``k`` may clash)."""
    if len(candidates) < 2:
        return None
    first = candidates[0]
    top = max(candidates, key=lambda c: c["probability"])
    marks = {key for key, v in first.items() if key not in PLAIN_KEYS and v not in (None, False)
             and not key.endswith("clash")}  # a clash is no evidence for a page
    if top is first or first["probability"] >= FAR_BEHIND or not marks <= KIND_MARKS:
        return None
    words = [token for token, _ in name_words(mention)]
    if not words or any(title_writes(words, first["title"])):
        return None
    by_top = title_writes(words, top["title"])
    if marks:  # promoted for its kind alone, over a page named so whose kind is not known
        return top["id"] if all(by_top) and not clashing(top) else None
    if not any(by_top):
        return NIL
    if all(by_top):
        return NIL if annotated else top["id"]
    return None


def name_first(candidates: List[dict], entity_id: str) -> List[dict]:
    """``candidates`` with ``entity_id`` put first, marked ``name_over_label``."""
    chosen = [{**c, "name_over_label": True} for c in candidates if c["id"] == entity_id]
    return chosen + [c for c in candidates if c["id"] != entity_id]
