"""Entity typing with LUKE-style [MASK] entities: Open Entity, FIGER and DocRED-document typing."""

from allennlp_longent.entity_typing import dataset_readers, metrics, models, predictors  # noqa: F401
