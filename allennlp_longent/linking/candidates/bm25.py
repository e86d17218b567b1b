"""BM25 candidate generation on the ``bm25s`` library."""

import json
import logging
import re
from pathlib import Path
from typing import List, Optional, Sequence

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from allennlp_longent.linking.candidates.generator import (
    Candidate,
    CandidateGenerator,
    Query,
    as_mention_query,
)

IDS_FILE = "document_ids.json"
_WORD = re.compile(r"\w+")
_STOPWORDS = frozenset(STOPWORDS_EN)
logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import


def bm25_tokens(text: str) -> List[str]:
    """Lower-cased word characters runs, English stop words removed."""
    return [token for token in _WORD.findall(text.lower()) if token not in _STOPWORDS]


@CandidateGenerator.register("bm25")
class BM25CandidateGenerator(CandidateGenerator):
    """Okapi BM25 (Lucene variant) over lower-cased, stop-word-free word tokens."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._document_ids: List[str] = []
        self._bm25: Optional[bm25s.BM25] = None

    def config(self) -> dict:
        return {"type": "bm25", "k1": self.k1, "b": self.b}

    def document_ids(self) -> List[str]:
        return list(self._document_ids)

    def index(self, document_ids: Sequence[str], texts: Sequence[str]) -> None:
        if len(document_ids) != len(texts):
            raise ValueError(f"{len(document_ids)} document ids but {len(texts)} texts")
        self._document_ids = list(document_ids)
        self._bm25 = None
        corpus = [bm25_tokens(text) for text in texts]
        if any(corpus):  # bm25s cannot index a collection without a single token
            self._bm25 = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
            self._bm25.index(corpus, show_progress=False)

    def retrieve(self, queries: Sequence[Query], k: int) -> List[List[Candidate]]:
        """Ranks by the mention's words (a :class:`MentionQuery`'s context is not used)."""
        if k < 1:
            raise ValueError(f"k must be positive, got {k}")
        return [self._retrieve_one(as_mention_query(query).mention, k) for query in queries]

    def _retrieve_one(self, query: str, k: int) -> List[Candidate]:
        if self._bm25 is None:
            return []
        token_ids = self._bm25.get_tokens_ids(bm25_tokens(query))
        if not token_ids:
            return []
        scores = self._bm25.get_scores_from_ids(token_ids)
        return [Candidate(self._document_ids[i], float(scores[i])) for i in _top_k(scores, k)]

    def _save_index(self, directory: Path) -> None:
        ids = {"document_ids": self._document_ids, "indexed": self._bm25 is not None}
        (directory / IDS_FILE).write_text(json.dumps(ids) + "\n")
        if self._bm25 is not None:
            self._bm25.save(str(directory), show_progress=False)

    def _load_index(self, directory: Path) -> None:
        ids_path = directory / IDS_FILE
        if not ids_path.is_file():
            raise FileNotFoundError(f"BM25 index in {directory} lacks {IDS_FILE}")
        ids = json.loads(ids_path.read_text())
        self._document_ids = ids["document_ids"]
        self._bm25 = None
        if ids["indexed"]:
            self._bm25 = bm25s.BM25.load(str(directory), show_progress=False)
            indexed = int(self._bm25.scores["num_docs"])
            if indexed != len(self._document_ids):
                raise ValueError(
                    f"BM25 index in {directory} holds {indexed} documents "
                    f"but {IDS_FILE} lists {len(self._document_ids)}"
                )


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best positive scores: score descending, ties by index."""
    positive = np.flatnonzero(scores > 0)
    if len(positive) > k:
        kth_best = np.partition(scores[positive], -k)[-k]
        positive = positive[scores[positive] >= kth_best]
    order = np.lexsort((positive, -scores[positive]))
    return positive[order][:k]
