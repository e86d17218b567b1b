"""Hybrid retrieval by reciprocal-rank fusion (Cormack, Clarke & Büttcher 2009):
score(d) = Σ_g 1 / (k0 + rank_g(d)) over the generators g that rank d within their top ``depth``."""

from pathlib import Path
from typing import Dict, List, Optional, Sequence

from allennlp_longent.linking.candidates.generator import (
    Candidate,
    CandidateGenerator,
    Document,
    Query,
)


@CandidateGenerator.register("hybrid")
class HybridCandidateGenerator(CandidateGenerator):
    """Fuses the rankings of ``generators`` (e.g. ``bm25`` and ``dense``) over the same documents.

    Each part keeps its own index (saved in ``part<i>/``); ties go to the earlier indexed document.
    """

    def __init__(self, generators: Optional[List[CandidateGenerator]] = None, k0: int = 60,
                 depth: int = 64) -> None:
        if depth < 1 or k0 < 0:
            raise ValueError(f"need depth >= 1 and k0 >= 0: {depth}, {k0}")
        self.generators = list(generators) if generators is not None else []
        self.k0 = k0
        self.depth = depth

    def config(self) -> dict:
        return {"type": "hybrid", "k0": self.k0, "depth": self.depth}

    def document_ids(self) -> List[str]:
        return self.generators[0].document_ids() if self.generators else []

    def index(self, document_ids: Sequence[str], texts: Sequence[str]) -> None:
        for generator in self.generators:
            generator.index(document_ids, texts)

    def index_documents(self, documents: Sequence[Document]) -> None:
        for generator in self.generators:
            generator.index_documents(documents)

    def add_documents(self, new: Sequence[Document], all_documents: Sequence[Document]) -> None:
        for generator in self.generators:
            generator.add_documents(new, all_documents)

    def retrieve(self, queries: Sequence[Query], k: int) -> List[List[Candidate]]:
        if k < 1:
            raise ValueError(f"k must be positive, got {k}")
        rankings = [g.retrieve(queries, max(k, self.depth)) for g in self.generators]
        position = {doc_id: i for i, doc_id in enumerate(self.document_ids())}
        results = []
        for per_query in zip(*rankings):
            fused: Dict[str, float] = {}
            for ranking in per_query:
                for rank, candidate in enumerate(ranking, start=1):
                    fused[candidate.document_id] = (
                        fused.get(candidate.document_id, 0.0) + 1.0 / (self.k0 + rank)
                    )
            order = sorted(fused, key=lambda doc_id: (-fused[doc_id], position[doc_id]))[:k]
            results.append([Candidate(doc_id, fused[doc_id]) for doc_id in order])
        return results if self.generators else [[] for _ in queries]

    def _save_index(self, directory: Path) -> None:
        for i, generator in enumerate(self.generators):
            generator.save(directory / f"part{i}")

    def _load_index(self, directory: Path) -> None:
        parts = sorted(directory.glob("part*"), key=lambda p: int(p.name[4:]))
        if not parts:
            raise FileNotFoundError(f"hybrid index in {directory} has no part<i>/ folders")
        self.generators = [CandidateGenerator.load(part) for part in parts]
        ids = [g.document_ids() for g in self.generators]
        if any(other != ids[0] for other in ids):
            raise ValueError(f"{directory}: the parts index different documents")
