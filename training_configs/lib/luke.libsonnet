// LUKE / Long-LUKE entity typing and relation extraction (Yamada et al. 2020; Malaquias 2023).
// Each `*(...)` returns a whole experiment; experiments override only what they change.
// Paths come from the caller; experiments read them with std.extVar: LONGENT_LUKE = a LUKE
// checkpoint dir (e.g. one written by scripts/make_tiny_luke.py), LONGENT_MINILM = the packaged
// MiniLM, LONGENT_SHARED_DATA = the shared data (defaults in allennlp_longent.config_defaults).
// A data path may end in [START:STOP] to read a slice of its records (`allennlp evaluate` on a
// plain path then reads all of it). The attention window is 256, the Long-LUKE thesis's.
// `per_mention`: one entity token per mention, pooled per entity by log-sum-exp (ATLOP).
local reader(type, model, max_length, extra) = {
  type: type,
  transformer_model_name: model,
  max_length: max_length,
} + extra;

local embedder(model, max_length, num_task_entities, attention_window) = {
  type: 'long_luke',
  model_name: model,
  output: 'both',
  num_task_entities: num_task_entities,
  attention_window: attention_window,
  [if max_length > 512 then 'max_length']: max_length,
};

// `encoder_lr`: a learning rate for the encoder (`embedder.`) apart from the task head's `lr`.
local no_decay = ['bias', 'LayerNorm\\.weight'];
local trainer(lr, epochs, warmup_steps, accumulation, encoder_lr=null) = {
  optimizer: {
    type: 'huggingface_adamw',
    lr: lr,
    weight_decay: 0.01,
    // A parameter must match one group only, hence the lookaheads.
    parameter_groups: if encoder_lr == null then [[no_decay, { weight_decay: 0.0 }]] else [
      [['^embedder\\..*(bias|LayerNorm\\.weight)$'], { lr: encoder_lr, weight_decay: 0.0 }],
      [['^embedder\\.(?!.*(bias|LayerNorm\\.weight)$)'], { lr: encoder_lr }],
      [['^(?!embedder\\.).*(bias|LayerNorm\\.weight)$'], { weight_decay: 0.0 }],
    ],
  },
  learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: warmup_steps },
  num_epochs: epochs,
  grad_norm: 1.0,
  num_gradient_accumulation_steps: accumulation,
  validation_metric: '+f1',
  cuda_device: -1,
};

local experiment(reader, train, validation, model, batch_size, trainer) = {
  dataset_reader: reader,
  train_data_path: train,
  validation_data_path: validation,
  model: model,
  data_loader: { batch_size: batch_size, shuffle: true },
  validation_data_loader: { batch_size: batch_size, shuffle: false },
  trainer: trainer,
  // the converted LUKE config and tokenizer, so the archive loads without the checkpoint
  include_in_archive: ['transformers'],
};

{
  // A path inside this repository, for a config at training_configs/<task>/<file>.
  repo_path(config_file, path)::
    local parts = std.split(config_file, '/');
    local dir = if std.length(parts) > 1 then std.join('/', parts[:std.length(parts) - 1]) else '.';
    dir + '/../../' + path,

  reader:: reader,
  embedder:: embedder,
  trainer:: trainer,

  // Training batches of similar length, so little padding is computed (CPU recipes).
  bucketed(batch_size):: {
    data_loader: { batch_sampler: { type: 'bucket', batch_size: batch_size, sorting_keys: ['tokens'] } },
  },

  // Multi-label typing of [MASK] entities (Open Entity, FIGER, DocRED documents).
  typing(model, reader_type, train, validation, max_length=512, reader_extra={},
         features={ type: 'entity_token' }, lr=1e-5, epochs=3, batch_size=4, warmup_steps=100,
         accumulation=1, attention_window=256, per_mention=false, encoder_lr=null):: experiment(
    reader(reader_type, model, max_length, { per_mention: per_mention } + reader_extra), train,
    validation,
    {
      type: 'luke_entity_typing',
      embedder: embedder(model, max_length, 2, attention_window),
      feature_extractor: features,
    },
    batch_size, trainer(lr, epochs, warmup_steps, accumulation, encoder_lr),
  ),

  // Sentence-level relation classification, head [MASK] / tail [MASK2] (TACRED).
  relation(model, train, validation, max_length=512, reader_extra={},
           features={ type: 'entity_token' }, lr=1e-5, epochs=5, batch_size=32,
           warmup_steps=500, accumulation=1):: experiment(
    reader('tacred', model, max_length, reader_extra), train, validation,
    {
      type: 'luke_relation_classifier',
      embedder: embedder(model, max_length, 3, 256),
      feature_extractor: features,
    },
    batch_size, trainer(lr, epochs, warmup_steps, accumulation),
  ),

  // Document-level relation extraction over all entity pairs with ATLOP's loss (DocRED). The
  // relation schema (DocRED's rel_info.json layout) fixes the label vocabulary and the labels the
  // reader accepts. `context_pooling`: ATLOP's localized context pooling from the last layer's
  // entity attention.
  docred(model, train, validation, schema, max_length=1024, reader_extra={}, ign_train_file=null,
         features={ type: 'concat', extractors: [
           { type: 'entity_token' }, { type: 'mention_pool' },
         ] }, projection_dim=256, block_size=64, context_pooling=false, loss='atlop', lr=3e-5,
         encoder_lr=null,
         epochs=30, batch_size=4, warmup_steps=300, accumulation=1, attention_window=256,
         per_mention=true):: experiment(
    reader('docred', model, max_length,
           { per_mention: per_mention, relation_schema: schema } + reader_extra),
    train, validation,
    {
      type: 'luke_docred',
      embedder: embedder(model, max_length, 2, attention_window),
      feature_extractor: features,
      projection_dim: projection_dim,
      block_size: block_size,
      context_pooling: context_pooling,
      loss: loss,
      ign_train_file: ign_train_file,
    },
    batch_size, trainer(lr, epochs, warmup_steps, accumulation, encoder_lr),
  ) + { vocabulary: { type: 'relation_schema', schema_file: schema } },
}
