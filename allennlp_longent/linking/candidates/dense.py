"""Dense retrieval (Wu et al. 2020, §3.1): entity vectors computed once by a bi-encoder, stored
with the index, and an exact top-k by inner product computed block by block; past
``ann_threshold`` entities, an approximate top-k from a faiss HNSW graph (Malkov & Yashunin
2018) over the same vectors."""

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Sequence

import numpy as np

from allennlp_longent.linking.candidates.generator import (
    Candidate,
    CandidateGenerator,
    Document,
    Query,
    as_mention_query,
)

if TYPE_CHECKING:
    from allennlp_longent.linking.dense_encoder import DenseEncoder

logger = logging.getLogger(__name__)
IDS_FILE = "document_ids.json"
VECTORS_FILE = "vectors.npy"


@CandidateGenerator.register("dense")
class DenseCandidateGenerator(CandidateGenerator):
    """Ranks entities by the inner product of bi-encoder vectors (cosine for normalized ones).

    Parameters
    ----------
    encoder : a ``bi_encoder`` archive or a sentence-transformers checkpoint folder
        (:meth:`DenseEncoder.load`); loaded on first use.
    max_length, mention_length : word pieces per entity and per mention window (untrained
        checkpoints only; an archive's reader keeps its own).
    chunk_size : entity vectors scored per matrix product, which bounds the score matrix.
    ann_threshold : from this many entities on, search an HNSW graph (faiss-cpu) instead of
        the exact product; None: always exact. The vectors stay the saved index; the graph is
        built on the first search after loading or re-indexing, and grows with ``add_documents``.
    hnsw_m, ef_construction, ef_search : the graph's links per node and its build and search
        breadths (larger: better recall, slower).
    """

    def __init__(self, encoder: str, max_length: int = 256, mention_length: int = 16,
                 batch_size: int = 32, chunk_size: int = 65536,
                 ann_threshold: Optional[int] = None, hnsw_m: int = 32,
                 ef_construction: int = 200, ef_search: int = 128) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be positive, got {chunk_size}")
        if ann_threshold is not None and ann_threshold < 1 or min(hnsw_m, ef_construction,
                                                                    ef_search) < 1:
            raise ValueError("ann_threshold, hnsw_m, ef_construction and ef_search must be "
                             f"positive: {ann_threshold}, {hnsw_m}, {ef_construction}, {ef_search}")
        path = Path(encoder)
        self.encoder_path = str(path.resolve()) if path.exists() else encoder
        self.max_length = max_length
        self.mention_length = mention_length
        self.batch_size = batch_size
        self.chunk_size = chunk_size
        self._encoder: Optional[DenseEncoder] = None
        self._document_ids: List[str] = []
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self.ann_threshold = ann_threshold
        self.hnsw_m, self.ef_construction, self.ef_search = hnsw_m, ef_construction, ef_search
        self._graph = None  # the faiss index over self._vectors, built on demand

    def config(self) -> dict:
        return {"type": "dense", "encoder": self.encoder_path, "max_length": self.max_length,
                "mention_length": self.mention_length,
                "batch_size": self.batch_size, "chunk_size": self.chunk_size,
                "ann_threshold": self.ann_threshold, "hnsw_m": self.hnsw_m,
                "ef_construction": self.ef_construction, "ef_search": self.ef_search}

    @property
    def uses_ann(self) -> bool:
        return self.ann_threshold is not None and len(self._document_ids) >= self.ann_threshold

    @property
    def encoder(self) -> "DenseEncoder":
        if self._encoder is None:
            from allennlp_longent.linking.dense_encoder import DenseEncoder

            self._encoder = DenseEncoder.load(
                self.encoder_path, self.max_length, self.mention_length, self.batch_size
            )
        return self._encoder

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors

    def document_ids(self) -> List[str]:
        return list(self._document_ids)

    def index(self, document_ids: Sequence[str], texts: Sequence[str]) -> None:
        self.index_documents([{"document_id": i, "title": "", "text": t}
                              for i, t in zip(document_ids, texts, strict=True)])

    def index_documents(self, documents: Sequence[Document]) -> None:
        ids = [d["document_id"] for d in documents]
        self.index_vectors(ids, self.encoder.documents(documents) if documents else None)

    def add_documents(self, new: Sequence[Document], all_documents: Sequence[Document]) -> None:
        """Encodes only ``new`` when the rest of ``all_documents`` is what is indexed already."""
        kept = [d["document_id"] for d in all_documents[: len(all_documents) - len(new)]]
        if kept != self._document_ids or not self._document_ids:
            self.index_documents(all_documents)
            return
        if new:
            added = self.encoder.documents(new)
            self._vectors = np.concatenate([self._vectors, added])
            self._document_ids += [d["document_id"] for d in new]
            if self._graph is not None:
                self._graph.add(np.ascontiguousarray(added, dtype=np.float32))
        logger.info("encoded %d new entities, kept %d vectors", len(new), len(kept))

    def index_vectors(self, document_ids: Sequence[str], vectors: Optional[np.ndarray]) -> None:
        """Indexes precomputed ``(len(document_ids), dim)`` vectors."""
        if vectors is None:
            vectors = np.zeros((0, 0), dtype=np.float32)
        if len(vectors) != len(document_ids):
            raise ValueError(f"{len(document_ids)} document ids but {len(vectors)} vectors")
        self._document_ids = list(document_ids)
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._graph = None

    def retrieve(self, queries: Sequence[Query], k: int) -> List[List[Candidate]]:
        if k < 1:
            raise ValueError(f"k must be positive, got {k}")
        mentions = [as_mention_query(query) for query in queries]
        real = [i for i, query in enumerate(mentions) if query.words]
        results: List[List[Candidate]] = [[] for _ in mentions]
        if not real or not self._document_ids:
            return results
        found = self.search(self.encoder.mentions([mentions[i] for i in real]), k)
        for i, candidates in zip(real, found):
            results[i] = candidates
        return results

    def search(self, queries: np.ndarray, k: int) -> List[List[Candidate]]:
        """Top ``k`` by inner product: exact (ties by index order, ``chunk_size`` rows at a
        time), or from the HNSW graph past ``ann_threshold`` entities."""
        if self.uses_ann:
            return self.search_graph(queries, k)
        return self.search_exact(queries, k)

    def search_graph(self, queries: np.ndarray, k: int) -> List[List[Candidate]]:
        """Approximate top ``k`` from the HNSW graph (built now if it is not yet)."""
        if self._graph is None:
            self._graph = self._build_graph()
        self._graph.hnsw.efSearch = max(self.ef_search, k)
        scores, rows = self._graph.search(np.ascontiguousarray(queries, dtype=np.float32),
                                          min(k, len(self._document_ids)))
        return [[Candidate(self._document_ids[i], float(s)) for s, i in zip(found, index)
                 if i >= 0] for found, index in zip(scores, rows)]

    def _build_graph(self):
        try:
            import faiss
        except ImportError as error:
            raise ImportError(
                f"ann_threshold={self.ann_threshold} asks for an HNSW index, which needs faiss: "
                "pip install faiss-cpu (or leave ann_threshold unset for exact search)"
            ) from error
        graph = faiss.IndexHNSWFlat(self._vectors.shape[1], self.hnsw_m,
                                    faiss.METRIC_INNER_PRODUCT)
        graph.hnsw.efConstruction = self.ef_construction
        graph.add(self._vectors)
        logger.info("built an HNSW graph over %d vectors", len(self._vectors))
        return graph

    def search_exact(self, queries: np.ndarray, k: int) -> List[List[Candidate]]:
        """Exact top ``k`` by inner product, ties by index order, ``chunk_size`` rows at a time."""
        best_scores = np.full((len(queries), 0), -np.inf, dtype=np.float32)
        best_index = np.zeros((len(queries), 0), dtype=np.int64)
        for start in range(0, len(self._vectors), self.chunk_size):
            scores = queries @ self._vectors[start : start + self.chunk_size].T
            index = np.broadcast_to(np.arange(start, start + scores.shape[1]), scores.shape)
            best_scores = np.concatenate([best_scores, scores], axis=1)
            best_index = np.concatenate([best_index, index], axis=1)
            if best_scores.shape[1] > k:
                keep = np.argpartition(-best_scores, k - 1, axis=1)[:, :k]
                # argpartition may cut a tie at the k-th score arbitrarily: keep every tied row
                kth = np.take_along_axis(best_scores, keep, 1).min(1, keepdims=True)
                mask = best_scores >= kth
                width = int(mask.sum(1).max())
                order = np.argsort(~mask, axis=1, kind="stable")[:, :width]
                best_scores = np.take_along_axis(best_scores, order, 1)
                best_index = np.take_along_axis(best_index, order, 1)
                best_scores[~np.take_along_axis(mask, order, 1)] = -np.inf
        results = []
        for scores, index in zip(best_scores, best_index):
            real = np.isfinite(scores)
            order = np.lexsort((index[real], -scores[real]))[:k]
            results.append([Candidate(self._document_ids[i], float(s))
                            for i, s in zip(index[real][order], scores[real][order])])
        return results

    def _save_index(self, directory: Path) -> None:
        (directory / IDS_FILE).write_text(json.dumps(self._document_ids) + "\n")
        np.save(directory / VECTORS_FILE, self._vectors)

    def _load_index(self, directory: Path) -> None:
        for name in (IDS_FILE, VECTORS_FILE):
            if not (directory / name).is_file():
                raise FileNotFoundError(f"dense index in {directory} lacks {name}")
        ids = json.loads((directory / IDS_FILE).read_text())
        vectors = np.load(directory / VECTORS_FILE)
        if len(vectors) != len(ids):
            raise ValueError(f"{directory}: {len(vectors)} vectors for {len(ids)} document ids")
        self._document_ids, self._vectors = ids, vectors
        self._graph = None
