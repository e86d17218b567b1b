// Yao et al. 2020: positions 512..1023 initialised with E_repeat, pairs of 1024 word pieces.
local zeshel = import '../lib/zeshel.libsonnet';

zeshel.linker(
  std.extVar('LONGENT_MODEL'),
  std.extVar('LONGENT_ZESHEL'),
  max_length=1024,
  position_init='repeat',
)
