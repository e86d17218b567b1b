from allennlp_longent.entity_nlm.models.entity_nlm import EntityNLM  # noqa: F401
