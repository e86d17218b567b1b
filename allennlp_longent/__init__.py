"""allennlp-longent: long-range, entity-aware models for AllenNLP.

Importing the package is cheap: it only sets the configs' variable defaults
(:mod:`allennlp_longent.config_defaults`), so that spaCy's factory entry point and the ``longent``
command line start without torch or AllenNLP. Components are registered with AllenNLP by
``--include-package allennlp_longent``, by the repository's ``.allennlp_plugins`` file, or from
Python by ``import allennlp_longent.components``.
"""

from allennlp_longent.config_defaults import apply_config_defaults

apply_config_defaults()

ALLENNLP_INSTALL = "pip install --no-deps allennlp==2.10.1"


def require_allennlp() -> None:
    """Raises an ``ImportError`` that prints the install command when AllenNLP is missing."""
    import importlib.util

    if importlib.util.find_spec("allennlp") is None:
        raise ImportError(
            "allennlp-longent needs AllenNLP 2.10.1, which `pip install allennlp-longent` "
            "cannot install for you (its metadata pins torch<1.13, which does not exist for "
            f"Python 3.11). Install it without its pins:\n    {ALLENNLP_INSTALL}"
        )
