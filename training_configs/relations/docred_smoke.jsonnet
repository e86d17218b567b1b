// CPU smoke run: tiny LUKE (LONGENT_LUKE) on Re-DocRED dev documents 0-39 (train) and 40-59
// (validation) from LONGENT_SHARED_DATA; Ign-F1 against the facts of the 40 training documents.
local luke = import '../lib/luke.libsonnet';
local dev = std.extVar('LONGENT_SHARED_DATA') + '/re-docred/dev_revised.json';
local schema = luke.repo_path(std.thisFile, 'fixtures/relations/docred_rel_info.json');

luke.docred(std.extVar('LONGENT_LUKE'), dev + '[0:40]', dev + '[40:60]', schema, max_length=512,
            ign_train_file=dev + '[0:40]', projection_dim=32, block_size=8, lr=1e-3, epochs=2,
            batch_size=4, warmup_steps=0)
