from allennlp_longent.entity_typing.predictors.entity_typing_predictor import (  # noqa: F401
    EntityTypingPredictor,
)
