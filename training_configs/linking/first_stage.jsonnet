// The cascade's first stage on any folder of zeshel-format worlds (LONGENT_LINKING_DATA, default
// the demo worlds): mentions/train.json to fit, mentions/val.json to report on.
local linking = import '../lib/linking.libsonnet';

linking.first_stage(std.extVar('LONGENT_LINKING_DATA'))
