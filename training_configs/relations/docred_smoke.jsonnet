// CPU smoke run: tiny LUKE (LONGENT_LUKE) on Re-DocRED dev documents 0-39 (train) and 40-59
// (validation) from LONGENT_SHARED_DATA; Ign-F1 against the facts of the 40 training documents.
local luke = import '../lib/luke.libsonnet';
local dev = std.extVar('LONGENT_SHARED_DATA') + '/re-docred/dev_revised.json';

luke.docred(std.extVar('LONGENT_LUKE'), dev, dev, max_length=512, reader_extra={ max_records: 40 },
            ign_train_file=dev, ign_train_documents=40, projection_dim=32, lr=1e-3, epochs=2,
            batch_size=4, warmup_steps=0) + {
  validation_dataset_reader: self.dataset_reader + { skip_records: 40, max_records: 20 },
}
