// Document-level entity typing on Re-DocRED (Tan et al. 2022): all entities of a document at
// once, up to 1024 word pieces with Long-LUKE, one entity token per mention pooled per entity.
// LONGENT_REDOCRED: train_revised.json, dev_revised.json.
local luke = import '../lib/luke.libsonnet';
local data = std.extVar('LONGENT_REDOCRED');

luke.typing(std.extVar('LONGENT_LUKE'), 'docred_entity_typing', data + '/train_revised.json',
            data + '/dev_revised.json', max_length=1024, lr=2e-5, epochs=5, batch_size=4,
            per_mention=true)
