"""Importing this module registers every AllenNLP component of the plugin (readers, models,
trainers, predictors, metrics, modules): what loading an archive needs. The spaCy factory is
registered by :mod:`allennlp_longent.components`, which imports this module too."""

from allennlp_longent import require_allennlp

require_allennlp()

from allennlp_longent import entity_nlm, entity_typing, relations  # noqa: E402, F401
from allennlp_longent.linking import candidates  # noqa: E402, F401
from allennlp_longent.linking.dataset_readers import zeshel, zeshel_mentions  # noqa: E402, F401
from allennlp_longent.linking.metrics import zeshel_accuracy  # noqa: E402, F401
from allennlp_longent.linking.models import (  # noqa: E402, F401
    bi_encoder,
    cascade_linker,
    cross_encoder_ranker,
    first_stage,
)
from allennlp_longent.linking.predictors import (  # noqa: E402, F401
    cascade_linker as cascade_linker_predictor,
)
from allennlp_longent.linking.predictors import cross_encoder_linker  # noqa: E402, F401
from allennlp_longent.modules import (  # noqa: E402, F401
    entity_features,
    entity_fields,
    extended_transformer,
    grouped_batch_sampler,
    long_luke,
    position_extension,
)
