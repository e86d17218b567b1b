// The learning curve of the demo's cross-encoder (scripts/linking/cross_encoder_curve.py prints it):
// `zeshel.extra_worlds_linker` (3 of MiniLM's 6 layers, 1024 positions by E_repeat, trained on
// extra generated worlds) read once in the order of a fixed shuffle at a constant learning rate
// after 10 warm-up batches (`polynomial_decay` with power 0: AllenNLP steps its per-batch
// schedulers every batch, but the wrapped transformers schedulers such as
// `constant_with_warmup` only once per epoch, which left the first "epoch" at learning rate 0
// and the next nine warming up). Each "epoch" is LONGENT_CURVE_BATCHES new batches of 8 mentions followed by
// validation on frost_fjords, so epoch e's validation is the accuracy of a model trained once on
// (e + 1) × 8 × LONGENT_CURVE_BATCHES mentions.
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.extra_worlds_linker(
  std.extVar('LONGENT_DEMO_MODEL'),
  std.extVar('LONGENT_DEMO_EXTRA'),
  std.extVar('LONGENT_DEMO_CANDIDATES'),
  layers=std.parseInt(std.extVar('LONGENT_CURVE_LAYERS')),
  epochs=std.parseInt(std.extVar('LONGENT_CURVE_EPOCHS')),
  batches_per_epoch=std.parseInt(std.extVar('LONGENT_CURVE_BATCHES')),
  scheduler={ type: 'polynomial_decay', power: 0.0, warmup_steps: 10 },
)
