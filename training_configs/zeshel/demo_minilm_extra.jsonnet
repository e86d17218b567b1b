// The main job's re-ranker (scripts/main_job.sh, step 3; docs/linking.md, "Training the
// cross-encoder"): trained on generated worlds instead of the five demo training worlds. First
//   python scripts/demo_data/make_zeshel_demo.py --extra-worlds 6 --out "$LONGENT_DEMO_EXTRA"
// (720 mentions in 6 worlds with varied templates, distractor facts and their BM25
// candidates; the seven demo worlds are untouched) and the fitted first stage's candidates of
// those worlds (the negatives it will re-rank; own page kept where the first stage keeps it):
//   longent first-stage-candidates FIRST_STAGE/model.tar.gz "$LONGENT_DEMO_EXTRA" --splits train \
//     --output-dir "$LONGENT_DEMO_EXTRA/first_stage_candidates"
// and real prose appended to the same folder (round 13): the first 225 Re-DocRED dev documents as
// worlds, plain and with every candidate renamed to the gold's name (505 mentions each; 12 worlds
// and 450 documents until round 42, which halved them to keep the main job within 20 minutes):
//   python scripts/demo_data/docred_linking_worlds.py RE_DOCRED.json "$LONGENT_DEMO_EXTRA" \
//     --docs 0 225 --candidates 4 [--shared-name]
// then `allennlp train` this config: 3 of
// MiniLM's 6 layers at 1024 positions (E_repeat), gold + 3 hard negatives in 192 pieces with
// shared-trigram flags as type ids, mean pooling, no dropout, one pass at a constant encoder
// learning rate of 1.5e-4 (scoring layer and type embedding 2e-3) after 10 warm-up batches;
// validation on frost_fjords ranks the first stage's 4 candidates (LONGENT_DEMO_CANDIDATES)
// read whole at up to 1024 pieces. The warm-up is counted in batches (`polynomial_decay` with
// power 0): transformers' `constant_with_warmup`, which AllenNLP steps once per epoch, kept a
// one-epoch run at learning rate 0.
// LONGENT_NAME_FEATURES (default true, round 15): the ranker's wide part, two learned weights on
// the mention/title overlap beside the deep score; without it, whether one pass learned to read
// names at all was a draw of the batch order (docs/linking.md, "A wide part for names").
// LONGENT_GROUP_TWINS (default false): the "grouped" batch sampler, tried and not adopted.
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.extra_worlds_linker(
  std.extVar('LONGENT_DEMO_MODEL'),
  std.extVar('LONGENT_DEMO_EXTRA'),
  std.extVar('LONGENT_DEMO_CANDIDATES'),
  layers=3,
  epochs=1,
  lr=1.5e-4,
  scheduler={ type: 'polynomial_decay', power: 0.0, warmup_steps: 10 },
  train_candidates='first_stage_candidates',
  // Pairs read at 256 pieces, the shortest length that cuts no deciding fact: trained at 192,
  // the model reads longer pairs badly (validation, 404 mentions: 345 right at 256, 300 at 1024).
  read_length=256,
  group_twins=std.parseJson(std.extVar('LONGENT_GROUP_TWINS')),
  name_features=std.parseJson(std.extVar('LONGENT_NAME_FEATURES')),
)
