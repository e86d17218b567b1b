from allennlp_longent.relations.dataset_readers.docred import DocredReader  # noqa: F401
from allennlp_longent.relations.dataset_readers.schema import RelationSchemaVocabulary  # noqa: F401
from allennlp_longent.relations.dataset_readers.tacred import TacredReader  # noqa: F401
