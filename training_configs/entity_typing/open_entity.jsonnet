// Open Entity (Choi et al. 2018) with LUKE's recipe (Yamada et al. 2020, §4.1): lr 1e-5, batch 4.
// LONGENT_OPEN_ENTITY: folder with train.json and dev.json in the ERNIE/LUKE layout.
local luke = import '../lib/luke.libsonnet';
local data = std.extVar('LONGENT_OPEN_ENTITY');

luke.typing(std.extVar('LONGENT_LUKE'), 'open_entity', data + '/train.json', data + '/dev.json')
