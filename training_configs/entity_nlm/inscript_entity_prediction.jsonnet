// InScript entity prediction (paper §5.3) on $LONGENT_SHARED_DATA/inscript/{train,val}
// (default ../shared/data, set by allennlp_longent.config_defaults). Lower-cased words, the
// 1,000 most frequent training types kept (~1K as in §5.3), the rest UNK. Size 48, dropout 0.2
// and AdaGrad 0.1 are the best trial of scripts/search_entity_nlm.py (validation perplexity);
// 3 epochs is what that trial ran within the search's time limit.
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript';

lib.config(
  reader=lib.inscript_reader(),
  train=data + '/train',
  validation=data + '/val',
  model=lib.model(dim=48, dropout=0.2),
  epochs=3,
  batch_size=16,
  optimizer=lib.adagrad(0.1),
  max_vocab=1000,
  validation_metric='-perplexity',
)
