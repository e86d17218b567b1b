// A candidate re-ranker for the main job, trained on extra generated worlds instead of the five
// demo training worlds (docs/linking.md, "Training the cross-encoder"): first
//   python scripts/demo_data/make_zeshel_demo.py --extra-worlds 14 --out "$LONGENT_DEMO_EXTRA"
// (1,680 mentions in 14 worlds with varied templates, distractor facts and their BM25
// candidates), then `allennlp train` this config: 3 of MiniLM's 6 layers at 1024 positions
// (E_repeat), gold + 3 hard negatives in 192 pieces with shared-trigram flags as type ids, mean
// pooling, no dropout, one pass at the learning curve's constant rate; validation on
// frost_fjords with the first stage's 4 candidates (LONGENT_DEMO_CANDIDATES). The curve's model
// after 1,600 mentions got 39/64 on validation and 71/120 alone on lantern_isles; this exact
// config was not run (about 1,000 CPU s of training: ~8-10 minutes on two free cores).
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.extra_worlds_linker(
  std.extVar('LONGENT_DEMO_MODEL'),
  std.extVar('LONGENT_DEMO_EXTRA'),
  std.extVar('LONGENT_DEMO_CANDIDATES'),
  layers=3,
  epochs=1,
  scheduler={ type: 'constant_with_warmup', num_warmup_steps: 10 },
)
