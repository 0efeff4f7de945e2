// What a Kafka source or sink learns only at start, on top of the resolved config the generated
// module hands it (`def.config`, targets/runtime/lib/config/kafka/config.ts): the broker list from
// the environment and a scale-out member's transactional id. No option is read and no default
// decided here.
import type { KafkaSinkConfig, KafkaSourceConfig } from '../config/kafka/config.ts';
import type { SourceDef } from '../io/source-types.ts';
import type { SinkDef } from '../io/sinks.ts';

/** Thrown for values the checker should have rejected (or a def without its config); the runner reports it. */
export class KafkaOptionError extends Error {}

/** `brokers` as resolved (null: not given, so `PIPEC_KAFKA_BROKERS`). */
export function brokersOf(brokers: string | null, env: Record<string, string | undefined>): string[] {
  const raw = brokers ?? env.PIPEC_KAFKA_BROKERS ?? '';
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (list.length === 0) throw new KafkaOptionError("no Kafka brokers: set the 'brokers' option or PIPEC_KAFKA_BROKERS");
  return list;
}

/** The def's resolved Kafka config; a def without one (made by hand) is refused, never re-read from its options. */
export function kafkaConfigOf(def: SourceDef, side: 'source'): KafkaSourceConfig;
export function kafkaConfigOf(def: SinkDef, side: 'sink'): KafkaSinkConfig;
export function kafkaConfigOf(def: SourceDef | SinkDef, side: 'source' | 'sink'): KafkaSourceConfig | KafkaSinkConfig {
  const c = def.config;
  if (c?.connector !== 'kafka') throw new KafkaOptionError(`${side} '${def.name}': no resolved kafka configuration (generated modules pass one; a def made by hand resolves its options with resolveKafka${side === 'source' ? 'Source' : 'Sink'})`);
  if (!c.topic) throw new KafkaOptionError(`${side} '${def.name}': the kafka connector needs 'topic'`);
  return c;
}

/**
 * `member` (scale-out: several processes run the same sink) is appended to the transactional id,
 * the chosen one too: two members with one transactional id would fence each other, and would
 * share one interval marker. Null/absent keeps today's names, so existing markers stay valid.
 */
export function memberTransactionalId(cfg: KafkaSinkConfig, member: string | null | undefined): string {
  return member !== undefined && member !== null ? `${cfg.transactionalId}-${member}` : cfg.transactionalId;
}

/** The consumer group whose committed offset (partition 0 of the topic) numbers the last interval published (exactly-once). */
export const commitGroupOf = (transactionalId: string): string => `${transactionalId}-commits`;

/** kafkajs's acks: -1 = all in-sync replicas. */
export const acksNumber = (acks: KafkaSinkConfig['acks']): number => (acks === 'all' ? -1 : Number(acks));
