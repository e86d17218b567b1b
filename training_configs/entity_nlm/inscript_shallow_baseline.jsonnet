// The §5.3 shallow-feature baseline (a linear classifier on recency and frequency) on InScript,
// trained on $LONGENT_SHARED_DATA/inscript/train only (no validation data during training);
// measure it with `allennlp evaluate RUN/model.tar.gz $LONGENT_SHARED_DATA/inscript/val`.
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript';

lib.config(
  reader=lib.inscript_reader(),
  train=data + '/train',
  validation=null,
  model=lib.shallow_baseline(),
  epochs=10,
  batch_size=32,
  optimizer=lib.adam(0.05),
)
