"""Parsing of one DocRED / Re-DocRED document (Yao et al. 2019; Tan et al. 2022).

A document is ``{title, sents, vertexSet, labels}``: ``sents`` lists token lists, ``vertexSet``
lists entities as lists of mentions ``{name, sent_id, pos: [start, end), type}`` with ``pos``
relative to the sentence, and ``labels`` lists ``{r, h, t, evidence}`` over ``vertexSet`` indices.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set, Tuple

from allennlp_longent.modules.entity_fields import Span


@dataclass
class DocredDocument:
    title: str
    where: str
    words: List[str]
    entity_spans: List[List[Span]]  # document-level word spans per entity
    mention_names: List[List[str]]
    mention_types: List[List[Optional[str]]]
    triples: Optional[Set[Tuple[int, int, str]]]  # (head, tail, relation); None if unlabeled


def parse_docred_document(record: Dict[str, Any], where: str) -> DocredDocument:
    """Flattens the sentences and maps mention positions to document word offsets."""
    title = record.get("title", "")
    where = f"{where} ({title!r})"
    sents, vertex_set = record.get("sents"), record.get("vertexSet")
    if not sents or not vertex_set:
        raise ValueError(f"{where}: a DocRED document needs non-empty 'sents' and 'vertexSet'")
    starts = [0]
    for sentence in sents:
        starts.append(starts[-1] + len(sentence))
    spans, names, types = [], [], []
    for number, mentions in enumerate(vertex_set):
        if not mentions:
            raise ValueError(f"{where}: entity {number} has no mentions")
        entity_spans = []
        for mention in mentions:
            sent_id, (start, end) = mention["sent_id"], mention["pos"]
            if not 0 <= sent_id < len(sents) or not 0 <= start < end <= len(sents[sent_id]):
                raise ValueError(
                    f"{where}: entity {number} mention {mention.get('name')!r} at sentence "
                    f"{sent_id} pos [{start}, {end}) is out of range"
                )
            entity_spans.append((starts[sent_id] + start, starts[sent_id] + end))
        spans.append(entity_spans)
        names.append([m.get("name", "") for m in mentions])
        types.append([m.get("type") for m in mentions])
    triples = None
    if "labels" in record:
        triples = set()
        for label in record["labels"]:
            head, tail = label["h"], label["t"]
            if not (0 <= head < len(vertex_set) and 0 <= tail < len(vertex_set)):
                raise ValueError(f"{where}: relation {label} refers to a missing entity")
            triples.add((head, tail, label["r"]))
    words = [word for sentence in sents for word in sentence]
    return DocredDocument(title, where, words, spans, names, types, triples)
