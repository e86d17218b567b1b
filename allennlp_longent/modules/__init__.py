"""Building blocks shared by the tasks: position extension, embedders, attention."""

from allennlp_longent.modules import (
    entity_features,  # noqa: F401
    entity_fields,  # noqa: F401
    extended_transformer,  # noqa: F401
    long_luke,  # noqa: F401
    position_extension,  # noqa: F401
)
