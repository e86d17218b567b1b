// CPU recipe: document entity typing with Long-LUKE from the packaged MiniLM (LONGENT_MINILM) on
// Re-DocRED dev documents 0-449, validated on 450-499 (LONGENT_SHARED_DATA). Per-mention entity
// tokens pooled by log-sum-exp, entity token + mention pooling features, 512 word pieces, window
// 256, encoder lr 1e-4, head lr 1e-3.
local luke = import '../lib/luke.libsonnet';
local dev = std.extVar('LONGENT_SHARED_DATA') + '/re-docred/dev_revised.json';

luke.typing(std.extVar('LONGENT_MINILM'), 'docred_entity_typing', dev + '[0:450]',
            dev + '[450:500]', features={ type: 'concat', extractors: [
              { type: 'entity_token' }, { type: 'mention_pool' },
            ] }, lr=1e-3, encoder_lr=1e-4, epochs=1, batch_size=4, warmup_steps=7,
            per_mention=true) + luke.bucketed(4)
