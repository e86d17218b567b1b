"""Relation classification (TACRED) and document-level relation extraction (DocRED) with LUKE."""

from allennlp_longent.relations import (  # noqa: F401
    dataset_readers,
    metrics,
    models,
    predictors,
    threshold_calibration,
)
