"""Zero-shot entity linking: zeshel reader, cross-encoder and bi-encoder, metrics, predictor,
candidate generators (BM25, dense, hybrid)."""

from allennlp_longent.linking import candidates  # noqa: F401
from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader  # noqa: F401
from allennlp_longent.linking.metrics.zeshel_accuracy import ZeshelAccuracy  # noqa: F401
from allennlp_longent.linking.models.bi_encoder import BiEncoder  # noqa: F401
from allennlp_longent.linking.models.cross_encoder_ranker import CrossEncoderRanker  # noqa: F401
from allennlp_longent.linking.predictors.cross_encoder_linker import (  # noqa: F401
    CrossEncoderLinkerPredictor,
)
