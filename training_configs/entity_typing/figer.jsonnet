// FIGER (Ling & Weld 2012) in the JSON-lines layout; LONGENT_FIGER: train.json and dev.json.
local luke = import '../lib/luke.libsonnet';
local data = std.extVar('LONGENT_FIGER');

luke.typing(std.extVar('LONGENT_LUKE'), 'figer', data + '/train.json', data + '/dev.json',
            lr=2e-5, epochs=2, batch_size=32)
