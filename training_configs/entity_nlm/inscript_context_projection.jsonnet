// The InScript experiment with one change that is not in the paper's eq. 6: words outside
// mentions read the carried e_current through their own W_c instead of the shared W_e (the
// authors' released code separates the two). Carrying e_current through one W_e costs
// perplexity (45.96 against 37.75 with e_current zeroed); W_c recovers it (37.25) and keeps
// entity_acc (0.665 against 0.661). The README gives the commands and figures.
local experiment = import 'inscript_entity_prediction.jsonnet';

experiment + { model+: { context_projection: true } }
