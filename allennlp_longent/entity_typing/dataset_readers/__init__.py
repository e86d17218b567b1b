from allennlp_longent.entity_typing.dataset_readers.docred_typing import (  # noqa: F401
    DocredEntityTypingReader,
)
from allennlp_longent.entity_typing.dataset_readers.figer import FigerReader  # noqa: F401
from allennlp_longent.entity_typing.dataset_readers.open_entity import (  # noqa: F401
    OpenEntityReader,
)
