// CPU smoke run: tiny LUKE (scripts/make_tiny_luke.py -> LONGENT_LUKE) on the 2 real Open Entity
// records in LONGENT_SHARED_DATA/formats (train = validation). Seconds on 2 cores.
local luke = import '../lib/luke.libsonnet';
local sample = std.extVar('LONGENT_SHARED_DATA') + '/formats/open_entity_sample.json';

luke.typing(std.extVar('LONGENT_LUKE'), 'open_entity', sample, sample,
            lr=1e-3, epochs=2, batch_size=2, warmup_steps=0)
