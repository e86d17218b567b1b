// The cascade's first stage (model `context_evidence`, trainer `context_evidence_fit`): BM25
// candidates of each mention's world re-scored by context evidence from an untrained sentence
// encoder; the five feature weights are fitted on the training mentions at once (L-BFGS), so
// "training" is one pass over the data (no epochs).
{
  first_stage(data_dir, encoder='packaged_minilm', top_k=64, window=48):: {
    dataset_reader: { type: 'zeshel_mentions' },
    train_data_path: data_dir + '/mentions/train.json',
    validation_data_path: data_dir + '/mentions/val.json',
    model: { type: 'context_evidence', encoder: encoder, top_k: top_k, window: window },
    data_loader: { batch_size: 512, shuffle: false },
    validation_data_loader: { batch_size: 512, shuffle: false },
    trainer: { type: 'context_evidence_fit' },
  },
}
