"""spaCy pipeline component ``longent_linker``: links spans against a local knowledge base.

BM25 over the knowledge base proposes ``top_k`` candidates per span, and a trained
``cross_encoder_ranker`` archive ranks them, reading the long context window it was trained with,
centred on the span. The span's ``kb_id_`` becomes the best candidate, or ``NIL`` when its
probability (softmax over the span's candidates) is below ``threshold`` or there is no candidate;
``span._.longent_candidates`` holds the ranked candidates with their scores.
"""

import json
import logging
import shutil
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.util import minibatch

from allennlp_longent.paths import check_archive

if TYPE_CHECKING:  # imported where used: spaCy loads this module for every pipeline
    from allennlp.data import DatasetReader
    from allennlp.models import Model

    from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase

logger = logging.getLogger(__name__)

NIL = "NIL"
CANDIDATES_ATTR = "longent_candidates"
CONFIG_FILE = "cfg.json"
KB_DIR = "kb"
ARCHIVE_FILE = "model.tar.gz"
REQUIREMENT = "allennlp-longent>=0.1.0"

if not Span.has_extension(CANDIDATES_ATTR):
    Span.set_extension(CANDIDATES_ATTR, default=None)


@Language.factory(
    "longent_linker",
    default_config={
        "kb": None,
        "top_k": 16,
        "threshold": 0.0,
        "batch_size": 8,
        "spans_key": None,
        "cuda_device": -1,
    },
)
def make_longent_linker(
    nlp: Language,
    name: str,
    archive: str,
    kb: Optional[str],
    top_k: int,
    threshold: float,
    batch_size: int,
    spans_key: Optional[str],
    cuda_device: int,
) -> "LongentLinker":
    """``archive``: a ``cross_encoder_ranker`` model archive; ``kb``: a knowledge-base directory
    (``longent kb build``); ``spans_key``: link ``doc.spans[spans_key]`` instead of ``doc.ents``;
    ``batch_size``: mentions per model call."""
    requirements = nlp.meta.setdefault("requirements", [])
    if not any(r.startswith("allennlp-longent") for r in requirements):
        requirements.append(REQUIREMENT)  # spacy package installs the plugin with the pipeline
    return LongentLinker(
        nlp, name, archive, kb, top_k, threshold, batch_size, spans_key, cuda_device
    )


class LongentLinker:
    """Loads the archive and the knowledge base on first use, so ``spacy.load`` is cheap and a
    pipeline's saved knowledge base replaces the configured one before anything is read."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        archive: str,
        kb: Optional[str],
        top_k: int = 16,
        threshold: float = 0.0,
        batch_size: int = 8,
        spans_key: Optional[str] = None,
        cuda_device: int = -1,
    ) -> None:
        if top_k < 1 or batch_size < 1:
            raise ValueError(f"{name}: top_k={top_k} and batch_size={batch_size} must be positive")
        self.name = name
        self.archive = archive
        self.kb_path = kb
        self.top_k = top_k
        self.threshold = threshold
        self.batch_size = batch_size
        self.spans_key = spans_key
        self.cuda_device = cuda_device
        self._kb: Optional[KnowledgeBase] = None
        self._model: Optional[Tuple[Model, DatasetReader]] = None
        self._warned_empty_kb = False

    # ------------------------------------------------------------------ resources

    @property
    def kb(self) -> "KnowledgeBase":
        from allennlp_longent.linking.knowledge_base import KnowledgeBase

        if self._kb is None:
            self._kb = KnowledgeBase.load(self.kb_path) if self.kb_path else KnowledgeBase()
        return self._kb

    def model(self) -> Tuple["Model", "DatasetReader"]:
        """The archived ranker (in eval mode) and its validation dataset reader."""
        if self._model is None:
            from allennlp.models.archival import load_archive

            import allennlp_longent.components  # noqa: F401  (registers the archived model)

            if not Path(self.archive).is_file():
                raise FileNotFoundError(f"{self.name}: model archive not found: {self.archive}")
            check_archive(self.archive)
            loaded = load_archive(self.archive, cuda_device=self.cuda_device)
            loaded.model.eval()
            self._model = (loaded.model, loaded.validation_dataset_reader)
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
        if self.spans_key is None:
            return list(doc.ents)
        return list(doc.spans[self.spans_key]) if self.spans_key in doc.spans else []

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
        found = kb.candidates([span.text for _, span in mentions], self.top_k)
        ranked: List[List[dict]] = [[] for _ in mentions]
        pending = [i for i, candidates in enumerate(found) if candidates]
        for start in range(0, len(pending), self.batch_size):
            batch = pending[start : start + self.batch_size]
            outputs = self._rank([(*mentions[i], found[i]) for i in batch])
            for i, output in zip(batch, outputs):
                ranked[i] = output
        links: Dict[Span, str] = {}
        for (_, span), candidates in zip(mentions, ranked):
            span._.set(CANDIDATES_ATTR, candidates)
            best = candidates[0] if candidates else None
            links[span] = best["id"] if best and best["probability"] >= self.threshold else NIL
        for doc in docs:
            self._set_kb_ids(doc, links)

    def _rank(
        self, batch: List[Tuple[Doc, Span, List[Tuple["Entity", float]]]]
    ) -> List[List[dict]]:
        """The candidates of each span, ranked by the model, best first."""
        model, reader = self.model()
        instances = []
        for doc, span, candidates in batch:
            words, first, last = _context_words(doc, span, reader.max_length)
            documents = [
                {"document_id": e.id, "title": e.title, "text": e.description}
                for e, _ in candidates
            ]
            instance = reader.text_to_instance(words, first, last, documents)
            reader.apply_token_indexers(instance)
            instances.append(instance)
        results = []
        for (_, _, candidates), output in zip(batch, model.forward_on_instances(instances)):
            retrieval = {entity.id: score for entity, score in candidates}
            results.append(
                [
                    {
                        "id": entry["document_id"],
                        "title": entry["title"],
                        "score": entry["score"],
                        "probability": entry["probability"],
                        "retrieval_score": retrieval[entry["document_id"]],
                    }
                    for entry in output["ranked"]
                ]
            )
        return results

    def _set_kb_ids(self, doc: Doc, links: Dict[Span, str]) -> None:
        """Spans handed out by ``doc.ents`` and span groups are copies, so the links go to the
        entity tokens, or into a rebuilt span group."""
        if self.spans_key is None:
            for span in doc.ents:
                for token in span:
                    token.ent_kb_id_ = links.get(span, NIL)
            return
        if self.spans_key not in doc.spans:
            return
        group = doc.spans[self.spans_key]
        linked = [
            Span(doc, s.start, s.end, label=s.label, kb_id=links.get(s, NIL), span_id=s.id)
            for s in group
        ]
        doc.spans[self.spans_key] = SpanGroup(doc, name=self.spans_key, attrs=group.attrs,
                                              spans=linked)

    # ------------------------------------------------------------------ serialization

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        """Copies the model archive and the knowledge base into ``path``: the pipeline folder
        holds everything it needs and can be moved, shared or packaged (``spacy package``)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if not Path(self.archive).is_file():
            raise FileNotFoundError(f"{self.name}: model archive not found: {self.archive}")
        if Path(self.archive).resolve() != (path / ARCHIVE_FILE).resolve():
            shutil.copyfile(self.archive, path / ARCHIVE_FILE)
        (path / CONFIG_FILE).write_text(json.dumps({"archive": ARCHIVE_FILE}, indent=2) + "\n")
        self.kb.save(path / KB_DIR)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "LongentLinker":
        """Reads what :meth:`to_disk` wrote; the archive and the KB are opened on first use."""
        path = Path(path)
        config = json.loads((path / CONFIG_FILE).read_text())
        self.archive = str(path / config["archive"])  # a name inside the folder
        self.kb_path = str(path / KB_DIR)
        self._kb = None
        self._model = None
        return self


def _context_words(doc: Doc, span: Span, reach: int) -> Tuple[List[str], int, int]:
    """The non-space tokens within ``reach`` words of ``span``, and the span's inclusive offsets.

    The reader's window takes fewer than ``reach`` word pieces on each side of the mention and
    every word has at least one piece, so cutting here never changes the window.
    """
    inside = [token.i for token in span if not token.is_space]
    left = [t.text for t in doc[max(0, span.start - reach) : inside[0]] if not t.is_space]
    mention = [doc[i].text for i in range(inside[0], inside[-1] + 1) if not doc[i].is_space]
    right = [t.text for t in doc[inside[-1] + 1 : inside[-1] + 1 + reach] if not t.is_space]
    left = left[-reach:]
    return left + mention + right[:reach], len(left), len(left) + len(mention) - 1
