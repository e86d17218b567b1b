// CPU smoke run: MiniLM (6 layers, packaged on PyPI) extended to 1024 positions with E_repeat,
// on the real zeshel subset in ../shared/data/zeshel_tiny. A few minutes on 2 cores.
// It checks that training, validation, test and archiving run; it measures nothing: every split
// file of zeshel_tiny holds the same 4 mentions, so validation and test re-read the training
// mentions and their accuracy is training accuracy. Different mentions need the full data set
// (the paper configs beside this one) or the demo worlds (demo_minilm).
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.linker(
  std.extVar('LONGENT_MINILM'),
  std.extVar('LONGENT_ZESHEL'),
  max_length=1024,
  top_k=5,
  epochs=1,
  lr=5e-5,
  batch_size=2,
  gradient_accumulation=1,
  candidate_chunk_size=5,
  gradient_checkpointing=false,
) + {
  trainer+: { learning_rate_scheduler+: { warmup_steps: 1 } },
}
