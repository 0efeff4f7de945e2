// Lint: a Kafka sink that does not write with acks=all and an idempotent producer.
import type { ConnectorLint } from '../descriptor.ts';

export const kafkaSinkAcks: ConnectorLint = {
  code: 'kafka-sink-not-idempotent',
  run({ plan, diags }) {
    for (const s of plan.sinks) {
      if (s.connector !== 'kafka') continue;
      if (s.kafka.acks === 'all' && s.kafka.idempotent) continue;
      diags.report('kafka-sink-not-idempotent', s.span, { sink: s.name, acks: s.kafka.acks, idempotent: s.kafka.idempotent });
    }
  },
};
