// The main job's re-ranker: MiniLM extended to 1024 positions (E_repeat) by
// `longent extend-positions`, trained on the five training worlds of fixtures/zeshel_demo with
// the candidates of the cascade's first stage (the context_evidence first stage: BM25 re-scored
// by context evidence); validation on frost_fjords, and the main job tests on lantern_isles, a
// world never seen in training (zero-shot).
// Sized for 2 CPU cores: training pairs are the gold and one hard negative (the first stage's
// best other candidate) in 192 word pieces, one epoch (a second one lowered validation accuracy
// from 0.476 to 0.397 at 256 pieces); validation ranks 4 candidates at up to 1024 pieces, so the
// descriptions over 512 pieces are read whole by the extended position table.
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.linker(
  std.extVar('LONGENT_DEMO_MODEL'),
  'fixtures/zeshel_demo',
  max_length=1024,
  top_k=4,
  epochs=1,
  lr=5e-5,
  batch_size=8,
  gradient_accumulation=1,
  candidate_chunk_size=16,
  gradient_checkpointing=false,
  candidates_dir=std.extVar('LONGENT_DEMO_CANDIDATES'),
) + {
  dataset_reader+: { max_length: 192, top_k: 2 },
  // all-MiniLM-L6-v2 was trained as a sentence encoder through mean pooling, so the pair vector
  // is the mean over word pieces here rather than the [CLS] vector.
  model+: { pooler: { type: 'bag_of_embeddings', embedding_dim: 384, averaged: true } },
  validation_data_loader+: { batch_size: 8 },
  evaluate_on_test: false,
  trainer+: { learning_rate_scheduler+: { warmup_steps: 4 } },
}
