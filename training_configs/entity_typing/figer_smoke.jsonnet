// CPU smoke run: tiny LUKE (LONGENT_LUKE) on the hand-written FIGER fixture of this repository.
local luke = import '../lib/luke.libsonnet';
local sample = luke.repo_path(std.thisFile, 'fixtures/entity_typing/figer_sample.json');

luke.typing(std.extVar('LONGENT_LUKE'), 'figer', sample, sample, lr=1e-3, epochs=2, batch_size=4,
            warmup_steps=0)
