"""Candidate generation: an index over entity documents that proposes entities for a mention."""

import json
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from allennlp.common import Registrable

CONFIG_FILE = "generator.json"

Document = Dict[str, str]
"""``{"document_id", "title", "text"}``, as in zeshel's ``documents/<world>.json``."""


class Candidate(NamedTuple):
    """One retrieved document: its id and the retrieval score (higher is better)."""

    document_id: str
    score: float


class MentionQuery(NamedTuple):
    """A mention in its context: whitespace words and the mention's inclusive word offsets;
    ``document_id``: the knowledge-base entity whose description the context is, if any (zeshel
    mentions sit in other entities' pages; free text has none)."""

    words: Tuple[str, ...]
    start: int
    end: int
    document_id: Optional[str] = None

    @property
    def mention(self) -> str:
        return " ".join(self.words[self.start : self.end + 1])


Query = Union[str, MentionQuery]


def as_mention_query(query: Query) -> MentionQuery:
    """A plain string is a mention without context."""
    if isinstance(query, MentionQuery):
        return query
    words = tuple(query.split())
    return MentionQuery(words, 0, len(words) - 1)


def document_text(document: Document) -> str:
    return f"{document['title']} {document['text']}"


class CandidateGenerator(Registrable):
    """Indexes entity documents and returns the best-matching ids for mention queries.

    A query is a string (the mention alone) or a :class:`MentionQuery` (a mention in context).
    Results are deterministic: score descending, then index order.
    """

    default_implementation = "bm25"

    def index(self, document_ids: Sequence[str], texts: Sequence[str]) -> None:
        """Replaces the index with plain texts (ids and texts in the same order)."""
        raise NotImplementedError

    def index_documents(self, documents: Sequence[Document]) -> None:
        """Replaces the index with ``documents``; title and text indexed as one text here."""
        self.index([d["document_id"] for d in documents], [document_text(d) for d in documents])

    def add_documents(self, new: Sequence[Document], all_documents: Sequence[Document]) -> None:
        """``new`` were appended to the collection, now ``all_documents``. Generators with global
        statistics (BM25's IDF) re-index everything; dense vectors encode only ``new``."""
        self.index_documents(all_documents)

    def retrieve(self, queries: Sequence[Query], k: int) -> List[List[Candidate]]:
        """Top ``k`` candidates per query; documents with no evidence for the query are left out."""
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self.document_ids())

    def document_ids(self) -> List[str]:
        """The indexed ids, in index order."""
        raise NotImplementedError

    def config(self) -> dict:
        """Constructor parameters plus ``type``: what ``load`` rebuilds this generator from."""
        raise NotImplementedError

    def save(self, directory: Union[str, Path]) -> None:
        """Writes the configuration and the index to ``directory``."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / CONFIG_FILE).write_text(json.dumps(self.config(), indent=2) + "\n")
        self._save_index(directory)

    @classmethod
    def load(cls, directory: Union[str, Path]) -> "CandidateGenerator":
        directory = Path(directory)
        config_path = directory / CONFIG_FILE
        if not config_path.is_file():
            raise FileNotFoundError(
                f"no candidate generator saved in {directory}: {CONFIG_FILE} missing"
            )
        config = json.loads(config_path.read_text())
        generator = cls.by_name(config.pop("type"))(**config)
        generator._load_index(directory)
        return generator

    def _save_index(self, directory: Path) -> None:
        raise NotImplementedError

    def _load_index(self, directory: Path) -> None:
        raise NotImplementedError
