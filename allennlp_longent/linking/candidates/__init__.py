"""Candidate generators: propose entity documents for a mention before a model ranks them."""

from allennlp_longent.linking.candidates.bm25 import BM25CandidateGenerator  # noqa: F401
from allennlp_longent.linking.candidates.generator import Candidate, CandidateGenerator  # noqa: F401
