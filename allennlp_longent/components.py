"""Importing this module registers every component of the plugin with AllenNLP (and the spaCy
factory): what ``--include-package allennlp_longent`` and ``.allennlp_plugins`` do. It also makes
``allennlp train`` refuse a config with a misspelled key (:mod:`allennlp_longent.config_check`)."""

from allennlp_longent import require_allennlp

require_allennlp()

from allennlp_longent import config_check, entity_nlm, entity_typing, relations  # noqa: E402, F401
from allennlp_longent.linking import candidates, spacy_component  # noqa: E402, F401
from allennlp_longent.linking.dataset_readers import zeshel  # noqa: E402, F401
from allennlp_longent.linking.metrics import zeshel_accuracy  # noqa: E402, F401
from allennlp_longent.linking.models import bi_encoder, cross_encoder_ranker  # noqa: E402, F401
from allennlp_longent.linking.predictors import cross_encoder_linker  # noqa: E402, F401
from allennlp_longent.modules import (  # noqa: E402, F401
    entity_features,
    entity_fields,
    extended_transformer,
    long_luke,
    position_extension,
)

config_check.install()
