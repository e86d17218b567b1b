// InScript entity prediction (paper §5.3) on $LONGENT_SHARED_DATA/inscript/{train,val}
// (default ../shared/data, set by allennlp_longent.config_defaults). Lower-cased words, the
// 1,000 most frequent training types kept (~1K as in §5.3), the rest UNK. Size 64, dropout 0.2
// and AdaGrad 0.1: the lowest validation perplexity of scripts/search_entity_nlm.py (8 epochs a
// trial). Validation perplexity still falls after 8 epochs (57.6) and flattens near 46 by the
// 28th, so this trains up to 30 epochs, stopping after 4 without a better validation
// perplexity, and keeps the best epoch (the README gives the curve).
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript';

lib.config(
  reader=lib.inscript_reader(),
  train=data + '/train',
  validation=data + '/val',
  model=lib.model(dim=64, dropout=0.2),
  epochs=30,
  batch_size=16,
  optimizer=lib.adagrad(0.1),
  max_vocab=1000,
  validation_metric='-perplexity',
  patience=4,
)
