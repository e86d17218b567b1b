"""allennlp-longent: long-range, entity-aware models for AllenNLP.

Importing the package (``--include-package allennlp_longent``) registers every component.
"""

from allennlp_longent.config_defaults import apply_config_defaults

apply_config_defaults()

from allennlp_longent import (  # noqa: E402
    entity_nlm,  # noqa: F401
    entity_typing,  # noqa: F401
    linking,  # noqa: F401
    modules,  # noqa: F401
    relations,  # noqa: F401
)
