from allennlp_longent.entity_nlm.predictors.entity_nlm import EntityNlmPredictor  # noqa: F401
