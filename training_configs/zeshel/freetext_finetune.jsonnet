// Fine-tunes a trained cross-encoder re-ranker on hand-written prose: free-text sets turned into
// zeshel worlds, each span with the first stage's 4 candidates (the lists the cascade re-ranks),
// several sets to one folder:
//   python scripts/demo_data/freetext_to_zeshel.py fixtures/freetext/dev fixtures/freetext/dev2 \
//     ... "$LONGENT_FT_TRAIN" --model CASCADE.tar.gz --split train
//   python scripts/demo_data/freetext_to_zeshel.py fixtures/freetext/dev40 ... "$LONGENT_FT_VAL" \
//     --model CASCADE.tar.gz --split validation
// The model starts from LONGENT_CE_ARCHIVE (the main job's cross_encoder/model.tar.gz) with the
// readers of demo_minilm_extra.jsonnet (192 pieces in training, 256 when reading), a constant
// rate LONGENT_FT_LR after 5 warm-up batches, LONGENT_FT_EPOCHS passes; the archived epoch is the
// best on the validation set. For a learning curve, `-o '{"data_loader.batches_per_epoch": 64}'`
// makes each epoch 64 new batches of 8 spans (scripts/linking/cross_encoder_curve.py reads it).
// docs/linking.md, "In-style supervision for the re-ranker" and "A cross-encoder taught by 39
// hand-written sets (round 35)".
local zeshel = import '../lib/zeshel.libsonnet';
local train = std.extVar('LONGENT_FT_TRAIN');
local val = std.extVar('LONGENT_FT_VAL');

zeshel.extra_worlds_linker(
  std.extVar('LONGENT_DEMO_MODEL'),
  train,
  val + '/first_stage_candidates',
  layers=3,
  epochs=std.parseInt(std.extVar('LONGENT_FT_EPOCHS')),
  lr=std.parseJson(std.extVar('LONGENT_FT_LR')),
  scheduler={ type: 'polynomial_decay', power: 0.0, warmup_steps: 5 },
  train_candidates='first_stage_candidates',
  read_length=256,
) + {
  model: { type: 'from_archive', archive_file: std.extVar('LONGENT_CE_ARCHIVE') },
  validation_data_path: val + '/mentions/validation.json',
  test_data_path: null,
}
