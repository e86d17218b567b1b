"""Candidate generation: an index over entity documents that proposes entities for a mention."""

import json
from pathlib import Path
from typing import List, NamedTuple, Sequence, Union

from allennlp.common import Registrable

CONFIG_FILE = "generator.json"


class Candidate(NamedTuple):
    """One retrieved document: its id and the retrieval score (higher is better)."""

    document_id: str
    score: float


class CandidateGenerator(Registrable):
    """Indexes ``(document_id, text)`` pairs and returns the best-matching ids for text queries.

    ``index`` replaces the whole index, so a caller adding documents re-indexes the full
    collection; results for a query are deterministic: score descending, then index order.
    """

    default_implementation = "bm25"

    def index(self, document_ids: Sequence[str], texts: Sequence[str]) -> None:
        raise NotImplementedError

    def retrieve(self, queries: Sequence[str], k: int) -> List[List[Candidate]]:
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
