// CoNLL-2012 language modelling with coreference (paper §5.1). LONGENT_CONLL2012 is a gold_conll file
// or a folder of them per split (train/, development/), e.g. the OntoNotes conversion.
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_CONLL2012');

lib.config(
  reader=lib.conll_reader(),
  train=data + '/train',
  validation=data + '/development',
  model=lib.model(dim=256, dropout=0.3, truncation_length=100, importance_samples=20),
  epochs=20,
  batch_size=8,
  max_vocab=10000,
  validation_metric='-perplexity',
  patience=3,
)
