// InScript entity prediction (paper §5.3) on $LONGENT_SHARED_DATA/inscript/{train,val}
// (default ../shared/data, set by allennlp_longent.config_defaults). 8 epochs took 16 minutes
// on two CPU cores shared with other jobs (about 70 s an epoch when the cores are free).
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript';

lib.config(
  reader=lib.inscript_reader(),
  train=data + '/train',
  validation=data + '/val',
  model=lib.model(dim=64, dropout=0.2),
  epochs=8,
  batch_size=16,
)
