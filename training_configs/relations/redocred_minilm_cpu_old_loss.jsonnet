// Ablation of redocred_minilm_cpu.jsonnet: the earlier loss variant (ATLOP's positive term
// averaged over the pairs that have a relation only).
(import 'redocred_minilm_cpu.jsonnet') + { model+: { loss: 'atlop_positive_pairs' } }
