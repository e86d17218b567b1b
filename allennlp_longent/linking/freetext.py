"""Free-text evaluation sets: hand-written paragraphs with gold spans over a knowledge base.

A set is a directory with ``kb.jsonl`` (entities ``{id, title, description}``) and
``paragraphs.jsonl``, one paragraph a line in the format of the demo's ``paragraphs.jsonl``:
``{"text", "entities": [{"start_char", "end_char", "label", "kb_id", "text"?}]}``. ``kb_id`` is
an id of ``kb.jsonl``, ``"NIL"`` for a name whose entity is not in the knowledge base (it must come
out NIL), or null for a span that names no entity (a date: linkers leave it alone); the optional
``text`` is the span's text, checked against the offsets. Every system links the same gold spans
(``doc.ents``), so the sets measure linking, not recognition.
"""

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from allennlp_longent.linking.documents import read_json_lines
from allennlp_longent.linking.evaluation import NIL, LinkCounts, wilson
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase, read_entities

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

KB_FILE = "kb.jsonl"
PARAGRAPHS_FILE = "paragraphs.jsonl"
SPAN_FIELDS = ("start_char", "end_char", "label", "kb_id")


@dataclass(frozen=True)
class GoldSpan:
    start_char: int
    end_char: int
    label: str
    kb_id: Optional[str]  # an entity id, NIL, or None: not an entity
    where: str


@dataclass(frozen=True)
class Paragraph:
    text: str
    spans: Tuple[GoldSpan, ...]
    where: str


@dataclass
class FreeTextSet:
    name: str
    entities: List[Entity]
    paragraphs: List[Paragraph]

    def gold(self) -> List[str]:
        """Gold ids (or NIL) of the spans that name something, paragraph by paragraph."""
        return [s.kb_id for p in self.paragraphs for s in p.spans if s.kb_id is not None]


def read_paragraphs(path: Path, kb_ids: Optional[Set[str]] = None) -> List[Paragraph]:
    """Reads and checks a paragraphs file; every problem names ``file:line`` and the span."""
    paragraphs = []
    for number, record in read_json_lines(path):
        where = f"{path}:{number}"
        text = record.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where}: field 'text' must be a non-empty string")
        if not isinstance(record.get("entities"), list):
            raise ValueError(f"{where}: field 'entities' must be a list")
        spans, end = [], 0
        for i, entity in enumerate(record["entities"]):
            span = _span(entity, text, f"{where}: entities[{i}]", kb_ids)
            if span.start_char < end:
                raise ValueError(f"{span.where}: starts at {span.start_char}, inside or before "
                                 f"the previous span (ending at {end}); spans must be in order")
            end = span.end_char
            spans.append(span)
        paragraphs.append(Paragraph(text, tuple(spans), where))
    if not paragraphs:
        raise ValueError(f"{path}: no paragraphs")
    return paragraphs


def _span(entity: dict, text: str, where: str, kb_ids: Optional[Set[str]]) -> GoldSpan:
    if not isinstance(entity, dict) or any(f not in entity for f in SPAN_FIELDS):
        raise ValueError(f"{where}: needs the fields {SPAN_FIELDS}, got {entity!r}")
    start, end, label, kb_id = (entity[f] for f in SPAN_FIELDS)
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        raise ValueError(f"{where}: offsets [{start}, {end}) are not a span of the "
                         f"{len(text)}-character text")
    covered = text[start:end]
    if covered != covered.strip():
        raise ValueError(f"{where}: span {covered!r} starts or ends with a space")
    if "text" in entity and entity["text"] != covered:
        raise ValueError(f"{where}: offsets [{start}, {end}) cover {covered!r}, "
                         f"not the span's text {entity['text']!r}")
    if not isinstance(label, str) or not label:
        raise ValueError(f"{where}: 'label' must be a non-empty string")
    if kb_id is not None and not isinstance(kb_id, str):
        raise ValueError(f"{where}: 'kb_id' must be an id, {NIL!r} or null, got {kb_id!r}")
    if kb_ids is not None and kb_id not in kb_ids and kb_id not in (None, NIL):
        raise ValueError(f"{where}: kb_id {kb_id!r} ({covered!r}) is not in the knowledge base")
    return GoldSpan(start, end, label, kb_id, where)


def read_set(directory: Path) -> FreeTextSet:
    """``kb.jsonl`` and ``paragraphs.jsonl`` of one set directory, checked."""
    directory = Path(directory)
    for name in (KB_FILE, PARAGRAPHS_FILE):
        if not (directory / name).is_file():
            raise FileNotFoundError(f"{directory}: no {name} (a free-text set needs {KB_FILE} "
                                    f"and {PARAGRAPHS_FILE})")
    entities = [entity for _, entity in read_entities(directory / KB_FILE)]
    ids = [e.id for e in entities]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{directory / KB_FILE}: duplicate entity ids")
    paragraphs = read_paragraphs(directory / PARAGRAPHS_FILE, set(ids))
    return FreeTextSet(directory.name, entities, paragraphs)


def gold_docs(nlp: "Language", paragraphs: Sequence[Paragraph]) -> List["Doc"]:
    """Docs whose ``ents`` are the gold spans with their labels (no kb ids)."""
    docs = []
    for paragraph in paragraphs:
        doc = nlp.make_doc(paragraph.text)
        ents = []
        for gold in paragraph.spans:
            span = doc.char_span(gold.start_char, gold.end_char, gold.label)
            if span is None:
                raise ValueError(f"{gold.where}: [{gold.start_char}, {gold.end_char}) is not on "
                                 "spaCy token boundaries")
            ents.append(span)
        doc.ents = ents
        docs.append(doc)
    return docs


def errors(data: FreeTextSet, found: Sequence[str]) -> List[str]:
    """``text -> linked title (gold title)`` for every wrong link, in text order."""
    titles = {e.id: e.title for e in data.entities}
    spans = [(p.text[s.start_char:s.end_char], s.kb_id) for p in data.paragraphs
             for s in p.spans if s.kb_id is not None]
    return [f"{text!r} -> {titles.get(guess, guess)} (gold {titles.get(gold, gold)})"
            for (text, gold), guess in zip(spans, found) if guess != gold]


def table_rows(results: Dict[str, Tuple[LinkCounts, float, List[str]]]) -> List[str]:
    """One line per system: accuracy with its 95 % Wilson interval, NIL precision and recall,
    mentions per CPU second."""
    lines = [f"  {'system':<36}{'right':>9}{'acc':>7}  {'95 % Wilson':<16}"
             f"{'NIL P':>8}{'NIL R':>8}{'mentions/CPU s':>16}"]
    for name, (c, seconds, _) in results.items():
        low, high = wilson(c.right, c.total)
        precision = f"{c.nil_right}/{c.predicted_nil}"
        recall = f"{c.nil_right}/{c.gold_nil}"
        rate = f"{c.total / seconds:.1f}" if seconds > 0 else "-"
        lines.append(f"  {name:<36}{f'{c.right}/{c.total}':>9}{c.accuracy():>7.3f}  "
                     f"[{low:.3f}, {high:.3f}]{precision:>8}{recall:>8}{rate:>16}")
    return lines


Linker = Callable[..., List["Doc"]]  # (docs, batch_size=32) -> the docs, linked


def save_kb(entities: Sequence[Entity], kb_dir: Path) -> Path:
    """A set's entities as a knowledge-base directory (``longent kb build``'s layout)."""
    kb = KnowledgeBase()
    kb.add(entities)
    kb.save(kb_dir)
    return kb_dir


def longent_linker(kb_dir: Path, model: Optional[str] = None, weight: Optional[float] = None,
                   unwritten_nil: Optional[bool] = None, nil_option: Optional[bool] = None,
                   name_coreference: bool = True,
                   label_agreement: Optional[bool] = None, article_agreement: bool = True,
                   name_agreement: bool = True, descriptors: bool = True,
                   labels: str = "ner") -> Linker:
    """``longent_linker`` as a spaCy user adds it: retrieval alone (no ``model``) or the
    ``cascade_linker`` archive ``model``; ``weight`` 0 keeps its first stage and NIL option only;
    ``unwritten_nil`` sets that rule (None: the archive's, off without one); ``nil_option``
    whether the archive's NIL option takes part (None: as calibrated for free text);
    ``name_coreference``, ``label_agreement``, ``article_agreement``, ``name_agreement`` and
    ``descriptors`` the component's rules (on by default; ``label_agreement`` None: as the
    component decides from ``labels``); ``labels`` where the spans' labels
    come from (``"ner"`` or ``"annotated"``: :mod:`allennlp_longent.linking.label_conflict`)."""
    import spacy

    nlp = spacy.blank("en")
    config: dict = {"kb": str(kb_dir), "model": model, "weight": weight,
                    "unwritten_nil": unwritten_nil, "nil_option": nil_option,
                    "name_coreference": name_coreference,
                    "label_agreement": label_agreement, "article_agreement": article_agreement,
                    "name_agreement": name_agreement, "descriptors": descriptors,
                    "labels": labels}
    linker = nlp.add_pipe("longent_linker", config=config)
    return lambda docs, batch_size=32: list(linker.pipe(docs, batch_size=batch_size))


def retrieval_linker(kb_dir: Path) -> Linker:
    """Retrieval alone (BM25 with its title field), each span on its own: :func:`longent_linker`
    with no model and every rule off, the baseline row of every free-text table."""
    return longent_linker(kb_dir, name_coreference=False, label_agreement=False,
                          article_agreement=False, name_agreement=False, descriptors=False)


def spacy_peer_linker(pipeline: Path, entities: Sequence[Entity], encoder: str) -> Linker:
    """spaCy's ``entity_linker`` trained by ``scripts/linking/train_spacy_peer.py``, over
    ``entities``
    (:mod:`allennlp_longent.linking.spacy_peer`)."""
    import spacy

    from allennlp_longent.linking.dense_encoder import DenseEncoder
    from allennlp_longent.linking.spacy_component import SKIP_LABELS
    from allennlp_longent.linking.spacy_peer import COMPONENT, build_kb, link, use_kb

    nlp = spacy.load(pipeline)
    vectors = DenseEncoder.load(encoder, 256).documents([e.document() for e in entities])
    use_kb(nlp, build_kb(nlp.vocab, entities, vectors))
    sentencizer = nlp.get_pipe("sentencizer")
    nlp.get_pipe(COMPONENT).labels_discard = list(SKIP_LABELS)  # what longent_linker leaves
    return lambda docs, batch_size=32: link(nlp, [sentencizer(d) for d in docs], batch_size)


def evaluate(data: FreeTextSet, linkers: Dict[str, Linker]
             ) -> Dict[str, Tuple[LinkCounts, float, List[str]]]:
    """Per system: its counts on the set's spans, the CPU seconds of one linking pass (after a
    warm-up pass over the first paragraph, which loads models and indexes) and its links. Two
    names given the same linker object share one pass."""
    import spacy

    blank = spacy.blank("en")
    gold = data.gold()
    results: Dict[str, Tuple[LinkCounts, float, List[str]]] = {}
    done: Dict[int, str] = {}
    for name, link in linkers.items():
        if id(link) in done:
            results[name] = results[done[id(link)]]
            continue
        done[id(link)] = name
        link(gold_docs(blank, data.paragraphs[:1]))
        docs = gold_docs(blank, data.paragraphs)
        started = time.process_time()
        linked = link(docs)
        seconds = time.process_time() - started
        found = links_of(linked, data.paragraphs)
        results[name] = (LinkCounts.of(found, gold), seconds, found)
    return results


def named_spans(docs: Sequence["Doc"], paragraphs: Sequence[Paragraph]
                ) -> Iterator[Tuple[int, "Span", GoldSpan]]:
    """``(paragraph number, linked entity, gold span)`` for each gold span of ``paragraphs`` that
    names something, with its entity in the linked ``docs`` (:func:`gold_docs`), in the order of
    :meth:`FreeTextSet.gold`."""
    for number, (doc, paragraph) in enumerate(zip(docs, paragraphs)):
        for ent, span in zip(doc.ents, paragraph.spans):
            if span.kb_id is not None:
                yield number, ent, span


def links_of(docs: Sequence["Doc"], paragraphs: Sequence[Paragraph]) -> List[str]:
    """The links (an id or NIL) of the linked ``docs`` of ``paragraphs`` (:func:`gold_docs`),
    for the spans that name something, in the order of :meth:`FreeTextSet.gold`."""
    return [ent.kb_id_ or NIL for _, ent, _ in named_spans(docs, paragraphs)]


def outcomes_by_weight(sets: Sequence[FreeTextSet], model: str, weights: Sequence[float],
                       scratch: Path, nil_options: Sequence[bool] = (True,)
                       ) -> Dict[Tuple[float, bool], List[bool]]:
    """Per re-ranker weight λ and NIL option (on, off), whether each span of ``sets`` that names
    something is linked right by ``longent_linker`` with the cascade archive ``model`` (its rules
    as a spaCy user gets them, for the sets' hand-set labels); retrieval, the first stage and the
    cross-encoder run once per mention. ``scratch``: where the sets' knowledge bases are written."""
    import spacy

    outcomes: Dict[Tuple[float, bool], List[bool]] = {
        (w, nil): [] for w in weights for nil in nil_options}
    blank = spacy.blank("en")
    for data in sets:
        kb_dir = save_kb(data.entities, scratch / data.name / "kb")
        component = spacy.blank("en").add_pipe(
            "longent_linker", config={"kb": str(kb_dir), "model": model, "weight": 1.0,
                                      "labels": "annotated"})
        cascade = component.cascade()
        cascade.memo = {}
        gold = data.gold()
        nil_score = component.model().settings.nil_score  # calibrated, whatever text_nil says
        for weight, nil in outcomes:
            cascade.settings.weight = weight
            cascade.settings.nil_score = nil_score if nil else None
            found = links_of(list(component.pipe(gold_docs(blank, data.paragraphs))),
                             data.paragraphs)
            outcomes[weight, nil] += [f == g for f, g in zip(found, gold)]
    return outcomes
