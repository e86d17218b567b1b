// EntityNLM (Ji et al. 2017) building blocks: readers, model, optimizers and a training config.
// Experiments in training_configs/entity_nlm/ call `config(...)` with their own sizes and paths.
{
  // InScript in the release of Modi et al. (2017); targets_file: entity prediction is counted at
  // those targets only (the validation reader of the experiments).
  inscript_tacl_reader(targets_file=null, max_instances=null):: {
    type: 'inscript_tacl',
    [if targets_file != null then 'targets_file']: targets_file,
    [if max_instances != null then 'max_instances']: max_instances,
  },

  // Long outermost mentions exist in OntoNotes; 'drop' skips them with a logged count.
  conll_reader(max_instances=null, long_mentions='drop'):: {
    type: 'entity_nlm_conll',
    lowercase: true,
    long_mentions: long_mentions,
    [if max_instances != null then 'max_instances']: max_instances,
  },

  // The two optimizers of the paper's search (§5): Adam 1e-3 and AdaGrad 0.1.
  adam(lr=0.001):: { type: 'adam', lr: lr },
  adagrad(lr=0.1):: { type: 'adagrad', lr: lr },

  // context_projection: words outside mentions read e_current through their own W_c (not eq. 6).
  // shallow_baseline: the §5.3 linear classifier trained beside the model, reported with it.
  model(dim=64, dropout=0.2, truncation_length=null, importance_samples=0,
        context_projection=false, shallow_baseline=false):: {
    type: 'entity_nlm',
    embedding_dim: dim,
    hidden_dim: dim,
    dropout: dropout,
    max_mention_length: 25,
    new_entity_noise: 0.01,
    num_importance_samples: importance_samples,
    [if context_projection then 'context_projection']: true,
    [if shallow_baseline then 'shallow_baseline']: true,
    [if truncation_length != null then 'truncation_length']: truncation_length,
  },

  // The §5.3 shallow-feature baseline (recency and frequency), trained on the train split only.
  shallow_baseline():: { type: 'entity_nlm_shallow_baseline' },

  // max_vocab caps the word types (the rest become @@UNKNOWN@@), counted on the training data.
  // validation=null trains without looking at validation data (the last epoch is kept);
  // validation_reader reads the validation data when it differs from reader (targets).
  config(reader, train, validation, model, epochs, batch_size=16, optimizer=$.adam(0.003),
         min_count=2, max_vocab=null, validation_metric='+entity_acc', patience=null,
         validation_reader=null):: {
    dataset_reader: reader,
    [if validation_reader != null then 'validation_dataset_reader']: validation_reader,
    train_data_path: train,
    [if validation != null then 'validation_data_path']: validation,
    datasets_for_vocab_creation: ['train'],
    vocabulary: {
      min_count: { tokens: min_count },
      [if max_vocab != null then 'max_vocab_size']: { tokens: max_vocab },
    },
    model: model,
    data_loader: {
      batch_sampler: { type: 'bucket', batch_size: batch_size, sorting_keys: ['tokens'] },
    },
    trainer: {
      optimizer: optimizer,
      num_epochs: epochs,
      grad_norm: 5.0,
      validation_metric: validation_metric,
      cuda_device: -1,
      [if patience != null then 'patience']: patience,
    },
  },
}
