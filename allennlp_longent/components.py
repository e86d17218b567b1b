"""Importing this module registers every component of the plugin with AllenNLP
(:mod:`allennlp_longent.registered`) and the spaCy factories: what ``--include-package
allennlp_longent`` and ``.allennlp_plugins`` do. It also makes ``allennlp train`` refuse a config
with a misspelled key (:mod:`allennlp_longent.config_check`)."""

from allennlp_longent import config_check, registered  # noqa: F401
from allennlp_longent.linking import mentions, spacy_component  # noqa: F401

config_check.install()
