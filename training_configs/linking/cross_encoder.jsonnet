// The cascade's re-ranker on any folder of zeshel-format worlds (LONGENT_LINKING_DATA), trained
// on the candidates of the first stage (LONGENT_LINKING_CANDIDATES, written by
// `longent first-stage-candidates`): MiniLM (LONGENT_LINKING_MODEL, default the packaged
// all-MiniLM-L6-v2; an extended checkpoint from `longent extend-positions` reads longer pages),
// the gold and one hard negative per mention in 192 pieces for training, 4 candidates at up to
// 512 pieces for validation, one epoch: sized for a CPU.
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.linker(
  std.extVar('LONGENT_LINKING_MODEL'),
  std.extVar('LONGENT_LINKING_DATA'),
  max_length=512,
  top_k=4,
  epochs=1,
  lr=5e-5,
  batch_size=8,
  gradient_accumulation=1,
  gradient_checkpointing=false,
  candidates_dir=std.extVar('LONGENT_LINKING_CANDIDATES'),
) + {
  dataset_reader+: { max_length: 192, top_k: 2 },
  model+: { pooler: { type: 'bag_of_embeddings', embedding_dim: 384, averaged: true } },
  evaluate_on_test: false,
  trainer+: { learning_rate_scheduler+: { warmup_steps: 4 } },
}
