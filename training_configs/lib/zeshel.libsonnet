// Zero-shot entity linking with a cross-encoder (Logeswaran et al. 2019; Yao et al. 2020) or a
// bi-encoder (Wu et al. 2020). `linker(...)` and `bi_encoder(...)` return whole experiments;
// experiments override only what they change.
local tokenizer(model, max_length) = {
  type: 'extended_pretrained_transformer',
  model_name: model,
  max_length: max_length,
};

local reader(model, max_length, top_k, missing_gold, candidates_dir, layout='pairs', markers=true) = {
  type: 'zeshel',
  layout: layout,
  [if !markers then 'mention_start_marker']: null,
  [if !markers then 'mention_end_marker']: null,
  [if !markers then 'title_marker']: null,
  tokenizer: tokenizer(model, max_length),
  token_indexers: {
    tokens: { type: 'extended_pretrained_transformer', model_name: model, max_length: max_length },
  },
  max_length: max_length,
  top_k: top_k,
  missing_gold: missing_gold,
  [if candidates_dir != null then 'candidates_dir']: candidates_dir,
};

{
  reader:: reader,

  linker(
    model,
    data_dir,
    max_length=512,
    position_init='repeat',
    top_k=64,
    train_split='train',
    validation_split='val',
    test_split='test',
    epochs=2,
    lr=2e-5,
    batch_size=1,
    gradient_accumulation=8,
    candidate_chunk_size=16,
    gradient_checkpointing=true,
    missing_gold='insert',
    candidates_dir=null,
  ):: {
    dataset_reader: reader(model, max_length, top_k, missing_gold, candidates_dir),
    validation_dataset_reader: reader(model, max_length, top_k, 'keep', candidates_dir),
    train_data_path: data_dir + '/mentions/' + train_split + '.json',
    validation_data_path: data_dir + '/mentions/' + validation_split + '.json',
    test_data_path: data_dir + '/mentions/' + test_split + '.json',
    evaluate_on_test: true,
    // the transformer's config and tokenizer, so the archive loads without the checkpoint
    include_in_archive: ['transformers'],
    model: {
      type: 'cross_encoder_ranker',
      text_field_embedder: {
        token_embedders: {
          tokens: {
            type: 'extended_pretrained_transformer',
            model_name: model,
            max_length: max_length,
            position_init: { type: position_init },
            gradient_checkpointing: gradient_checkpointing,
            // The ranker pools [CLS] itself: an unused BERT pooler breaks distributed (DDP) runs.
            transformer_kwargs: { add_pooling_layer: false },
          },
        },
      },
      candidate_chunk_size: candidate_chunk_size,
    },
    data_loader: { batch_size: batch_size, shuffle: true },
    validation_data_loader: { batch_size: batch_size, shuffle: false },
    trainer: {
      num_epochs: epochs,
      num_gradient_accumulation_steps: gradient_accumulation,
      validation_metric: '+normalized_acc_macro',
      optimizer: {
        type: 'huggingface_adamw',
        lr: lr,
        weight_decay: 0.01,
        parameter_groups: [[['bias', 'LayerNorm.weight'], { weight_decay: 0.0 }]],
      },
      learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 10 },
      grad_norm: 1.0,
    },
  },

  // BLINK's first stage: in-batch negatives plus the top_k - 1 retrieved hard negatives;
  // validation ranks the retrieved candidates. markers=false keeps a sentence encoder's input as
  // it was trained (no marker tokens), pooling 'auto' reads the checkpoint's 1_Pooling config.
  bi_encoder(
    model,
    data_dir,
    max_length=128,
    top_k=4,
    epochs=1,
    lr=2e-5,
    batch_size=8,
    markers=false,
    candidates_dir=null,
  ):: {
    dataset_reader: reader(model, max_length, top_k, 'insert', candidates_dir, 'separate', markers),
    validation_dataset_reader: reader(model, max_length, top_k, 'keep', candidates_dir, 'separate', markers),
    train_data_path: data_dir + '/mentions/train.json',
    validation_data_path: data_dir + '/mentions/val.json',
    model: {
      type: 'bi_encoder',
      text_field_embedder: {
        token_embedders: {
          tokens: {
            type: 'extended_pretrained_transformer',
            model_name: model,
            transformer_kwargs: { add_pooling_layer: false },
          },
        },
      },
      pooling: 'auto',
    },
    data_loader: { batch_size: batch_size, shuffle: true },
    validation_data_loader: { batch_size: batch_size, shuffle: false },
    trainer: {
      num_epochs: epochs,
      validation_metric: '+normalized_acc_macro',
      optimizer: { type: 'huggingface_adamw', lr: lr, weight_decay: 0.01 },
      grad_norm: 1.0,
    },
  },

  // The demo's cross-encoder trained on extra generated worlds (`make_zeshel_demo.py
  // --extra-worlds N --out EXTRA`, which also writes their BM25 candidates): MiniLM cut to its
  // first `layers` layers, gold + 3 hard negatives in `train_length` pieces; validation ranks
  // the demo's first-stage candidates of frost_fjords (`candidates_dir`) read whole at up to
  // 1024 positions.
  // `batches_per_epoch` (null: the whole file) makes each epoch that many new batches.
  // `train_candidates`: the folder under `extra` whose lists give the training negatives
  // (`tfidf_candidates`: BM25's, written by make_zeshel_demo.py; or the first stage's, written
  // by `longent first-stage-candidates FIRST_STAGE EXTRA --splits train --output-dir EXTRA/...`).
  // The pair vector is the mean over word pieces: without dropout the [CLS] vectors of a
  // mention's 4 candidates gave scores equal to 1e-3, so each batch's loss was ln 4. `match_ngram` turns the type ids into
  // flags of the word-piece n-grams that context and description share (reader option); the
  // scoring layer and the type embedding learn at `head_lr`. No dropout: at first the [CLS]
  // vectors of a mention's candidates differ by less than dropout's noise, and with it (and
  // lr 8e-5) the model could not even fit 4 mentions in 12 steps; without it, at 3e-4, it did.
  extra_worlds_linker(model, extra, candidates_dir, layers=3, train_length=192, epochs=1,
                      batches_per_epoch=null, lr=5e-5, head_lr=2e-3, match_ngram=3,
                      dropout=0.0, scheduler=null, train_candidates='tfidf_candidates',
                      read_length=null, group_twins=false, name_features=false)::
    local head_group = [['^_scorer\\.', 'token_type_embeddings'], { lr: head_lr, weight_decay: 0.0 }];
    // name_features: the ranker's wide part, two weights on name overlap, learn at 1e-2
    local name_group = [['^_name_scorer\\.'], { lr: 1e-2, weight_decay: 0.0 }];
    local no_decay = [['^_embedder\\..*(bias|LayerNorm\\.weight)$'], { weight_decay: 0.0 }];
    $.linker(
      model,
      'fixtures/zeshel_demo',
      max_length=1024,
      top_k=4,
      epochs=epochs,
      lr=lr,
      batch_size=8,
      gradient_accumulation=1,
      candidate_chunk_size=32,
      gradient_checkpointing=false,
      candidates_dir=candidates_dir,
    ) + {
      train_data_path: extra + '/mentions/train.json',
      dataset_reader+: {
        max_length: train_length,
        candidates_dir: extra + '/' + train_candidates,
        [if match_ngram != null then 'match_ngram']: match_ngram,
      },
      validation_dataset_reader+: {
        [if match_ngram != null then 'match_ngram']: match_ngram,
        [if read_length != null then 'max_length']: read_length,
      },
      model+: {
        dropout: dropout,
        [if name_features then 'name_features']: true,
        pooler: { type: 'bag_of_embeddings', embedding_dim: 384, averaged: true },
        text_field_embedder+: { token_embedders+: { tokens+: {
          num_layers: layers,
          transformer_kwargs+: { hidden_dropout_prob: dropout, attention_probs_dropout_prob: dropout },
        } } },
      },
      // group_twins: a Re-DocRED mention of a --shared-name world and its plain twin (same world
      // number, same words) always share a batch (the "grouped" batch sampler)
      data_loader: (if group_twins then {
        batch_sampler: { type: 'grouped', batch_size: 8, key_fields: ['world', 'mention'],
                         remove: 'shared_', only: '^docred_' },
      } else super.data_loader) + {
        [if batches_per_epoch != null then 'batches_per_epoch']: batches_per_epoch,
      },
      validation_data_loader+: { batch_size: 8 },
      evaluate_on_test: false,
      trainer+: {
        optimizer+: {
          parameter_groups: [head_group] + (if name_features then [name_group] else []) + [no_decay],
        },
        learning_rate_scheduler: if scheduler == null
        then { type: 'linear_with_warmup', warmup_steps: 10 } else scheduler,
      },
    },
}
