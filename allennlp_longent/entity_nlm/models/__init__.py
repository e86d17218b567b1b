from allennlp_longent.entity_nlm.models.entity_nlm import EntityNLM  # noqa: F401
from allennlp_longent.entity_nlm.models.shallow_baseline import ShallowEntityBaseline  # noqa: F401
