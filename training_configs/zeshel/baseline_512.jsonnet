// Yao et al. 2020, Table 2 baseline: BERT reads 512 word pieces per (mention, candidate) pair.
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.linker(std.extVar('LONGENT_MODEL'), std.extVar('LONGENT_ZESHEL'), max_length=512)
