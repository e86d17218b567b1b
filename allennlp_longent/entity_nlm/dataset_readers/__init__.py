from allennlp_longent.entity_nlm.dataset_readers.base import EntityNlmReader  # noqa: F401
from allennlp_longent.entity_nlm.dataset_readers.conll import EntityNlmConllReader  # noqa: F401
from allennlp_longent.entity_nlm.dataset_readers.inscript_tacl import (  # noqa: F401
    InscriptTaclReader,
)
