"""A local entity catalogue with a candidate index, kept in a directory.

Entities come from JSON lines ``{id, title, description}``; zeshel document files
(``{document_id, title, text}``) load as they are. Adding entities updates the index (BM25
re-indexes; dense vectors are computed for the new entities only); no model is retrained.
"""

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from allennlp_longent.commands.safe_io import atomic_dir, atomic_file
from allennlp_longent.linking.candidates import CandidateGenerator
from allennlp_longent.linking.candidates.generator import Document, Query
from allennlp_longent.linking.documents import read_json_lines

logger = logging.getLogger(__name__)

ENTITIES_FILE = "entities.jsonl"
INDEX_DIR = "index"
PathLike = Union[str, Path]


@dataclass(frozen=True)
class Entity:
    id: str
    title: str
    description: str

    def document(self) -> Document:
        """The zeshel document form ``{document_id, title, text}``."""
        return {"document_id": self.id, "title": self.title, "text": self.description}


def entity_from_record(record: dict, where: str) -> Entity:
    """Reads ``{id, title, description}`` or the zeshel ``{document_id, title, text}``."""
    if "document_id" in record and "id" not in record:
        fields = ("document_id", "title", "text")
    else:
        fields = ("id", "title", "description")
    for field in fields:
        if not isinstance(record.get(field), str):
            raise ValueError(f"{where}: field {field!r} must be a string (fields: {fields})")
    if not record[fields[0]]:
        raise ValueError(f"{where}: field {fields[0]!r} is empty")
    return Entity(*(record[field] for field in fields))


def read_entities(path: PathLike) -> List[Tuple[str, Entity]]:
    """``(file:line, entity)`` pairs of one JSON lines file."""
    return [
        (f"{path}:{number}", entity_from_record(record, f"{path}:{number}"))
        for number, record in read_json_lines(path)
    ]


class KnowledgeBase:
    """Entities by id plus a :class:`CandidateGenerator` over their titles and descriptions.

    ``generator`` (BM25 by default) is (re-)indexed by this knowledge base.
    """

    def __init__(self, generator: Optional[CandidateGenerator] = None) -> None:
        if generator is None:  # not `or`: an empty generator has len() 0
            generator = CandidateGenerator.by_name("bm25")()
        self.generator = generator
        self._entities: Dict[str, Entity] = {}
        self._directory: Optional[Path] = None
        self._stamp: Optional[Tuple[int, int, int]] = None
        self.generator.index_documents([])

    def __len__(self) -> int:
        return len(self._entities)

    def __contains__(self, entity_id: str) -> bool:
        return entity_id in self._entities

    def __getitem__(self, entity_id: str) -> Entity:
        return self._entities[entity_id]

    @property
    def entities(self) -> List[Entity]:
        return list(self._entities.values())

    def add(self, entities: Iterable[Union[Entity, Tuple[str, Entity]]]) -> int:
        """Adds entities (optionally as ``(source, entity)`` pairs for error messages); re-indexes.

        Raises ``ValueError`` naming every duplicate id, and then adds nothing.
        """
        pairs = [item if isinstance(item, tuple) else (f"entity #{i}", item)
                 for i, item in enumerate(entities)]
        new = _unique(pairs, self._entities)
        self._entities.update(new)
        self.generator.add_documents([e.document() for e in new.values()], self._documents())
        return len(pairs)

    @classmethod
    def indexed(cls, entities: Sequence[Entity], generator: CandidateGenerator) -> "KnowledgeBase":
        """A KB over ``entities`` with a ``generator`` that already indexes exactly them (e.g.
        the parts of a hybrid index shared with other KBs), so nothing is indexed twice."""
        if generator.document_ids() != [entity.id for entity in entities]:
            raise ValueError("the generator does not index exactly these entities, in this order")
        kb = cls()
        kb.generator = generator
        kb._entities = _unique([(f"entity #{i}", e) for i, e in enumerate(entities)], {})
        return kb

    def add_files(self, paths: Sequence[PathLike]) -> int:
        return self.add([pair for path in paths for pair in read_entities(path)])

    def candidates(self, queries: Sequence[Query], k: int) -> List[List[Tuple[Entity, float]]]:
        """Per query (a mention string or a ``MentionQuery`` in context), up to ``k``
        ``(entity, retrieval score)`` pairs, best first."""
        return [
            [(self._entities[c.document_id], c.score) for c in found]
            for found in self.generator.retrieve(queries, k)
        ]

    def save(self, directory: PathLike) -> None:
        """Writes the index and the entity file into temporaries beside them, renamed into place
        together once both are complete: watchers never see half a file, and an interrupted save
        leaves the old index and entities, which still match."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        with atomic_dir(directory / INDEX_DIR) as index, \
                atomic_file(directory / ENTITIES_FILE) as partial:
            self.generator.save(index)
            with open(partial, "w", encoding="utf-8") as out:
                for entity in self._entities.values():
                    out.write(json.dumps(asdict(entity), ensure_ascii=False) + "\n")
        self._watch(directory)

    @classmethod
    def load(cls, directory: PathLike) -> "KnowledgeBase":
        directory = Path(directory)
        if not (directory / ENTITIES_FILE).is_file():
            raise FileNotFoundError(f"no knowledge base in {directory}: {ENTITIES_FILE} missing")
        kb = cls()
        kb.generator = CandidateGenerator.load(directory / INDEX_DIR)
        stamp = _stamp(directory / ENTITIES_FILE)
        kb._entities = _unique(read_entities(directory / ENTITIES_FILE), {})
        if kb.generator.document_ids() != list(kb._entities):
            raise ValueError(
                f"{directory / INDEX_DIR} does not index the entities of "
                f"{directory / ENTITIES_FILE}; rebuild it with `longent kb build`"
            )
        kb._directory, kb._stamp = directory, stamp
        return kb

    def refresh(self) -> bool:
        """Re-reads the entity file of the directory this KB was loaded from if it changed there.

        Returns whether it did. This is how a running linker sees ``longent kb add``.
        """
        if self._directory is None:
            return False
        path = self._directory / ENTITIES_FILE
        stamp = _stamp(path)
        if stamp == self._stamp:
            return False
        before = list(self._entities)
        self._entities = _unique(read_entities(path), {})
        documents = self._documents()
        if list(self._entities)[: len(before)] == before:
            self.generator.add_documents(documents[len(before) :], documents)
        else:
            self.generator.index_documents(documents)
        self._stamp = stamp
        logger.info("reloaded %d entities from %s", len(self._entities), path)
        return True

    def _watch(self, directory: Path) -> None:
        self._directory, self._stamp = directory, _stamp(directory / ENTITIES_FILE)

    def _documents(self) -> List[Document]:
        return [entity.document() for entity in self._entities.values()]


def _unique(pairs: List[Tuple[str, Entity]], existing: Dict[str, Entity]) -> Dict[str, Entity]:
    """The new entities by id; ``ValueError`` naming every duplicated or already known id."""
    new: Dict[str, Entity] = {}
    first_seen: Dict[str, str] = {}
    problems = []
    for source, entity in pairs:
        if entity.id in existing:
            problems.append(f"{source}: entity id {entity.id!r} is already in the knowledge base")
        elif entity.id in new:
            problems.append(
                f"{source}: duplicate entity id {entity.id!r} (first at {first_seen[entity.id]})"
            )
        else:
            new[entity.id], first_seen[entity.id] = entity, source
    if problems:
        raise ValueError("duplicate entity ids:\n" + "\n".join(problems))
    return new


def _stamp(path: Path) -> Tuple[int, int, int]:
    status = path.stat()
    return status.st_ino, status.st_mtime_ns, status.st_size
