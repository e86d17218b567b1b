from allennlp_longent.relations.predictors.relation_predictor import (  # noqa: F401
    RelationExtractionPredictor,
)
