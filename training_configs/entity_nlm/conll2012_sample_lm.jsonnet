// Language modelling on the one-document CoNLL-2012 sample ($LONGENT_SHARED_DATA/conll2012,
// 4 parts, 173 tokens), trained and evaluated on the same text: it shows the model fitting a
// coreference-annotated text (perplexity, marginal perplexity), not generalisation.
local lib = import '../lib/entity_nlm.libsonnet';
local sample = std.extVar('LONGENT_SHARED_DATA') + '/conll2012/coref.gold_conll';

lib.config(
  reader=lib.conll_reader(),
  train=sample,
  validation=sample,
  model=lib.model(dim=32, dropout=0.0, truncation_length=50),
  epochs=40,
  batch_size=2,
  optimizer=lib.adam(0.01),
  min_count=1,
  validation_metric='-perplexity',
)
