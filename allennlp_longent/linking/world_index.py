"""Zeshel-format worlds as knowledge bases: one index per world and retriever, built once.

A world ``<documents_dir>/<world>.json`` is its own knowledge base (zeshel's zero-shot setting,
Logeswaran et al. 2019 §2): a mention of that world is linked against that world's entities only.
"""

from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from allennlp_longent.linking.candidates.generator import MentionQuery
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines, require
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase

RETRIEVERS = ("bm25", "dense", "hybrid")
MENTION_FIELDS = ("mention_id", "context_document_id", "corpus", "start_index", "end_index")


def world_entities(documents: WorldDocuments, world: str) -> List[Entity]:
    return [Entity(d["document_id"], d["title"], d["text"])
            for d in documents.world(world).values()]


class WorldIndexes:
    """``kb(world, retriever)``: the world's entities indexed by ``bm25``, ``dense`` (vectors of
    ``encoder``, used untrained) or ``hybrid`` (their reciprocal-rank fusion); the dense vectors
    are computed once per world and shared by ``dense`` and ``hybrid``."""

    def __init__(self, documents_dir: Union[str, Path], encoder: str = "packaged_minilm",
                 mention_length: int = 16, max_length: int = 256) -> None:
        self.documents = WorldDocuments(documents_dir)
        self.encoder = encoder
        self.mention_length = mention_length
        self.max_length = max_length
        self._kbs: Dict[Tuple[str, str], KnowledgeBase] = {}

    def kb(self, world: str, retriever: str = "bm25") -> KnowledgeBase:
        if retriever not in RETRIEVERS:
            raise ValueError(f"retriever {retriever!r} is not one of {RETRIEVERS}")
        if (world, retriever) not in self._kbs:
            self._build(world, retriever)
        return self._kbs[world, retriever]

    def _build(self, world: str, retriever: str) -> None:
        from allennlp_longent.linking.candidates import CandidateGenerator

        entities = world_entities(self.documents, world)
        docs = [e.document() for e in entities]
        if retriever == "bm25":
            bm25 = CandidateGenerator.by_name("bm25")()
            bm25.index_documents(docs)
            self._kbs[world, "bm25"] = KnowledgeBase.indexed(entities, bm25)
            return
        from allennlp_longent.linking.candidates.dense import DenseCandidateGenerator
        from allennlp_longent.linking.candidates.hybrid import HybridCandidateGenerator

        dense = DenseCandidateGenerator(self.encoder, max_length=self.max_length,
                                        mention_length=self.mention_length)
        dense.index_documents(docs)
        self._kbs[world, "dense"] = KnowledgeBase.indexed(entities, dense)
        hybrid = HybridCandidateGenerator([self.kb(world, "bm25").generator, dense])
        self._kbs[world, "hybrid"] = KnowledgeBase.indexed(entities, hybrid)


def mention_query(record: dict, documents: WorldDocuments, where: str) -> MentionQuery:
    """The mention of a zeshel mention record in its context document, as a query."""
    require(record, MENTION_FIELDS, where)
    world = documents.world(record["corpus"])
    context = world.get(record["context_document_id"])
    if context is None:
        raise ValueError(f"{where}: context document {record['context_document_id']!r} is not in "
                         f"{documents.path(record['corpus'])}")
    words = tuple(context["text"].split())
    start, end = int(record["start_index"]), int(record["end_index"])
    if not 0 <= start <= end < len(words):
        raise ValueError(f"{where}: mention offsets {start}-{end} outside the context document's "
                         f"{len(words)} words")
    return MentionQuery(words, start, end, record["context_document_id"])


def read_mentions(path: Union[str, Path], documents: WorldDocuments) -> List[dict]:
    """The mention records of a zeshel ``mentions/<split>.json``, each with its ``query``."""
    mentions = []
    for number, record in read_json_lines(path):
        record["query"] = mention_query(record, documents, f"{path}:{number}")
        mentions.append(record)
    return mentions


def gold_of(record: dict) -> Optional[str]:
    return record.get("label_document_id")
