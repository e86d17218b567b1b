// The README's main job: MiniLM already extended to 1024 positions (E_repeat) by
// `longent extend-positions`, trained on the bundled demo worlds in fixtures/zeshel_demo with
// BM25 candidates written by `longent bm25-candidates`. Train worlds: amber_coast, reed_rivers,
// sky_isles, salt_wastes, iron_hills; validation: frost_fjords; test: lantern_isles (zero-shot:
// unseen worlds; scripts/make_zeshel_demo.py writes them).
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.linker(
  std.extVar('LONGENT_DEMO_MODEL'),
  'fixtures/zeshel_demo',
  max_length=1024,
  top_k=4,
  epochs=4,
  lr=1e-4,
  batch_size=4,
  gradient_accumulation=1,
  candidate_chunk_size=24,
  gradient_checkpointing=false,
  candidates_dir=std.extVar('LONGENT_DEMO_CANDIDATES'),
) + {
  // all-MiniLM-L6-v2 was trained as a sentence encoder through mean pooling, so the pair vector
  // is the mean over word pieces here rather than the [CLS] vector.
  model+: { pooler: { type: 'bag_of_embeddings', embedding_dim: 384, averaged: true } },
  validation_data_loader+: { batch_size: 8 },
  trainer+: { learning_rate_scheduler+: { warmup_steps: 2 } },
}
