// CPU smoke run of CoNLL-2012 language modelling on the one-document sample (train = validation)
// under $LONGENT_SHARED_DATA (default ../shared/data, relative to the repo root).
local lib = import '../lib/entity_nlm.libsonnet';
local sample = std.extVar('LONGENT_SHARED_DATA') + '/conll2012/coref.gold_conll';

lib.config(
  reader=lib.conll_reader(),
  train=sample,
  validation=sample,
  model=lib.model(dim=8, dropout=0.0, truncation_length=16, importance_samples=2),
  epochs=1,
  batch_size=2,
  min_count=1,
  validation_metric='-perplexity',
)
