// InScript entity prediction (paper §5.3) on $LONGENT_SHARED_DATA/inscript/{train,val}
// (default ../shared/data, set by allennlp_longent.config_defaults). Lower-cased words, the
// 1,000 most frequent training types kept (~1K as in §5.3), the rest UNK. Size 64, dropout 0.2
// and AdaGrad 0.1 are the best of 10 trials of scripts/search_entity_nlm.py (validation
// perplexity 57.59, entity_acc 0.642; 252 CPU s for 8 epochs); size 48 gave 61.08 and 0.627.
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript';

lib.config(
  reader=lib.inscript_reader(),
  train=data + '/train',
  validation=data + '/val',
  model=lib.model(dim=64, dropout=0.2),
  epochs=8,
  batch_size=16,
  optimizer=lib.adagrad(0.1),
  max_vocab=1000,
  validation_metric='-perplexity',
)
