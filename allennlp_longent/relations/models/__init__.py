from allennlp_longent.relations.models.docred_model import LukeDocred  # noqa: F401
from allennlp_longent.relations.models.relation_classifier import (  # noqa: F401
    LukeRelationClassifier,
)
