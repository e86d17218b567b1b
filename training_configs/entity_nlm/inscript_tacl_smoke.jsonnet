// CPU smoke run of InScript entity prediction: a few stories, a tiny model, one epoch.
// Data under $LONGENT_SHARED_DATA (default ../shared/data, relative to the repo root).
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript_tacl';

lib.config(
  reader=lib.inscript_tacl_reader(max_instances=8),
  validation_reader=lib.inscript_tacl_reader(targets_file=data + '/dev_targets.json',
                                             max_instances=8),
  train=data + '/train',
  validation=data + '/dev',
  model=lib.model(dim=8, dropout=0.0, truncation_length=50, importance_samples=2,
                  shallow_baseline=true),
  epochs=1,
  batch_size=4,
  min_count=1,
  validation_metric='-perplexity',
)
