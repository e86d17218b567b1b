// The InScript experiment with one change that is not in the paper's eq. 6: words outside
// mentions read the carried e_current through their own W_c instead of the shared W_e (the
// authors' released code separates the two). On the earlier InScript conversion W_c lowered
// perplexity (37.25 against 45.96) and kept entity_acc; docs/entity_nlm.md says what was
// measured on which data.
local experiment = import 'inscript_tacl_entity_prediction.jsonnet';

experiment + { model+: { context_projection: true } }
