"""Candidates for zeshel-format mentions (BM25, dense or hybrid), one index per world, with
recall of the gold."""

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from tqdm import tqdm

from allennlp_longent.linking.candidates.generator import (
    Candidate,
    CandidateGenerator,
    MentionQuery,
    Query,
)
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines, require
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase

MENTION_FIELDS = ("mention_id", "context_document_id", "corpus", "start_index", "end_index")


@dataclass
class MentionCandidates:
    mention_id: str
    world: str
    gold_document_id: Optional[str]
    candidates: List[Candidate]


def mention_query(words: List[str], start: int, end: int, context_words: int) -> str:
    """The mention's words (inclusive offsets) plus ``context_words`` words on each side."""
    return " ".join(words[max(0, start - context_words) : end + 1 + context_words])


class ZeshelCandidates:
    """Ranks each world's documents (title + text) for the mentions of ``<data_dir>/mentions``.

    ``generator`` makes each world's index (BM25 by default). With ``context_words`` = 0 the
    query is the mention in its whole context document (a dense encoder reads a window around
    it; BM25 the mention alone); otherwise the mention and that many words on each side as text.
    """

    def __init__(self, data_dir: Union[str, Path], top_k: int = 64, context_words: int = 0,
                 generator: Optional[Callable[[], CandidateGenerator]] = None,
                 batch_size: int = 64):
        if top_k < 1 or context_words < 0:
            raise ValueError(f"need top_k >= 1 and context_words >= 0: {top_k}, {context_words}")
        self.data_dir = Path(data_dir)
        self.top_k = top_k
        self.context_words = context_words
        self.documents = WorldDocuments(self.data_dir / "documents")
        self._indexes: Dict[str, KnowledgeBase] = {}
        self._generator = generator or CandidateGenerator.by_name("bm25")
        self.batch_size = batch_size

    def index(self, world: str) -> KnowledgeBase:
        if world not in self._indexes:
            kb = KnowledgeBase(self._generator())
            kb.add(
                (f"{self.documents.path(world)} ({doc['document_id']})",
                 Entity(doc["document_id"], doc["title"], doc["text"]))
                for doc in self.documents.world(world).values()
            )
            self._indexes[world] = kb
        return self._indexes[world]

    def split(self, split: str, progress: bool = True) -> Iterator[MentionCandidates]:
        """Candidates for ``mentions/<split>.json``, in file order."""
        path = self.data_dir / "mentions" / f"{split}.json"
        if not path.is_file():
            raise FileNotFoundError(f"no mention file for split {split!r}: {path}")
        lines = list(read_json_lines(path))
        with tqdm(total=len(lines), desc=f"candidates {split}", disable=not progress) as bar:
            for start in range(0, len(lines), self.batch_size):
                batch = [self._query(mention, f"{path}:{number}")
                         for number, mention in lines[start : start + self.batch_size]]
                yield from self._retrieve(batch)
                bar.update(len(batch))

    def _retrieve(self, batch: List[Tuple[dict, Query]]) -> List[MentionCandidates]:
        """Candidates of a batch of mentions, one retrieval call per world."""
        found: Dict[int, List[Tuple[Entity, float]]] = {}
        for world in dict.fromkeys(mention["corpus"] for mention, _ in batch):
            rows = [i for i, (mention, _) in enumerate(batch) if mention["corpus"] == world]
            results = self.index(world).candidates([batch[i][1] for i in rows], self.top_k)
            found.update(zip(rows, results))
        return [
            MentionCandidates(
                mention["mention_id"],
                mention["corpus"],
                mention.get("label_document_id"),
                [Candidate(entity.id, score) for entity, score in found[i]],
            )
            for i, (mention, _) in enumerate(batch)
        ]

    def _query(self, mention: dict, where: str) -> Tuple[dict, Query]:
        require(mention, MENTION_FIELDS, where)
        world = mention["corpus"]
        documents = self.documents.world(world)
        context = documents.get(mention["context_document_id"])
        if context is None:
            raise ValueError(
                f"{where}: context document {mention['context_document_id']!r} "
                f"not in {self.documents.path(world)}"
            )
        words = context["text"].split()
        start, end = int(mention["start_index"]), int(mention["end_index"])
        if not 0 <= start <= end < len(words):
            raise ValueError(
                f"{where}: mention offsets [{start}, {end}] outside the {len(words)} words of "
                f"document {context['document_id']!r}"
            )
        if self.context_words:
            return mention, mention_query(words, start, end, self.context_words)
        return mention, MentionQuery(tuple(words), start, end, context["document_id"])


def write_candidates(results: Iterable[MentionCandidates], path: Path) -> List[MentionCandidates]:
    """Writes ``{mention_id, tfidf_candidates}`` JSON lines; returns the results written."""
    written = []
    with open(path, "w", encoding="utf-8") as out:
        for result in results:
            ids = [candidate.document_id for candidate in result.candidates]
            out.write(json.dumps({"mention_id": result.mention_id, "tfidf_candidates": ids}) + "\n")
            written.append(result)
    return written


def recall_by_world(results: Iterable[MentionCandidates]) -> Dict[str, Tuple[int, int]]:
    """``world -> (mentions with the gold among the candidates, mentions with a gold)``."""
    counts: Dict[str, List[int]] = defaultdict(lambda: [0, 0])
    for result in results:
        if result.gold_document_id is None:
            continue
        found = any(c.document_id == result.gold_document_id for c in result.candidates)
        counts[result.world][0] += int(found)
        counts[result.world][1] += 1
    return {world: (hits, total) for world, (hits, total) in sorted(counts.items())}


def recall_at_k(
    results: Iterable[MentionCandidates], ks: Iterable[int] = (1, 4, 16, 64)
) -> Dict[int, Tuple[int, int]]:
    """``k -> (mentions with the gold among the first k candidates, mentions with a gold)``."""
    results = [r for r in results if r.gold_document_id is not None]
    hits = {}
    for k in ks:
        found = sum(r.gold_document_id in [c.document_id for c in r.candidates[:k]]
                    for r in results)
        hits[k] = (found, len(results))
    return hits
