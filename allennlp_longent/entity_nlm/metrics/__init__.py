from allennlp_longent.entity_nlm.metrics.entity_prediction import (  # noqa: F401
    EntityPredictionAccuracy,
)
from allennlp_longent.entity_nlm.metrics.perplexity import TokenPerplexity  # noqa: F401
