"""spaCy pipeline component ``longent_linker``: links spans against a local knowledge base.

The knowledge base's retriever (BM25, dense or hybrid; or ``retriever`` with ``encoder``) proposes
``top_k`` candidates per span; with ``model``, a ``cascade_linker`` archive (written by ``longent
calibrate``), its first stage re-scores them and its cross-encoder, if its calibrated weight is
above 0, re-ranks the first ``rerank_k`` from the long context window it was trained with, centred
on the span (:mod:`allennlp_longent.linking.cascade`). Without a model the links are the
retriever's. The span's ``kb_id_`` becomes the best candidate, or ``NIL`` when there is no
candidate, the NIL option is likelier or its probability is below ``threshold``; spans labelled with
one of ``skip_labels`` (dates, numbers: nothing a knowledge base of entities holds) are left alone.
With ``name_coreference`` (the default), a person span whose name words are a strict part of an
earlier person span's in the same document ("Corrander" after "Wenna Corrander") takes that span's
link, and so does one that writes another part of the name of the page an earlier person span is
linked to ("Cardoso" after "Wesley" linked to Wesley Cardoso)
(:func:`allennlp_longent.linking.names.name_antecedents`); with ``label_agreement`` (the
default), candidates whose page's pronouns or definition clash with the span's label go after the
others (a person for a place, ORG, EVENT, WORK_OF_ART or PRODUCT span; an event, a work of art or a
vehicle for a span of another of those kinds or a person or place span, which go first for an EVENT,
WORK_OF_ART or PRODUCT span, and such a span none of whose first candidates is of its kind brings
the first of its kind whose title writes its name from the first 16 into them, "the Haverau" the
steamer; and a place span's name with a word for a kind of place goes first when no title is the
name, and for a common-noun span, "the fortress", the pages that define their entity by that noun),
with ``article_agreement`` (the default) so do the persons when the span is a name written after
"the", but not for a person span that modifies the lower-case noun after it ("the Vane fight") when
a person's title writes its name, and with ``name_agreement`` (the default) a span that is the bare
title of exactly one candidate puts it first ("Pellow St." read as Pellow Street), a name written
with an initial ("L. Ambros") puts the candidates whose title writes it first, a title of address
("Mrs Rusk") the persons of the other gender last, a name that is no title the candidates whose
page gives it as another name ("was called the Hohrain Tramway")
(:mod:`allennlp_longent.linking.kinds`), and an abbreviated name ("SC Itaquara", "UiSk", "TF")
whose expansion is the title of exactly one entity of the knowledge base
(:func:`allennlp_longent.linking.names.expansion`) brings that entity among the candidates,
first, and links it whatever the NIL option says; a title whose bracketed qualifier clashes with
the span's label ("Long Reuben (song)" for a person) counts as no bare title for these rules. Under
``name_agreement`` the first candidate is linked, whatever the NIL option says, when it is the only
one of the first ``rerank_k`` whose page writes every name word of the span ("E. Marr"), or when
the span is its bare title and no other's ("Itaquara"), or when its page writes the span's name
and numbers and is of the kind the span says by its last word ("Lindqvist's yard") or, under
``label_agreement``, by its label ("the Guarita case", an event); a span is NIL whose last word
names a kind its first candidate's page does not write of itself ("Skjærvik University
Hospital"), or that writes a number the page does not ("Kōsaka Maru No. 5"); under
``label_agreement`` so is a person span written as a full name, or as one name after a title of
address, whose first candidate is a thing ("Tove Sandmo", named on her band's page; "Mr Sayle"),
and, with labels set by hand, a GPE span whose first candidate is a building ("Tanah Tinggi" is
not the mosque Masjid Tanah Tinggi), after the candidates that are no building and write its
name have gone first ("Motukava" is the kingdom, not its church); a span is NIL, too, whose
first candidate a rule put there over a likelier one and whose page never writes a word of its
name ("Café Nagisa"); a name coreference does not copy a link to a
page of the other gender than the span's title of address ("Madame Orbach" after "Felix
Orbach"). With
``descriptors`` (the default), a common-noun span ("the castle", "airport") whose noun defines none
of its candidates goes to the entity whose defining words the model's sentence encoder puts nearest
it, and a common-noun span whose first candidate is defined by its noun is linked whatever the NIL
option says (:mod:`allennlp_longent.linking.descriptors`). ``span._.longent_candidates`` holds the
ranked candidates with their scores, ``span._.longent_status`` says ``linked``, ``nil`` or
``skipped``, and ``span._.longent_antecedent`` the ``(start_char, end_char)`` of the span whose link
a name coreference copied (else None)."""

import json
import logging
import shutil
import warnings
from dataclasses import replace
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Tuple,
    Union,
)

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.util import minibatch

from allennlp_longent.paths import check_archive

if TYPE_CHECKING:  # imported where used: spaCy loads this module for every pipeline
    from allennlp_longent.linking.cascade import Cascade
    from allennlp_longent.linking.descriptors import DescriptorIndex
    from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase
    from allennlp_longent.linking.models.cascade_linker import CascadeLinker

NIL = "NIL"  # allennlp_longent.linking.cascade.NIL, without importing it at spaCy's start-up
LABEL_SOURCES = ("ner", "annotated")  # the `labels` key: a statistical NER's or a person's hand
logger = logging.getLogger(__name__)

SKIP_LABELS = ["DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"]
CANDIDATES_ATTR = "longent_candidates"
STATUS_ATTR = "longent_status"
ANTECEDENT_ATTR = "longent_antecedent"
LINKED, NIL_DECISION, SKIPPED = "linked", "nil", "skipped"  # the values of span._.longent_status
CONFIG_FILE = "cfg.json"
KB_DIR = "kb"
ARCHIVE_FILE = "model.tar.gz"
REQUIREMENT = "allennlp-longent>=0.1.0"
OLD_KEYS = (
    "'archive' (a cross-encoder) and 'calibration' (cascade.json) are replaced by 'model': one "
    "cascade_linker archive holding the first stage, the cross-encoder and the calibration. Make "
    "it with `longent calibrate VAL_MENTIONS --first-stage FIRST_STAGE.tar.gz --cross-encoder "
    "ARCHIVE --output cascade/model.tar.gz` (docs/linking.md, \"Link your own knowledge base\") "
    "and pass config={'kb': ..., 'model': 'cascade/model.tar.gz'}"
)

for _attr in (CANDIDATES_ATTR, STATUS_ATTR, ANTECEDENT_ATTR):
    if not Span.has_extension(_attr):
        Span.set_extension(_attr, default=None)


@Language.factory(
    "longent_linker",
    default_config={
        "model": None,
        "kb": None,
        "top_k": 64,
        "rerank_k": None,
        "threshold": None,
        "weight": None,
        "unwritten_nil": None,
        "nil_option": None,
        "name_coreference": True,
        "label_agreement": None,
        "labels": "ner",
        "article_agreement": True,
        "name_agreement": True,
        "descriptors": True,
        "retriever": None,
        "encoder": None,
        "skip_labels": SKIP_LABELS,
        "batch_size": 8,
        "spans_key": None,
        "cuda_device": -1,
        "archive": None,
        "calibration": None,
    },
)
def make_longent_linker(
    nlp: Language,
    name: str,
    model: Optional[str],
    kb: Optional[str],
    top_k: int,
    rerank_k: Optional[int],
    threshold: Optional[float],
    weight: Optional[float],
    unwritten_nil: Optional[bool],
    nil_option: Optional[bool],
    name_coreference: bool,
    label_agreement: Optional[bool],
    labels: str,
    article_agreement: bool,
    name_agreement: bool,
    descriptors: bool,
    retriever: Optional[str],
    encoder: Optional[str],
    skip_labels: List[str],
    batch_size: int,
    spans_key: Optional[str],
    cuda_device: int,
    archive: Optional[str],
    calibration: Optional[str],
) -> "LongentLinker":
    """``model``: a ``cascade_linker`` archive (``longent calibrate``; None: retrieval alone);
    ``kb``: a knowledge-base directory (``longent kb build``); ``retriever``
    (``bm25``/``dense``/``hybrid``, with ``encoder``: a ``bi_encoder`` archive or
    sentence-transformers folder) re-indexes the KB in memory instead of using its own index;
    ``threshold`` overrides the calibrated one (0 when neither is given); ``rerank_k`` the
    calibrated one; ``weight`` the calibrated re-ranker weight λ (0: the archive's first stage
    with its NIL option, without loading the cross-encoder; None: the archive's λ for free text,
    ``longent calibrate --text-dev``, when it has one, else its λ); ``unwritten_nil`` the
    archive's rule that a mention with a name word on no candidate's page is NIL (``longent
    calibrate --unwritten-nil``; it also works without ``model``); ``nil_option``: whether the
    archive's NIL option (the calibrated score of "no entity") takes part (None: as ``longent
    calibrate --text-dev`` chose for free text, on without that choice; False: NIL from the
    rules alone); ``name_coreference``: a
    person span that shortens an earlier one takes its link (module docstring);
    ``label_agreement``: among the first ``rerank_k`` candidates, those whose page's pronouns
    clash with the span's label (:mod:`allennlp_longent.linking.kinds`) go after the others, and
    for a common-noun span those whose page defines their entity by its noun go first (None:
    on with hand-set labels, off with a NER's: :attr:`LongentLinker.annotated`);
    ``labels``: where the spans' labels come from, ``"ner"`` (a statistical NER such as spaCy's)
    or ``"annotated"`` (set by hand), which decides whom to believe when the label and the name
    point to different pages (:mod:`allennlp_longent.linking.label_conflict`,
    :func:`~allennlp_longent.linking.orders.name_bearers`);
    ``article_agreement``: for a name written after "the", the candidates read as persons whose
    page does not name them after "the" go after the others (the same module);
    ``name_agreement``: a span that is the bare title of exactly one of them puts it first;
    for a name with an initial, the candidates whose title writes it go first, and for a name
    that is no candidate's title, those whose page gives it as their other name (the same
    module), and the only page that writes the name is linked over the NIL option;
    ``descriptors``: definite descriptions ("the castle") go to the entity of their kind (needs
    ``model``'s first stage: its sentence encoder); ``spans_key``: link
    ``doc.spans[spans_key]`` instead of ``doc.ents``;
    ``batch_size``: mentions per model call. ``archive`` and ``calibration`` (the old
    three-file configuration) are refused with what to pass instead."""
    if archive is not None or calibration is not None:
        raise ValueError(f"{name}: {OLD_KEYS}")
    requirements = nlp.meta.setdefault("requirements", [])
    if not any(r.startswith("allennlp-longent") for r in requirements):
        requirements.append(REQUIREMENT)  # spacy package installs the plugin with the pipeline
    return LongentLinker(
        nlp, name, model, kb, top_k, threshold, batch_size, spans_key, cuda_device,
        rerank_k=rerank_k, retriever=retriever, encoder=encoder, skip_labels=skip_labels,
        weight=weight, unwritten_nil=unwritten_nil, nil_option=nil_option,
        name_coreference=name_coreference,
        label_agreement=label_agreement, labels=labels, article_agreement=article_agreement,
        name_agreement=name_agreement, descriptors=descriptors,
    )


class LongentLinker:
    """Loads the archive and the knowledge base on first use, so ``spacy.load`` is cheap and a
    pipeline's saved knowledge base replaces the configured one before anything is read."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        model: Optional[str],
        kb: Optional[str],
        top_k: int = 64,
        threshold: Optional[float] = None,
        batch_size: int = 8,
        spans_key: Optional[str] = None,
        cuda_device: int = -1,
        rerank_k: Optional[int] = None,
        retriever: Optional[str] = None,
        encoder: Optional[str] = None,
        skip_labels: Iterable[str] = tuple(SKIP_LABELS),
        weight: Optional[float] = None,
        unwritten_nil: Optional[bool] = None,
        nil_option: Optional[bool] = None,
        name_coreference: bool = True,
        label_agreement: Optional[bool] = None,
        labels: str = "ner",
        article_agreement: bool = True,
        name_agreement: bool = True,
        descriptors: bool = True,
    ) -> None:
        if labels not in LABEL_SOURCES:
            raise ValueError(f"{name}: labels={labels!r} must be one of {LABEL_SOURCES}")
        if weight is not None and not 0.0 <= weight <= 1.0:
            raise ValueError(f"{name}: weight={weight} must be in [0, 1]")
        if top_k < 1 or batch_size < 1 or (rerank_k is not None and rerank_k < 1):
            raise ValueError(f"{name}: top_k={top_k}, rerank_k={rerank_k} and "
                             f"batch_size={batch_size} must be positive")
        self.name = name
        self.model_path = model
        self.kb_path = kb
        self.top_k = top_k
        self.threshold = threshold
        self.batch_size = batch_size
        self.spans_key = spans_key
        self.cuda_device = cuda_device
        self.rerank_k = rerank_k
        self.weight = weight
        self.unwritten_nil = unwritten_nil
        self.nil_option = nil_option
        self.name_coreference = name_coreference
        self.labels = labels
        # left to the labels' source, the label rules trust hand-set labels only: a small NER's
        # labels of invented names mislead them more often than they help (round 37: on the 67
        # free-text dev sets with en_core_web_sm's labels, 12,682 of 15,273 spans right with the
        # rules, 12,924 without; 50 sets gained, 14 lost; docs/linking.md)
        self.label_agreement = self.annotated if label_agreement is None else label_agreement
        self.article_agreement = article_agreement
        self.name_agreement = name_agreement
        self.descriptors = descriptors
        self.retriever = retriever
        self.encoder = encoder
        self.skip_labels = set(skip_labels)
        self._kb: Optional[KnowledgeBase] = None
        self._model: Optional[CascadeLinker] = None
        self._cascade: Optional[Cascade] = None
        # the knowledge base and its size when the index was built, the index, and per label the
        # ids a span with that label cannot name (both derived from that knowledge base)
        self._descriptor_index: Optional[
            Tuple[KnowledgeBase, int, DescriptorIndex, Dict[str, FrozenSet[str]]]] = None
        # the knowledge base and its size when expanded, and the one expansion per mention
        self._expanded: Tuple[Optional[KnowledgeBase], int, Dict[str, List[Entity]]] = (
            None, 0, {})
        self._warned_empty_kb = False

    @property
    def annotated(self) -> bool:
        """The spans' labels were set by hand (``labels="annotated"``), not by a NER."""
        return self.labels == "annotated"

    # ------------------------------------------------------------------ resources

    @property
    def kb(self) -> "KnowledgeBase":
        from allennlp_longent.linking.knowledge_base import KnowledgeBase

        if self._kb is None:
            self._kb = KnowledgeBase.load(self.kb_path) if self.kb_path else KnowledgeBase()
            if self.retriever is not None:
                from allennlp_longent.commands.kb import make_generator

                generator = make_generator(self.retriever, self.encoder)
                generator.index_documents([e.document() for e in self._kb.entities])
                self._kb.generator = generator
        return self._kb

    def cascade(self) -> "Cascade":
        """Retrieval from the KB, then the archived cascade when there is one; the cross-encoder
        is loaded only when its calibrated weight is above 0."""
        from allennlp_longent.linking.cascade import Cascade, CascadeSettings

        if self._cascade is None or self._cascade.kb is not self.kb:
            linker = self.model()
            settings = CascadeSettings() if linker is None else replace(linker.settings)
            settings.top_k = self.top_k
            if self.rerank_k is not None:  # else the calibrated one
                settings.rerank_k = self.rerank_k
            if self.threshold is not None:
                settings.threshold = self.threshold
            settings.weight = settings.free_text_weight if self.weight is None else self.weight
            if self.nil_option is None:
                settings.nil_score = settings.free_text_nil_score
            elif not self.nil_option:
                settings.nil_score = None
            if self.unwritten_nil is not None:
                settings.unwritten_nil = self.unwritten_nil
            if linker is None:
                self._cascade = Cascade(self.kb, None, settings, self.batch_size)
            else:
                self._cascade = linker.cascade(self.kb, settings.weight > 0, settings,
                                               self.batch_size)
            if self.name_agreement:
                self._cascade.propose = self._expansion
        return self._cascade

    def _expansion(self, mention: str) -> List["Entity"]:
        """The one entity of the knowledge base whose title ``mention`` abbreviates at the lowest
        cost (:func:`~allennlp_longent.linking.names.expansion`), kept per mention; none when two
        or more tie: choosing among them would be a guess."""
        from allennlp_longent.linking.names import expansion

        kb = self.kb
        if self._expanded[0] is not kb or self._expanded[1] != len(kb):
            self._expanded = (kb, len(kb), {})
        known = self._expanded[2]
        if mention not in known:
            found = expansion(mention, kb.entities)[0]
            known[mention] = found if len(found) == 1 else []
        return known[mention]

    def model(self) -> Optional["CascadeLinker"]:
        """The archived ``cascade_linker`` (None without ``model``)."""
        if self._model is None and self.model_path is not None:
            from allennlp.models.archival import load_archive

            import allennlp_longent.registered  # noqa: F401  (registers the archived model)
            from allennlp_longent.linking.models.cascade_linker import CascadeLinker

            if not Path(self.model_path).is_file():
                raise FileNotFoundError(f"{self.name}: model archive not found: {self.model_path}")
            check_archive(self.model_path)
            loaded = load_archive(self.model_path, cuda_device=self.cuda_device)
            if not isinstance(loaded.model, CascadeLinker):
                raise ValueError(
                    f"{self.name}: {self.model_path} holds a {type(loaded.model).__name__}, not a "
                    f"cascade_linker. {OLD_KEYS}")
            loaded.model.eval()
            self._model = loaded.model
        return self._model

    # ------------------------------------------------------------------ linking

    def __call__(self, doc: Doc) -> Doc:
        self._link([doc])
        return doc

    def pipe(self, stream: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        """Links the spans of ``batch_size`` docs together, ``self.batch_size`` per model call."""
        for docs in minibatch(stream, size=batch_size):
            self._link(docs)
            yield from docs

    def _spans(self, doc: Doc) -> List[Span]:
        """The spans to link; the skipped ones are marked ``skipped``."""
        if self.spans_key is None:
            spans = list(doc.ents)
        else:
            spans = list(doc.spans[self.spans_key]) if self.spans_key in doc.spans else []
        for span in spans:
            if span.label_ in self.skip_labels:
                span._.set(STATUS_ATTR, SKIPPED)
        return [span for span in spans if span.label_ not in self.skip_labels]

    def _link(self, docs: List[Doc]) -> None:
        mentions = [(doc, span) for doc in docs for span in self._spans(doc)]
        if not mentions:
            return
        kb = self.kb
        kb.refresh()
        if len(kb) == 0 and not self._warned_empty_kb:
            message = f"{self.name}: the knowledge base is empty; every span is {NIL}"
            warnings.warn(message, UserWarning, stacklevel=3)
            self._warned_empty_kb = True
        from allennlp_longent.linking.candidates.generator import MentionQuery
        from allennlp_longent.linking.descriptors import descriptor, descriptor_order

        cascade = self.cascade()
        queries = []
        for doc, span in mentions:
            reach = cascade.ranker[1].max_length if cascade.ranker else 512
            queries.append(MentionQuery(*_context_words(doc, span, reach)))
        k = cascade.settings.rerank_k
        retrieved = cascade.memoised(queries)
        if self.label_agreement:
            retrieved = [self._reach(span, found, k)
                         for (_, span), found in zip(mentions, retrieved)]
        if self.name_agreement:
            retrieved = [self._expanded_reach(query.mention, found, k)
                         for query, found in zip(queries, retrieved)]
        ranked = [cascade.ranked(scored) for scored in cascade.score(queries, retrieved)]
        if self.label_agreement or self.article_agreement or self.name_agreement:
            ranked = self._agree([span for _, span in mentions], ranked, k)
        if self.descriptors and cascade.evidence is not None:
            index = self.descriptor_index(cascade)
            ranked = [descriptor_order(span.text, candidates, index, k,
                                       self._clashing(span.label_) if descriptor(span.text)
                                       else frozenset())
                      for (_, span), candidates in zip(mentions, ranked)]
        links: Dict[Span, str] = {}
        for (_, span), candidates in zip(mentions, ranked):
            span._.set(CANDIDATES_ATTR, candidates)
            links[span] = self._decide(cascade, span, candidates, k)
        for doc in docs:
            spans = [span for d, span in mentions if d is doc]
            if self.name_coreference:
                self._copy_coreferent(spans, links)
            for span in spans:
                span._.set(STATUS_ATTR, NIL_DECISION if links[span] == NIL else LINKED)
            self._set_kb_ids(doc, links)

    def _decide(self, cascade: "Cascade", span: Span, candidates: List[dict], k: int) -> str:
        """NIL when the span names no page of its candidates (:meth:`_person_of_no_page`,
        :meth:`_place_of_no_page`, :meth:`_group_of_no_page`, :meth:`_of_no_kind`,
        :meth:`_moved_unwritten`, :meth:`_number_unwritten`, and, with ``label_agreement``,
        :func:`~allennlp_longent.linking.label_conflict.label_conflict`, which may instead put
        the likeliest candidate back first; then :meth:`_in_passing` of the candidate left
        first); else the
        first candidate, whatever the NIL option says, when ``descriptors`` found it for a
        definite description or ``name_agreement`` finds it the only page of the first ``k``
        that writes the name (:func:`~allennlp_longent.linking.cascade.written_by_first_only`)
        or the span's bare title (:meth:`_titled`) or its name and the page's kind
        (:meth:`_kind_named`) reaching a threshold the user set; else the cascade's decision."""
        from allennlp_longent.linking.cascade import written_by_first_only

        if self._person_of_no_page(span, candidates) or self._place_of_no_page(span, candidates) \
                or self._group_of_no_page(span, candidates) or self._of_no_kind(span, candidates) \
                or self._moved_unwritten(candidates) or self._number_unwritten(span, candidates):
            return NIL
        if self.label_agreement:
            from allennlp_longent.linking.label_conflict import label_conflict, name_first

            conflict = label_conflict(span.text, candidates, self.annotated)
            if conflict == NIL:
                return NIL
            if conflict is not None:
                candidates[:] = name_first(candidates, conflict)
        if self._in_passing(span, candidates):
            return NIL
        described = self.descriptors and bool(candidates) and (
            candidates[0].get("descriptor") is not None or candidates[0].get("kind_noun"))
        expanded = self.name_agreement and bool(candidates) and candidates[0].get("expansion")
        named = self.name_agreement and written_by_first_only(
            [c.get("unwritten") for c in candidates], k)
        said = (self._titled(span, candidates, k) or self._kind_named(span, candidates)) \
            and candidates[0]["probability"] >= cascade.settings.threshold
        return (candidates[0]["id"] if described or named or expanded or said
                else cascade.best(candidates))

    def _kind_named(self, span: Span, candidates: List[dict]) -> bool:
        """With ``name_agreement``: the first candidate's page writes every word of the span's
        name, every number of it (:func:`~allennlp_longent.linking.kinds.numbers_written`) and
        is of the kind the span says:
        by its last word or its word before "of"
        (:func:`~allennlp_longent.linking.kinds.kind_named`: "Lindqvist's yard" is the Lindqvist
        shipyard) or, with ``label_agreement``, by its label (an EVENT span and
        a page that defines an event: "the Guarita case" is the Guarita affair), whatever the
        NIL option says."""
        from allennlp_longent.linking.kinds import (
            DEFINED_KINDS,
            defines,
            kind_named,
            numbers_written,
        )

        if not (self.name_agreement and candidates and candidates[0].get("unwritten") == []):
            return False
        entity = self.kb[candidates[0]["id"]]
        nouns = DEFINED_KINDS.get(span.label_) if self.label_agreement else None
        label = span.label_ if self.label_agreement else None
        return (kind_named(span.text, entity, label)
                or (nouns is not None and defines(entity, nouns))) \
            and numbers_written(span.text, entity)

    @staticmethod
    def _moved_unwritten(candidates: List[dict]) -> bool:
        """The first candidate is there by a rule, not by its probability, and its page never
        writes a word of the span's name (``unwritten``): the likelier page went back ("Café
        Nagisa", a FAC span, is not the singer Nagisa, nor an anime whose page writes "cafe")."""
        return bool(candidates) and bool(candidates[0].get("unwritten")) and \
            candidates[0]["probability"] < max(c["probability"] for c in candidates)

    def _number_unwritten(self, span: Span, candidates: List[dict]) -> bool:
        """With ``name_agreement``: the span writes a number its first candidate's page does not
        (:func:`~allennlp_longent.linking.kinds.numbers_written`): "Kōsaka Maru No. 5" is another
        ship than the Tokuzō Maru, "Shinonome 3" another ferry."""
        from allennlp_longent.linking.kinds import numbers_written

        return self.name_agreement and bool(candidates) \
            and not numbers_written(span.text, self.kb[candidates[0]["id"]])

    def _in_passing(self, span: Span, candidates: List[dict]) -> bool:
        """With ``name_agreement``: the first candidate's page writes the span's name only in
        passing (:func:`~allennlp_longent.linking.passing.named_in_passing`: "Kalamonas" on
        the page of a ferry line that sails "to Kalamonas")."""
        if not (self.name_agreement and candidates):
            return False
        from allennlp_longent.linking.passing import named_in_passing

        return named_in_passing(span.text, candidates[0], self.kb[candidates[0]["id"]])

    def _of_no_kind(self, span: Span, candidates: List[dict]) -> bool:
        """With ``name_agreement``: the span's last word names a kind of place or body that its
        first candidate's page does not write
        (:func:`~allennlp_longent.linking.kinds.names_other_kind`: "Kovalenko Chess School" is
        not the Kovalenko Memorial, a chess tournament)."""
        if not (self.name_agreement and candidates):
            return False
        from allennlp_longent.linking.kinds import names_other_kind

        return names_other_kind(span.text, self.kb[candidates[0]["id"]])

    def _titled(self, span: Span, candidates: List[dict], k: int) -> bool:
        """With ``name_agreement``: the span is the bare title of its first candidate and of no
        other of the first ``k`` (:func:`~allennlp_longent.linking.orders.is_title`, with the
        titles of :meth:`_naming`), and, with
        ``label_agreement``, its label does not clash with that candidate's kind. An exact title
        is the easiest mention there is, and the NIL option is not to take it ("Itaquara", a
        town's title, had gone NIL at probability 0.44)."""
        if not (self.name_agreement and candidates):
            return False
        from allennlp_longent.linking.kinds import clashes, kind
        from allennlp_longent.linking.orders import is_title

        label = span.label_ if self.label_agreement else None
        titles = is_title(span.text, candidates, self._naming(span, candidates, k), k)
        return titles[0] and sum(titles) == 1 and not (
            label and clashes(label, kind(self.kb[candidates[0]["id"]])))

    def _naming(self, span: Span, candidates: List[dict], k: int) -> Callable[[str], str]:
        """The titles the title rules read for ``span`` among its first ``k`` ``candidates``
        (:func:`~allennlp_longent.linking.orders.naming_titles`; with hand-set labels, without
        the titles of the name's bearers, :func:`~allennlp_longent.linking.orders.name_bearers`)."""
        from allennlp_longent.linking.orders import name_bearers, naming_titles

        label = span.label_ if self.label_agreement else None
        bearers = name_bearers(label, span.text, candidates, self.kb.__getitem__, k) \
            if label and self.annotated else frozenset()
        return naming_titles(label, self.kb.__getitem__, self.annotated, bearers)

    def _place_of_no_page(self, span: Span, candidates: List[dict]) -> bool:
        """With ``label_agreement`` and labels set by hand (``labels="annotated"``): a GPE span
        whose first candidate is a person or an organisation
        (:func:`~allennlp_longent.linking.kinds.kind`,
        :func:`~allennlp_longent.linking.kinds.organisation`) whose title writes none of its name
        words. A country, a city or a region is neither; the page names the place in passing,
        where someone lived or what a firm serves ("Melbourne" on an emigrant's page, "Germany"
        on a newspaper's). Round 31, the mirror of :meth:`_person_of_no_page`; not with a
        statistical NER's labels, which call many names of people and papers GPE (on the dev
        sets with en_core_web_sm's labels it fixed 6 spans and broke 7). Nor is it a built place
        that is no settlement (:func:`~allennlp_longent.linking.kinds.built`: "Tanah Tinggi" is
        not the mosque Masjid Tanah Tinggi; round 43), whatever its title writes."""
        from allennlp_longent.linking.definitions import PERSON
        from allennlp_longent.linking.kinds import built, kind, organisation
        from allennlp_longent.linking.names import name_words, title_writes

        if not (self.label_agreement and self.annotated and candidates
                and span.label_ == "GPE"):
            return False
        words = [token for token, _ in name_words(span.text)]
        first = self.kb[candidates[0]["id"]]
        return bool(words) and (built(first) or not any(title_writes(words, first.title))
                                and (kind(first) == PERSON or organisation(first)))

    def _group_of_no_page(self, span: Span, candidates: List[dict]) -> bool:
        """With ``label_agreement``: a NORP span (a people, a faith, a party) whose first
        candidate's title writes none of its name words. A page about a group carries the
        group's name in its title; a fair's page that writes "the Anyr hunters" names the
        people in passing (round 46, from the free-text dev sets: on dev60 to dev105, 24 of
        their 26 NORP spans are NIL)."""
        from allennlp_longent.linking.names import name_words, title_writes

        if not (self.label_agreement and candidates and span.label_ == "NORP"):
            return False
        words = [token for token, _ in name_words(span.text)]
        return bool(words) and not any(title_writes(words, self.kb[candidates[0]["id"]].title))

    def _person_of_no_page(self, span: Span, candidates: List[dict]) -> bool:
        """With ``label_agreement``: a person span written as a full name (two name words or
        more, or one after a title of address: "Mr Sayle"; no "the" before it) whose first
        candidate is a thing (:func:`~allennlp_longent.linking.kinds.clashes`) whose title
        writes none of its name words. The label rules have put every person of the first
        candidates before it, so the person is none of them: a band's page names its singer
        ("Tove Sandmo" is no band). Shorter spans only with labels set by hand
        (``labels="annotated"``, round 36: "Freame", the author, is not his book "Beneath
        Tsangri"); small NER models call many one-word names of places and papers PERSON
        ("Gazette", "Heimøya"); counted on the dev sets' decisions with en_core_web_sm's labels,
        it would have broken 123 spans and fixed 11."""
        from allennlp_longent.linking.kinds import after_article, clashes, kind
        from allennlp_longent.linking.names import PERSON_LABELS, name_words, title_writes, untitled

        if not (self.label_agreement and candidates and span.label_ in PERSON_LABELS):
            return False
        words = [token for token, _ in name_words(span.text)]
        titled = untitled(span.text) != span.text
        if not words or (len(words) < 2 and not titled and not self.annotated) \
                or after_article(_words_from_article(span)):
            return False
        first = self.kb[candidates[0]["id"]]
        return clashes(span.label_, kind(first)) and not any(title_writes(words, first.title))

    def descriptor_index(self, cascade: "Cascade") -> "DescriptorIndex":
        """The kind phrases of the knowledge base's entities, embedded by the first stage's
        sentence encoder (:mod:`allennlp_longent.linking.descriptors`), rebuilt when the
        knowledge base changes."""
        from allennlp_longent.linking.descriptors import DescriptorIndex

        kb = self.kb
        if self._descriptor_index is None or self._descriptor_index[0] is not kb \
                or self._descriptor_index[1] != len(kb):
            encoder = cascade.evidence.encoder
            self._descriptor_index = (kb, len(kb), DescriptorIndex(
                list(kb.entities), lambda texts: encoder.texts(texts)), {})
        return self._descriptor_index[2]

    def _clashing(self, label: str) -> FrozenSet[str]:
        """The ids of the entities of the descriptor index's knowledge base that a span with
        ``label`` cannot name (:func:`~allennlp_longent.linking.kinds.label_excludes`), kept with
        the index; none without ``label_agreement``."""
        if not self.label_agreement:
            return frozenset()
        from allennlp_longent.linking.kinds import label_excludes

        kb, _, _, by_label = self._descriptor_index
        if label not in by_label:
            by_label[label] = frozenset(e.id for e in kb.entities if label_excludes(label, e))
        return by_label[label]

    @staticmethod
    def _reach(span: Span, found: List[tuple], k: int) -> List[tuple]:
        """``found`` (retrieval's ``(entity, score, retriever score)``, best first) with the
        candidate of the span's kind that :func:`~allennlp_longent.linking.orders.kind_reach`
        finds below the first ``k``, or else the settlement that
        :func:`~allennlp_longent.linking.orders.settlement_reach` or the organisation that
        :func:`~allennlp_longent.linking.orders.organisation_reach` finds, moved to the ``k``-th
        place, for the label rules to see."""
        from allennlp_longent.linking.orders import kind_reach, organisation_reach, settlement_reach

        entities = [e for e, _, _ in found]
        for reach in (kind_reach, settlement_reach, organisation_reach):
            i = reach(span.label_, span.text, entities, k)
            if i is not None:
                return found[:k - 1] + [found[i]] + found[k - 1:i] + found[i + 1:]
        return found

    def _expanded_reach(self, mention: str, found: List[tuple], k: int) -> List[tuple]:
        """``found`` with the one expansion of an abbreviated ``mention``
        (:meth:`_expansion`) moved to the ``k``-th place when it is below it."""
        expanded = self._expansion(mention)
        if not expanded:
            return found
        i = next((i for i, (e, _, _) in enumerate(found) if e.id == expanded[0].id), None)
        if i is None or i < k:
            return found
        return found[:k - 1] + [found[i]] + found[k - 1:i] + found[i + 1:]

    def _agree(self, spans: List[Span], ranked: List[List[dict]], k: int) -> List[List[dict]]:
        """Each span's candidates re-grouped among the first ``k`` by ``label_agreement``,
        ``article_agreement`` and ``name_agreement`` (:mod:`allennlp_longent.linking.orders`)."""
        from allennlp_longent.linking.kinds import (
            after_article,
            kind,
            modifies_noun,
            named_with_article,
            place_name,
        )
        from allennlp_longent.linking.names import PERSON_LABELS
        from allennlp_longent.linking.orders import (
            alias_order,
            article_order,
            definition_order,
            expansion_order,
            gender_order,
            initial_order,
            kind_name_order,
            made_order,
            noun_order,
            organisation_order,
            person_titled,
            place_order,
            placeless_order,
            product_order,
            setting_order,
            title_order,
            type_order,
        )

        kb = self.kb

        def kind_of(entity_id: str) -> Optional[str]:
            return kind(kb[entity_id])

        def title_of(entity_id: str) -> str:
            return kb[entity_id].title

        def with_article(entity_id: str) -> bool:
            return named_with_article(kb[entity_id])

        agreed = []
        for span, candidates in zip(spans, ranked):
            naming = self._naming(span, candidates, k)
            if self.name_agreement:
                candidates = title_order(place_name(span.text, span.label_), candidates,
                                         naming, k)
            if self.label_agreement:
                candidates = placeless_order(span.text, span.label_, candidates, kb.__getitem__,
                                             k)
                candidates = product_order(span.text, span.label_, candidates, kb.__getitem__, k)
                if self.annotated:
                    candidates = made_order(span.label_, candidates, kb.__getitem__, k)
                candidates = type_order(span.label_, candidates, kind_of, k, span.text, naming)
                candidates = definition_order(span.label_, candidates, kb.__getitem__, k,
                                              span.text, naming)
                candidates = place_order(span.text, span.label_, candidates, title_of, k)
                candidates = organisation_order(span.text, span.label_, candidates,
                                                kb.__getitem__, k, capitals=self.annotated)
                candidates = setting_order(span.text, span.label_, candidates, kb.__getitem__, k)
                candidates = noun_order(span.text, candidates, kb.__getitem__, k)
            if self.article_agreement and after_article(_words_from_article(span)) \
                    and not (span.label_ in PERSON_LABELS and modifies_noun(_next_word(span))
                             and person_titled(span.text, candidates, kb.__getitem__, k)):
                candidates = article_order(candidates, kind_of, with_article, k)
            if self.name_agreement:
                candidates = initial_order(span.text, candidates, title_of, k)
                candidates = gender_order(span.text, candidates, kb.__getitem__, k)
                candidates = kind_name_order(span.text, candidates, kb.__getitem__, k,
                                             span.label_ if self.label_agreement else None)
                candidates = alias_order(span.text, candidates, kb.__getitem__, k,
                                         span.label_ if self.label_agreement else None)
                candidates = expansion_order(self._expansion(span.text), candidates, k)
            agreed.append(candidates)
        return agreed

    def _copy_coreferent(self, spans: List[Span], links: Dict[Span, str]) -> None:
        """A person span that shortens an earlier one takes its link, in document order so that
        a chain ("Wenna Corrander", "Mrs Corrander", "Corrander") ends where it starts, but not
        when its title of address gives the other gender than that link's page
        (:func:`~allennlp_longent.linking.kinds.said_gender`)."""
        from allennlp_longent.linking.kinds import gender, said_gender
        from allennlp_longent.linking.names import name_antecedents

        kb = self.kb
        titles = [kb[links[span]].title if links[span] in kb else None for span in spans]
        found = name_antecedents([(span.text, span.label_) for span in spans], titles)
        for span, antecedent in zip(spans, found):
            if antecedent is None:
                continue
            first = spans[antecedent]
            said = said_gender(span.text)
            if said is not None and links[first] in kb \
                    and gender(kb[links[first]]) not in (None, said):
                continue  # "Madame Orbach" after "Felix Orbach": his wife, not him
            links[span] = links[first]
            span._.set(ANTECEDENT_ATTR, (first.start_char, first.end_char))

    def _set_kb_ids(self, doc: Doc, links: Dict[Span, str]) -> None:
        """Spans handed out by ``doc.ents`` and span groups are copies, so the links go to the
        entity tokens, or into a rebuilt span group."""
        if self.spans_key is None:
            for span in doc.ents:
                if span in links:
                    for token in span:
                        token.ent_kb_id_ = links[span]
            return
        if self.spans_key not in doc.spans:
            return
        group = doc.spans[self.spans_key]
        linked = [
            Span(doc, s.start, s.end, label=s.label, kb_id=links.get(s, s.kb_id), span_id=s.id)
            for s in group
        ]
        doc.spans[self.spans_key] = SpanGroup(doc, name=self.spans_key, attrs=group.attrs,
                                              spans=linked)

    # ------------------------------------------------------------------ serialization

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        """Copies the cascade archive and the knowledge base into ``path``: the pipeline folder
        holds everything it needs and can be moved, shared or packaged (``spacy package``)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        config: dict = {"model": None}
        if self.model_path is not None:
            if not Path(self.model_path).is_file():
                raise FileNotFoundError(f"{self.name}: model archive not found: {self.model_path}")
            if Path(self.model_path).resolve() != (path / ARCHIVE_FILE).resolve():
                shutil.copyfile(self.model_path, path / ARCHIVE_FILE)
            config["model"] = ARCHIVE_FILE
        (path / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
        self.kb.save(path / KB_DIR)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "LongentLinker":
        """Reads what :meth:`to_disk` wrote; the archive and the KB are opened on first use."""
        path = Path(path)
        config = json.loads((path / CONFIG_FILE).read_text())
        if config.get("archive") or config.get("calibration"):
            raise ValueError(f"{self.name}: {path} was saved with the old three-file "
                             f"configuration. {OLD_KEYS}")
        self.model_path = str(path / config["model"]) if config.get("model") else None
        self.kb_path = str(path / KB_DIR)
        self._kb = None
        self.retriever = None  # the saved KB holds the index the pipeline used
        self._model = None
        self._cascade = None
        return self


def _words_from_article(span: Span) -> List[str]:
    """The span's words, after the word before it unless the span opens with an article."""
    words = [token.text for token in span]
    if span.start > 0 and not (words and words[0].lower() == "the"):
        words.insert(0, span.doc[span.start - 1].text)
    return words


def _next_word(span: Span) -> Optional[str]:
    """The text of the first non-space token after ``span`` (None at the end of the doc)."""
    return next((t.text for t in span.doc[span.end:] if not t.is_space), None)


def _context_words(doc: Doc, span: Span, reach: int) -> Tuple[Tuple[str, ...], int, int]:
    """The non-space tokens within ``reach`` words of ``span`` (the span's with a full stop that
    the tokenizer split off a word put back on it, so that the name rules read an abbreviation
    as one: "Hnos." is abbreviated, "Hnos" and "." are not; and with a street abbreviation
    written out: :func:`~allennlp_longent.linking.names.spelled_out`), and the span's inclusive
    offsets.

    The reader's window takes fewer than ``reach`` word pieces on each side of the mention and
    every word has at least one piece, so cutting here never changes the window.
    """
    from allennlp_longent.linking.names import spelled_out

    inside = [token.i for token in span if not token.is_space]
    left = [t.text for t in doc[max(0, span.start - reach) : inside[0]] if not t.is_space]
    mention: List[str] = []
    for i in range(inside[0], inside[-1] + 1):
        if doc[i].is_space:
            continue
        if doc[i].text == "." and mention and not doc[i - 1].whitespace_:
            mention[-1] += "."
        else:
            mention.append(doc[i].text)
    mention = spelled_out(" ".join(mention)).split()
    right = [t.text for t in doc[inside[-1] + 1 : inside[-1] + 1 + reach] if not t.is_space]
    left = left[-reach:]
    words = tuple(left + mention + right[:reach])
    return words, len(left), len(left) + len(mention) - 1
