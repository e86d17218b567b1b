// The main job's re-ranker trained on extra generated worlds instead of the five demo training
// worlds alone (docs/linking.md, "Training the cross-encoder"): first
//   python scripts/make_zeshel_demo.py --extra-worlds 12 --out "$LONGENT_DEMO_EXTRA"
// (1,440 mentions in 12 worlds with varied templates, distractor facts and their BM25
// candidates), then `allennlp train` this config: 3 of MiniLM's 6 layers at 1024 positions
// (E_repeat), gold + 3 hard negatives in 192 pieces with shared-trigram flags as type ids, no
// dropout, one pass with a linear decay; validation on frost_fjords with the first stage's 4
// candidates (LONGENT_DEMO_CANDIDATES).
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.extra_worlds_linker(
  std.extVar('LONGENT_DEMO_MODEL'),
  std.extVar('LONGENT_DEMO_EXTRA'),
  std.extVar('LONGENT_DEMO_CANDIDATES'),
  layers=3,
  epochs=1,
)
