"""Reader ``zeshel_mentions``: zeshel mentions as queries for a model that retrieves itself
(``context_evidence`` first stage, ``cascade_linker``), so no candidates file is read."""

from pathlib import Path
from typing import Iterable, List, Optional, Sequence

from allennlp.data import DatasetReader, Instance
from allennlp.data.fields import MetadataField

from allennlp_longent.linking.candidates.generator import Document, MentionQuery
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines
from allennlp_longent.linking.world_index import mention_query


@DatasetReader.register("zeshel_mentions")
class ZeshelMentionsReader(DatasetReader):
    """Reads ``<root>/mentions/<split>.json`` with the worlds in ``documents_dir`` (default
    ``<root>/documents``). Each instance holds one ``mention`` metadata field:
    ``{mention_id, world, documents_dir, query, gold}``; ``gold`` is the label document id
    (None when the record has none)."""

    def __init__(self, documents_dir: Optional[str] = None, **kwargs) -> None:
        super().__init__(manual_distributed_sharding=True, manual_multiprocess_sharding=True,
                         **kwargs)
        self.documents_dir = documents_dir
        self._documents: dict = {}

    def documents(self, documents_dir: str) -> WorldDocuments:
        if documents_dir not in self._documents:
            if not Path(documents_dir).is_dir():
                raise FileNotFoundError(f"documents_dir {documents_dir} is not a folder")
            self._documents[documents_dir] = WorldDocuments(documents_dir)
        return self._documents[documents_dir]

    def _read(self, file_path: str) -> Iterable[Instance]:
        path = Path(file_path)
        if not path.is_file():
            raise FileNotFoundError(f"no mentions file at {path}")
        documents_dir = self.documents_dir or str(path.parent.parent / "documents")
        documents = self.documents(documents_dir)
        records = self.shard_iterable(read_json_lines(path))
        for number, record in records:
            query = mention_query(record, documents, f"{path}:{number}")
            yield self.text_to_instance(query, record["corpus"], documents_dir,
                                        record.get("label_document_id"), record["mention_id"])

    def text_to_instance(  # type: ignore[override]
        self,
        query: MentionQuery,
        world: Optional[str] = None,
        documents_dir: Optional[str] = None,
        gold: Optional[str] = None,
        mention_id: Optional[str] = None,
        entities: Optional[Sequence[Document]] = None,
    ) -> Instance:
        """``world`` and ``documents_dir`` name the knowledge base; ``entities`` (zeshel
        documents) give one inline instead."""
        if entities is None and (world is None or documents_dir is None):
            raise ValueError("a mention needs 'world' and 'documents_dir', or inline entities")
        mention = {"mention_id": mention_id, "world": world, "documents_dir": documents_dir,
                   "query": query, "gold": gold,
                   "entities": None if entities is None else list(entities)}
        return Instance({"mention": MetadataField(mention)})


def words_of(text: Optional[str], words: Optional[List[str]]) -> List[str]:
    if words is not None:
        return list(words)
    if text is None:
        raise ValueError("input needs 'context' (text) or 'context_words' (list of words)")
    return text.split()
