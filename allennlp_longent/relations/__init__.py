"""Relation classification (TACRED) and document-level relation extraction (DocRED) with LUKE."""

from allennlp_longent.relations import dataset_readers, metrics, models, predictors  # noqa: F401
