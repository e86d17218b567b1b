"""Span-by-span decisions of the spaCy component on free-text sets, and their difference between
two versions of the code or two archives: how every round measures a change to the rules
(docs/linking.md, "Free text": "fixed, broken" counts).

:func:`decisions` links a set's gold spans and keeps, for each span that names something, its
text, label, gold, link, status and its first candidates with the marks the rules gave them;
:func:`compare` pairs two such lists span by span.
"""

from typing import Dict, List, Sequence

from allennlp_longent.linking.freetext import FreeTextSet, Linker, gold_docs, named_spans

FIRST_CANDIDATES = 6  # candidates kept per span
PLAIN = ("retriever", "retriever_score", "first_stage_score", "rerank_score")


def decisions(data: FreeTextSet, link: Linker) -> List[dict]:
    """One record per span of ``data`` that names something, in :meth:`FreeTextSet.gold` order:
    ``paragraph``, ``start``, ``text``, ``label``, ``gold``, ``found`` (an id or NIL),
    ``status`` and ``candidates`` (the first :data:`FIRST_CANDIDATES`, each with its id, title,
    probability and the rules' marks)."""
    import spacy

    from allennlp_longent.linking.evaluation import NIL

    docs = link(gold_docs(spacy.blank("en"), data.paragraphs))
    records = []
    for number, ent, span in named_spans(docs, data.paragraphs):
        candidates = [{key: value for key, value in c.items()
                       if key not in PLAIN and value not in (None, False, [])
                       or key in ("id", "title", "probability")}
                      for c in (ent._.longent_candidates or [])[:FIRST_CANDIDATES]]
        records.append({"paragraph": number, "start": span.start_char, "text": ent.text,
                        "label": ent.label_, "gold": span.kb_id, "found": ent.kb_id_ or NIL,
                        "status": ent._.longent_status, "candidates": candidates})
    return records


def compare(before: Sequence[dict], after: Sequence[dict]) -> Dict[str, List[dict]]:
    """The spans whose link changed, as ``fixed`` (now right), ``broken`` (right before) and
    ``changed`` (wrong both times); the two lists must hold the same spans in the same order."""
    if len(before) != len(after) or any(
            (a["paragraph"], a["start"]) != (b["paragraph"], b["start"])
            for a, b in zip(before, after)):
        raise ValueError("the two lists of decisions are not of the same spans")
    found: Dict[str, List[dict]] = {"fixed": [], "broken": [], "changed": []}
    for a, b in zip(before, after):
        if a["found"] == b["found"]:
            continue
        kind = "fixed" if b["found"] == b["gold"] else \
            "broken" if a["found"] == a["gold"] else "changed"
        found[kind].append({**b, "before": a["found"]})
    return found
