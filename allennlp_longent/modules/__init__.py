"""Building blocks shared by the tasks: position extension, embedders, attention."""

from allennlp_longent.modules import position_extension  # noqa: F401
