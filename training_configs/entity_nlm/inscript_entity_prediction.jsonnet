// InScript entity prediction (paper §5.3) on $LONGENT_SHARED_DATA/inscript/{train,val}
// (default ../shared/data, set by allennlp_longent.config_defaults). Lower-cased words, the
// 1,000 most frequent training types kept (~1K as in §5.3), the rest UNK. The sizes, dropout
// and optimizer are the best of scripts/search_entity_nlm.py (selected on validation perplexity).
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript';

lib.config(
  reader=lib.inscript_reader(),
  train=data + '/train',
  validation=data + '/val',
  model=lib.model(dim=64, dropout=0.2),
  epochs=5,
  batch_size=16,
  optimizer=lib.adam(0.001),
  max_vocab=1000,
  validation_metric='-perplexity',
)
