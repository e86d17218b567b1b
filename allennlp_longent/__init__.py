"""allennlp-longent: long-range, entity-aware models for AllenNLP.

Importing the package is cheap: it only sets the configs' variable defaults
(:mod:`allennlp_longent.config_defaults`), so that spaCy's factory entry point and the ``longent``
command line start without torch or AllenNLP. Components are registered with AllenNLP by
``--include-package allennlp_longent``, by the repository's ``.allennlp_plugins`` file, or from
Python by ``import allennlp_longent.components``.
"""

from allennlp_longent.config_defaults import apply_config_defaults

apply_config_defaults()
