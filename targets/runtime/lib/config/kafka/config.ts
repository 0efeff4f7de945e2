// Kafka source and sink: the resolved configuration (every default applied, once) and its
// resolver. The compiler's lowering (src/plan/physical/) calls the resolvers; the runtime
// (targets/runtime/lib/kafka/) reads the result from the generated module. Defaults are those
// of docs/kafka.md and docs/language-decisions.md "Defaults".
import { OptionReader, columnList, type RawOption } from '../option-reader.ts';

export const KAFKA_STARTUPS = ['earliest', 'latest', 'committed'] as const;
export const KAFKA_DELIVERIES = ['at-least-once', 'exactly-once'] as const;

export interface KafkaSourceConfig {
  connector: 'kafka';
  /** Comma-separated list as written; null: `PIPEC_KAFKA_BROKERS` at start. */
  brokers: string | null;
  topic: string;
  /** Stable per pipeline and source, so a restart finds its own committed offsets. */
  groupId: string;
  startup: (typeof KAFKA_STARTUPS)[number];
  format: 'json' | 'avro' | 'protobuf' | 'debezium-json';
  /** Upper bound of one fetch per partition (bytes). */
  maxBytesPerPartition: number;
  /** Fields holding a `${VAR}` template, substituted at start. */
  templated: string[];
}

export interface KafkaSinkConfig {
  connector: 'kafka';
  brokers: string | null;
  topic: string;
  format: 'json' | 'avro' | 'protobuf';
  /** Message key columns; empty: no key (a changelog sink then keys by its upsert key). */
  keyColumns: string[];
  delivery: (typeof KAFKA_DELIVERIES)[number];
  /** Effective acks: exactly-once forces `all`. */
  acks: 'all' | '1' | '0';
  /** Effective: only with acks=all; exactly-once forces it on. */
  idempotent: boolean;
  /**
   * Before the scale-out member suffix (the runtime appends `-<member>`); the interval marker
   * group is `<transactionalId>-commits`.
   */
  transactionalId: string;
  templated: string[];
}

/** The Kafka sink's defaults, decided once (docs/language-decisions.md "Defaults"); the checker's IR reads them too. */
export const KAFKA_SINK_DEFAULTS = { delivery: 'at-least-once', acks: 'all', idempotent: true, format: 'json' } as const;

const defaultName = (pipeline: string | undefined, name: string): string => `pipec-${pipeline !== undefined ? pipeline + '-' : ''}${name}`;

export function resolveKafkaSource(name: string, opts: Record<string, RawOption>, pipeline: string | undefined): KafkaSourceConfig {
  const r = new OptionReader(opts, `source '${name}'`);
  return {
    connector: 'kafka',
    brokers: r.text('brokers', 'brokers') ?? null,
    topic: r.text('topic', 'topic') ?? '',
    groupId: r.text('group_id', 'groupId') ?? defaultName(pipeline, name),
    startup: r.oneOf('startup', KAFKA_STARTUPS, 'committed'),
    format: r.oneOf('format', ['json', 'avro', 'protobuf', 'debezium-json'] as const, 'json'),
    maxBytesPerPartition: r.int('fetch.max_bytes', 1 << 20, 1),
    templated: r.templated,
  };
}

/** `key`: the checked key columns (IrKafkaSink.key: the option, else the input's upsert key); absent: the option as written. */
export function resolveKafkaSink(name: string, opts: Record<string, RawOption>, pipeline: string | undefined, key?: string[] | null): KafkaSinkConfig {
  const r = new OptionReader(opts, `sink '${name}'`);
  const delivery = r.oneOf('delivery', KAFKA_DELIVERIES, KAFKA_SINK_DEFAULTS.delivery);
  const acksText = r.oneOf('acks', ['all', '-1', '1', '0'] as const, KAFKA_SINK_DEFAULTS.acks, ['all', '0', '1']);
  const asked = acksText === '-1' ? 'all' : acksText;
  const idem = r.has('idempotence') ? r.bool('idempotence', KAFKA_SINK_DEFAULTS.idempotent) : r.bool('enable.idempotence', KAFKA_SINK_DEFAULTS.idempotent);
  // Transactions need an idempotent producer writing with acks=all; idempotence needs acks=all.
  const eos = delivery === 'exactly-once';
  return {
    connector: 'kafka',
    brokers: r.text('brokers', 'brokers') ?? null,
    topic: r.text('topic', 'topic') ?? '',
    format: r.oneOf('format', ['json', 'avro', 'protobuf'] as const, KAFKA_SINK_DEFAULTS.format),
    keyColumns: key !== undefined ? [...(key ?? [])] : columnList(r.value('key')),
    delivery,
    acks: eos ? 'all' : asked,
    idempotent: eos || (idem && asked === 'all'),
    transactionalId: r.text('transactional_id', 'transactionalId') ?? defaultName(pipeline, name),
    templated: r.templated,
  };
}
