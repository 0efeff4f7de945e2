// The kafka connector (sources and sinks; docs/kafka.md): option schema, resolvers, lints and
// how each target realises it.
import { bool, int, oneOf, str, COMMON_SINK_OPTIONS, COMMON_SOURCE_OPTIONS, type ConnectorDescriptor } from '../descriptor.ts';
import { KAFKA_SINK_DEFAULTS, resolveKafkaSink, resolveKafkaSource } from '../../../targets/runtime/lib/config/kafka/config.ts';
import { kafkaSinkAcks } from './lints.ts';

const brokers = { key: 'brokers', type: str, default: '`PIPEC_KAFKA_BROKERS` at start', doc: 'Comma-separated bootstrap brokers.' };

export const kafka: ConnectorDescriptor = {
  name: 'kafka',
  doc: 'Reads or writes one Kafka topic. Sources commit offsets with checkpoints; sinks write at-least-once or in transactions (exactly-once).',
  source: {
    options: [
      ...COMMON_SOURCE_OPTIONS,
      { key: 'topic', type: str, required: true, doc: 'The topic read.' },
      brokers,
      { key: 'group_id', type: str, default: '`pipec-<pipeline>-<source>`', doc: 'Consumer group; stable per pipeline and source so a restart finds its offsets.' },
      { key: 'format', type: oneOf('json', 'avro', 'protobuf', 'debezium-json'), default: 'json', doc: 'Value format of the records.' },
      { key: 'schema', type: str, doc: "The value schema: 'registry:<subject>' or 'file:<path>'." },
      { key: 'key', type: str, doc: 'Comma-separated columns that form the message key.' },
      { key: 'startup', type: oneOf('earliest', 'latest', 'committed'), default: 'committed', doc: 'Where a group without committed offsets starts.' },
      { key: 'partitions', type: int(1), doc: 'Expected partition count (scale-out planning).' },
      { key: 'fetch.max_bytes', type: int(1), default: '1048576', doc: 'Upper bound of one fetch per partition, in bytes.' },
    ],
    resolve: (s, ctx) => resolveKafkaSource(s.name, s.options, ctx.pipeline),
  },
  sink: {
    options: [
      ...COMMON_SINK_OPTIONS,
      { key: 'topic', type: str, required: true, doc: 'The topic written.' },
      brokers,
      { key: 'format', type: oneOf('json', 'avro', 'protobuf'), default: KAFKA_SINK_DEFAULTS.format, doc: 'Value format of the records.' },
      { key: 'schema', type: str, doc: "The value schema: 'registry:<subject>' or 'file:<path>'." },
      { key: 'key', type: str, default: "the input's upsert key", doc: 'Comma-separated columns that form the message key.' },
      { key: 'acks', type: oneOf('all', '-1', '1', '0'), default: KAFKA_SINK_DEFAULTS.acks, doc: 'Producer acks; exactly-once forces all.' },
      { key: 'enable.idempotence', type: bool, default: String(KAFKA_SINK_DEFAULTS.idempotent), doc: 'Idempotent producer (only with acks = all).' },
      { key: 'idempotence', type: bool, default: String(KAFKA_SINK_DEFAULTS.idempotent), doc: 'Alias of enable.idempotence.' },
      { key: 'delivery', type: oneOf('exactly-once', 'at-least-once'), default: KAFKA_SINK_DEFAULTS.delivery, doc: 'exactly-once: one transaction per checkpoint interval.' },
      { key: 'transactional_id', type: str, default: '`pipec-<pipeline>-<sink>`', doc: 'Transactional id prefix (exactly-once).' },
    ],
    resolve: (s, ctx) => resolveKafkaSink(s.name, s.options, ctx.pipeline, s.connector === 'kafka' ? s.kafka.key : undefined),
  },
  lints: [kafkaSinkAcks],
  targets: {
    runtime: { source: { module: 'kafka', binding: 'kafkaModule' }, sink: { module: 'kafka', binding: 'kafkaModule' } },
    clickhouse: 'source: a Kafka engine table and a materialized view; sink: none',
    flink: { source: 'kafka', sink: 'kafka (upsert-kafka when keyed)' },
  },
};
