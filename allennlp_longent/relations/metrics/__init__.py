from allennlp_longent.relations.metrics.docred_f1 import DocredF1  # noqa: F401
from allennlp_longent.relations.metrics.relation_f1 import RelationMicroF1  # noqa: F401
