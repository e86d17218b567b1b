// CPU smoke run: tiny LUKE (LONGENT_LUKE) on the 3 real TACRED records in LONGENT_SHARED_DATA/formats.
local luke = import '../lib/luke.libsonnet';
local sample = std.extVar('LONGENT_SHARED_DATA') + '/formats/tacred_sample.json';

luke.relation(std.extVar('LONGENT_LUKE'), sample, sample, lr=1e-3, epochs=2, batch_size=3,
              warmup_steps=0)
