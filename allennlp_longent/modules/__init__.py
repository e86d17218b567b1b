"""Building blocks shared by the tasks: position extension, embedders, attention."""

from allennlp_longent.modules import position_extension  # noqa: F401
from allennlp_longent.modules import extended_transformer  # noqa: F401
from allennlp_longent.modules import long_luke  # noqa: F401
