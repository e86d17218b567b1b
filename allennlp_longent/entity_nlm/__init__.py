"""EntityNLM (Ji et al. 2017): readers, model, metrics and predictor; importing registers them."""

from allennlp_longent.entity_nlm import dataset_readers, metrics, models, predictors  # noqa: F401
