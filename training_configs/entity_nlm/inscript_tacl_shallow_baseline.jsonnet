// The §5.3 shallow-feature baseline alone (a linear classifier on the recency and frequency of
// each candidate entity), trained on $LONGENT_SHARED_DATA/inscript_tacl/train only, at every
// mention start (no validation data during training). Measure it on the dev targets with
// `allennlp evaluate RUN/model.tar.gz $LONGENT_SHARED_DATA/inscript_tacl/dev --overrides
// '{"dataset_reader.targets_file": "<data>/dev_targets.json"}'`.
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript_tacl';

lib.config(
  reader=lib.inscript_tacl_reader(),
  train=data + '/train',
  validation=null,
  model=lib.shallow_baseline(),
  epochs=10,
  batch_size=32,
  optimizer=lib.adam(0.05),
)
