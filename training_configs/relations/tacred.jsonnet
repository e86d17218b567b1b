// TACRED (Zhang et al. 2017) with LUKE's recipe (Yamada et al. 2020, §4.3): head [MASK], tail
// [MASK2], lr 1e-5, batch 32, 5 epochs. LONGENT_TACRED: train.json and dev.json.
local luke = import '../lib/luke.libsonnet';
local data = std.extVar('LONGENT_TACRED');

luke.relation(std.extVar('LONGENT_LUKE'), data + '/train.json', data + '/dev.json')
