// CPU smoke run: tiny LUKE (LONGENT_LUKE) typing the entities of Re-DocRED dev documents
// 0-39 (train) and 40-59 (validation) from LONGENT_SHARED_DATA. About a minute on 2 cores.
local luke = import '../lib/luke.libsonnet';
local dev = std.extVar('LONGENT_SHARED_DATA') + '/re-docred/dev_revised.json';

luke.typing(std.extVar('LONGENT_LUKE'), 'docred_entity_typing', dev + '[0:40]', dev + '[40:60]',
            lr=1e-3, epochs=2, batch_size=4, warmup_steps=0, per_mention=true)
