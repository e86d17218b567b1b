// Ablation of redocred_minilm_cpu.jsonnet: the same recipe and seed with ATLOP's localized context
// pooling (Zhou et al. 2021, §3.3) from the last layer's entity-token attention; see
// docs/relations_and_typing.md for the measured comparison.
local recipe = import 'redocred_minilm_cpu.jsonnet';

recipe + { model+: { context_pooling: true } }
