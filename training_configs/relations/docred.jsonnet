// Re-DocRED (Tan et al. 2022) document-level RE with Long-LUKE over 1024 word pieces, ATLOP loss;
// Ign-F1 against the training file. LONGENT_REDOCRED: train_revised.json, dev_revised.json.
local luke = import '../lib/luke.libsonnet';
local data = std.extVar('LONGENT_REDOCRED');
local schema = luke.repo_path(std.thisFile, 'fixtures/relations/docred_rel_info.json');

luke.docred(std.extVar('LONGENT_LUKE'), data + '/train_revised.json', data + '/dev_revised.json',
            schema, ign_train_file=data + '/train_revised.json')
