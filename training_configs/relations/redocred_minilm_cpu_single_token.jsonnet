// Ablation of redocred_minilm_cpu.jsonnet: one entity token per entity over the word pieces of all
// its mentions (LUKE-style averaged position), instead of one token per mention pooled per entity.
(import 'redocred_minilm_cpu.jsonnet') + { dataset_reader+: { per_mention: false } }
