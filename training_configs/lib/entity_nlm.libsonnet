// EntityNLM (Ji et al. 2017) building blocks: readers, model and a full training config.
// Experiments in training_configs/entity_nlm/ call `config(...)` with their own sizes and paths.
{
  inscript_reader(max_instances=null):: {
    type: 'entity_nlm_inscript',
    lowercase: true,
    singletons: true,
    [if max_instances != null then 'max_instances']: max_instances,
  },

  // Long outermost mentions exist in OntoNotes; 'drop' skips them with a logged count.
  conll_reader(max_instances=null, long_mentions='drop'):: {
    type: 'entity_nlm_conll',
    lowercase: true,
    long_mentions: long_mentions,
    [if max_instances != null then 'max_instances']: max_instances,
  },

  model(dim=64, dropout=0.2, truncation_length=null, importance_samples=0):: {
    type: 'entity_nlm',
    embedding_dim: dim,
    hidden_dim: dim,
    dropout: dropout,
    max_mention_length: 25,
    new_entity_noise: 0.01,
    num_importance_samples: importance_samples,
    [if truncation_length != null then 'truncation_length']: truncation_length,
  },

  config(reader, train, validation, model, epochs, batch_size=16, lr=0.003, min_count=2,
         max_vocab=null, validation_metric='+entity_acc', patience=null):: {
    dataset_reader: reader,
    train_data_path: train,
    validation_data_path: validation,
    vocabulary: {
      min_count: { tokens: min_count },
      [if max_vocab != null then 'max_vocab_size']: { tokens: max_vocab },
    },
    model: model,
    data_loader: {
      batch_sampler: { type: 'bucket', batch_size: batch_size, sorting_keys: ['tokens'] },
    },
    trainer: {
      optimizer: { type: 'adam', lr: lr },
      num_epochs: epochs,
      grad_norm: 5.0,
      validation_metric: validation_metric,
      cuda_device: -1,
      [if patience != null then 'patience']: patience,
    },
  },
}
