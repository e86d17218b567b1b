"""Candidate generators: propose entity documents for a mention before a model ranks them."""

from allennlp_longent.linking.candidates.bm25 import BM25CandidateGenerator  # noqa: F401
from allennlp_longent.linking.candidates.dense import DenseCandidateGenerator  # noqa: F401
from allennlp_longent.linking.candidates.generator import (  # noqa: F401
    Candidate,
    CandidateGenerator,
    MentionQuery,
)
from allennlp_longent.linking.candidates.hybrid import HybridCandidateGenerator  # noqa: F401
