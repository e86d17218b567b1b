"""Reading zeshel-format files: ``documents/<world>.json`` and JSON-lines mention files."""

import json
from pathlib import Path
from typing import Dict, Iterator, Tuple, Union

from allennlp_longent.paths import json_error

PathLike = Union[str, Path]

Document = Dict[str, str]
"""``{"document_id", "title", "text"}`` with whitespace-tokenized ``text``."""


def read_json_lines(path: PathLike) -> Iterator[Tuple[int, dict]]:
    """Yields ``(line_number, record)`` for every non-blank line; bad JSON names file and line."""
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                message = f"{path}:{line_number}: invalid JSON: {json_error(error)}"
                raise ValueError(message) from error
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{line_number}: expected a JSON object per line")
            yield line_number, record


def require(record: dict, fields: Tuple[str, ...], where: str) -> None:
    """Raises a ValueError naming ``where`` when ``record`` lacks one of ``fields``."""
    missing = [field for field in fields if field not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {missing}")


def load_world_documents(path: PathLike) -> Dict[str, Document]:
    """All documents of one world file, keyed by ``document_id``; a knowledge base's
    ``{id, title, description}`` lines (``longent kb build``'s input) are read as documents too.
    An empty world is an error."""
    documents: Dict[str, Document] = {}
    for line_number, record in read_json_lines(path):
        where = f"{path}:{line_number}"
        if "document_id" not in record and "id" in record:
            require(record, ("id", "title", "description"), where)
            record = {"document_id": record["id"], "title": record["title"],
                      "text": record["description"]}
        require(record, ("document_id", "title", "text"), where)
        if record["document_id"] in documents:
            raise ValueError(f"{where}: duplicate document_id {record['document_id']!r}")
        documents[record["document_id"]] = {
            "document_id": record["document_id"],
            "title": record["title"],
            "text": record["text"],
        }
    if not documents:
        raise ValueError(f"{path}: world has no documents")
    return documents


class WorldDocuments:
    """Loads ``<documents_dir>/<world>.json`` on first use and keeps it."""

    def __init__(self, documents_dir: PathLike) -> None:
        self.documents_dir = Path(documents_dir)
        self._worlds: Dict[str, Dict[str, Document]] = {}

    def world(self, name: str) -> Dict[str, Document]:
        if name not in self._worlds:
            path = self.path(name)
            if not path.is_file():
                raise FileNotFoundError(f"no documents for world {name!r}: {path} does not exist")
            self._worlds[name] = load_world_documents(path)
        return self._worlds[name]

    def path(self, name: str) -> Path:
        return self.documents_dir / f"{name}.json"
