from allennlp_longent.entity_typing.metrics.typing_metric import EntityTypingMetric  # noqa: F401
