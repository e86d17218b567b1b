"""Free-text sets linked end to end: the spans come from a spaCy pipeline's NER, not from the set.

``longent freetext`` hands the linker the writer's spans and scores each; a spaCy user's linker
sees only what the NER found. Here a link is right when an entity of the doc lies at exactly a
gold span's offsets and is linked to that span's entity of the knowledge base; precision is over
every entity of the docs linked to an entity of the knowledge base (one linked NIL is no link),
recall over the gold spans that name an entity of the knowledge base (a set's NIL spans and dates
are not counted). ``found`` counts the gold spans an entity of the doc covers exactly, whatever
its link: the recall the linker could reach on those spans.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from allennlp_longent.linking.evaluation import NIL, wilson
from allennlp_longent.linking.freetext import (
    Linker,
    Paragraph,
    longent_linker,
    retrieval_linker,
)

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

RETRIEVAL, RETRIEVAL_MENTIONS = "NER spans, retrieval alone", "longent_mentions, retrieval alone"
CASCADE, CASCADE_MENTIONS = "NER spans, cascade", "longent_mentions, cascade"


def system_names(model: bool) -> List[str]:
    """The rows of :func:`systems`, with and without a cascade archive."""
    return [RETRIEVAL, RETRIEVAL_MENTIONS] + ([CASCADE, CASCADE_MENTIONS] if model else [])


@dataclass
class SpanCounts:
    """Counts of one system's links over one or more sets (module docstring)."""

    gold: int = 0
    found: int = 0
    linked: int = 0
    right: int = 0

    def __iadd__(self, other: "SpanCounts") -> "SpanCounts":
        self.gold += other.gold
        self.found += other.found
        self.linked += other.linked
        self.right += other.right
        return self

    def precision(self) -> float:
        return self.right / self.linked if self.linked else 0.0

    def recall(self) -> float:
        return self.right / self.gold if self.gold else 0.0

    def f1(self) -> float:
        p, r = self.precision(), self.recall()
        return 2 * p * r / (p + r) if p + r else 0.0

    def row(self, name: str) -> str:
        """One table row: precision and recall with 95 % Wilson intervals, F1, spans found."""
        p_low, p_high = wilson(self.right, self.linked)
        r_low, r_high = wilson(self.right, self.gold)
        return (f"  {name:<34}{f'{self.right}/{self.linked}':>13}{self.precision():>10.3f} "
                f"[{p_low:.3f}, {p_high:.3f}]{f'{self.right}/{self.gold}':>12}"
                f"{self.recall():>8.3f} [{r_low:.3f}, {r_high:.3f}]{self.f1():>7.3f}"
                f"{f'{self.found}/{self.gold}':>12}")


HEADER = (f"  {'system':<34}{'right/linked':>13}{'precision':>10} {'95 % interval':<16}"
          f"{'right/gold':>12}{'recall':>8} {'95 % interval':<16}{'F1':>7}{'found':>12}")


def score(docs: Sequence["Doc"], paragraphs: Sequence[Paragraph]) -> SpanCounts:
    """The counts of the linked ``docs`` against the gold spans of ``paragraphs``, in order."""
    counts = SpanCounts()
    if len(docs) != len(paragraphs):
        raise ValueError(f"{len(docs)} docs for {len(paragraphs)} paragraphs")
    for doc, paragraph in zip(docs, paragraphs):
        gold = {(s.start_char, s.end_char): s.kb_id for s in paragraph.spans
                if s.kb_id not in (None, NIL)}
        ents = {(e.start_char, e.end_char): e.kb_id_ for e in doc.ents}
        linked = {offsets: kb_id for offsets, kb_id in ents.items() if kb_id and kb_id != NIL}
        counts += SpanCounts(gold=len(gold), found=sum(o in ents for o in gold),
                             linked=len(linked),
                             right=sum(linked.get(o) == kb_id for o, kb_id in gold.items()))
    return counts


def run_stages(docs: Sequence["Doc"], stages: Sequence[Linker]) -> List["Doc"]:
    """Copies of ``docs`` (the NER's output, shared between systems) through ``stages``."""
    out = [doc.copy() for doc in docs]
    for stage in stages:
        out = stage(out)
    return out


def systems(kb_dir: Path, model: Optional[str], **mentions_config: bool
            ) -> Dict[str, List[Linker]]:
    """The systems a table compares: retrieval alone and, with ``model``, the cascade as a
    spaCy user gets it (``labels="ner"``), each on the NER's spans and on the spans
    ``longent_mentions`` makes of them with ``mentions_config`` (``trim``, ``titles``,
    ``extend``, ``names``: :mod:`allennlp_longent.linking.mentions`)."""
    import spacy

    component = spacy.blank("en").add_pipe(
        "longent_mentions", config={"kb": str(kb_dir), **mentions_config})

    def mentions(docs: List["Doc"], batch_size: int = 32) -> List["Doc"]:
        return [component(doc) for doc in docs]

    retrieval = retrieval_linker(kb_dir)
    found: Dict[str, List[Linker]] = {RETRIEVAL: [retrieval],
                                      RETRIEVAL_MENTIONS: [mentions, retrieval]}
    if model is not None:
        cascade = longent_linker(kb_dir, model, labels="ner")
        found[CASCADE] = [cascade]
        found[CASCADE_MENTIONS] = [mentions, cascade]
    return found


def ner_docs(nlp: "Language", paragraphs: Sequence[Paragraph]) -> List["Doc"]:
    """The paragraphs through a spaCy pipeline (its NER gives the spans)."""
    return list(nlp.pipe(p.text for p in paragraphs))
