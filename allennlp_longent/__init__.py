"""allennlp-longent: long-range, entity-aware models for AllenNLP.

Importing the package (``--include-package allennlp_longent``) registers every component.
"""

from allennlp_longent import modules  # noqa: F401
from allennlp_longent import linking  # noqa: F401
from allennlp_longent import entity_typing  # noqa: F401
from allennlp_longent import relations  # noqa: F401
from allennlp_longent import entity_nlm  # noqa: F401
