"""Importing this module registers every component of the plugin with AllenNLP
(:mod:`allennlp_longent.registered`) and the spaCy factory: what ``--include-package
allennlp_longent`` and ``.allennlp_plugins`` do."""

from allennlp_longent import registered  # noqa: F401
from allennlp_longent.linking import spacy_component  # noqa: F401
