// LUKE / Long-LUKE entity typing and relation extraction (Yamada et al. 2020; Malaquias 2023).
// Each `*(...)` returns a whole experiment; experiments override only what they change.
// Paths come from the caller; experiments read them with std.extVar: LONGENT_LUKE = a LUKE
// checkpoint dir (e.g. one written by scripts/make_tiny_luke.py), LONGENT_SHARED_DATA = the
// shared data (default ../shared/data from allennlp_longent.config_defaults).
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

local trainer(lr, epochs, warmup_steps, accumulation) = {
  optimizer: {
    type: 'huggingface_adamw',
    lr: lr,
    weight_decay: 0.01,
    parameter_groups: [[['bias', 'LayerNorm\\.weight'], { weight_decay: 0.0 }]],
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

  // Multi-label typing of [MASK] entities (Open Entity, FIGER, DocRED documents).
  typing(model, reader_type, train, validation, max_length=512, reader_extra={},
         features={ type: 'entity_token' }, lr=1e-5, epochs=3, batch_size=4, warmup_steps=100,
         accumulation=1, attention_window=512):: experiment(
    reader(reader_type, model, max_length, reader_extra), train, validation,
    {
      type: 'luke_entity_typing',
      embedder: embedder(model, max_length, 2, attention_window),
      feature_extractor: features,
    },
    batch_size, trainer(lr, epochs, warmup_steps, accumulation),
  ),

  // Sentence-level relation classification, head [MASK] / tail [MASK2] (TACRED).
  relation(model, train, validation, max_length=512, reader_extra={},
           features={ type: 'entity_token' }, lr=1e-5, epochs=5, batch_size=32,
           warmup_steps=500, accumulation=1):: experiment(
    reader('tacred', model, max_length, reader_extra), train, validation,
    {
      type: 'luke_relation_classifier',
      embedder: embedder(model, max_length, 3, 512),
      feature_extractor: features,
    },
    batch_size, trainer(lr, epochs, warmup_steps, accumulation),
  ),

  // Document-level relation extraction over all entity pairs with ATLOP's loss (DocRED).
  docred(model, train, validation, max_length=1024, reader_extra={}, ign_train_file=null,
         ign_train_documents=null, features={ type: 'concat', extractors: [
           { type: 'entity_token' }, { type: 'mention_pool' },
         ] }, projection_dim=256, lr=3e-5, epochs=30, batch_size=4, warmup_steps=300,
         accumulation=1, attention_window=512):: experiment(
    reader('docred', model, max_length, reader_extra), train, validation,
    {
      type: 'luke_docred',
      embedder: embedder(model, max_length, 2, attention_window),
      feature_extractor: features,
      projection_dim: projection_dim,
      ign_train_file: ign_train_file,
      ign_train_documents: ign_train_documents,
    },
    batch_size, trainer(lr, epochs, warmup_steps, accumulation),
  ),
}
