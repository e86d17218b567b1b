// Entity prediction on InScript as Ji et al. (2017, §5.3) measure it: the 619 train and 91 dev
// stories of Modi et al. (2017) ($LONGENT_SHARED_DATA/inscript_tacl, default ../shared/data),
// entity_acc counted at the targets of dev_targets.json (R_t given). Lower-cased words, the
// 1,000 most frequent training types kept (the paper's 1K vocabulary), the rest UNK. The §5.3
// shallow classifier is trained beside the model (no shared parameter) so that evaluate reports
// it next to always-new, most-recent and the human majority (where guesses exist).
// Early stopping watches dev perplexity, the training objective, measured on every dev token
// (20K), not entity_acc (1,806 targets): less noise, and the targets do not choose the epoch.
// 40 epochs: 30.5 min wall, 19 CPU min on one thread; dev entity_acc 0.641, perplexity 45.7.
// docs/entity_nlm.md gives the search, figures and commands.
local lib = import '../lib/entity_nlm.libsonnet';
local data = std.extVar('LONGENT_SHARED_DATA') + '/inscript_tacl';

lib.config(
  reader=lib.inscript_tacl_reader(),
  validation_reader=lib.inscript_tacl_reader(targets_file=data + '/dev_targets.json'),
  train=data + '/train',
  validation=data + '/dev',
  model=lib.model(dim=64, dropout=0.2, shallow_baseline=true),
  epochs=40,
  batch_size=16,
  optimizer=lib.adagrad(0.1),
  max_vocab=1000,
  validation_metric='-perplexity',
  patience=4,
)
