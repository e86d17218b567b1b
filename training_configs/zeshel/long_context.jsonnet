// Yao et al. 2020's claim with a model trained on long pairs (docs/linking.md, "512 against
// 1024 positions"): the main job's re-ranker recipe (3 of MiniLM's 6 layers, gold + 3 BM25
// negatives, shared-trigram flags, mean pooling, constant rate after 10 warm-up batches), with
// pairs cut to LONGENT_LONG_LENGTH pieces both in training and in reading, the position table
// extended there with LONGENT_LONG_INIT (repeat, head or constant; nothing is extended at 512).
// Trained on LONGENT_LONG_DATA, written by
//   python scripts/demo_data/make_zeshel_demo.py --extra-worlds N --late-worlds M --candidates 4 --out DIR
// (plain worlds and late-fact worlds, whose facts lie some 300 pieces into each description).
// No validation: every arm trains the same fixed number of passes and is compared on unseen
// worlds by scripts/linking/long_context_train.py, which runs this config once per arm.
// LONGENT_CUDA_DEVICE (default -1, the CPU) and LONGENT_USE_AMP (default false; CUDA only).
local zeshel = import '../lib/zeshel.libsonnet';

local length = std.parseInt(std.extVar('LONGENT_LONG_LENGTH'));
local model = std.extVar('LONGENT_LONG_MODEL');

zeshel.extra_worlds_linker(
  model,
  std.extVar('LONGENT_LONG_DATA'),
  null,
  layers=std.parseInt(std.extVar('LONGENT_LONG_LAYERS')),
  train_length=length,
  epochs=std.parseInt(std.extVar('LONGENT_LONG_EPOCHS')),
  lr=1.5e-4,
  scheduler={ type: 'polynomial_decay', power: 0.0, warmup_steps: 10 },
  read_length=length,
) + {
  validation_data_path: null,
  test_data_path: null,
  model+: { text_field_embedder+: { token_embedders+: { tokens+: {
    max_length: length,
    position_init: { type: std.extVar('LONGENT_LONG_INIT') },
  } } } },
  trainer+: {
    cuda_device: std.parseInt(std.extVar('LONGENT_CUDA_DEVICE')),
    use_amp: std.parseJson(std.extVar('LONGENT_USE_AMP')),
  },
}
