// Kafka connector options of a source or sink as the runtime client needs them, made from the
// resolved config the compiler decided (targets/runtime/lib/config/kafka/config.ts): no defaults here.
import { ConnectorConfigError, rawOptions } from '../config/option-reader.ts';
import { resolveKafkaSink, resolveKafkaSource, type KafkaSinkConfig, type KafkaSourceConfig } from '../config/kafka/config.ts';

export type Startup = 'earliest' | 'latest' | 'committed';
export type Delivery = 'at-least-once' | 'exactly-once';

export interface KafkaSourceOptions {
  brokers: string[];
  topic: string;
  groupId: string;
  startup: Startup;
  /** Upper bound of one fetch per partition (bytes). */
  maxBytesPerPartition: number;
}

export interface KafkaSinkOptions {
  brokers: string[];
  topic: string;
  /** Columns whose values form the message key; empty = no key. */
  keyColumns: string[];
  delivery: Delivery;
  /** -1 = all in-sync replicas (the default; anything else is weaker). */
  acks: number;
  /** `idempotence` / `enable.idempotence` (default true; only with acks=all). */
  idempotent: boolean;
  transactionalId: string;
  /**
   * Exactly-once: the consumer group whose committed offset (on partition 0 of `topic`) is the
   * number of the last interval published; written inside each transaction.
   */
  commitGroup: string;
}

/** Thrown for option values the checker should have rejected; the runner reports it. */
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

/**
 * The runtime's options of a source: from the resolved config the compiler decided (`def.config`,
 * targets/runtime/lib/config/kafka/config.ts), or — for a hand-made def — from its options through the same
 * resolver. Only run-time facts are added here: the broker list from the environment.
 */
export function sourceOptionsOf(name: string, cfg: KafkaSourceConfig, env: Record<string, string | undefined>): KafkaSourceOptions {
  if (!cfg.topic) throw new KafkaOptionError(`source '${name}': the kafka connector needs 'topic'`);
  return {
    brokers: brokersOf(cfg.brokers, env),
    topic: cfg.topic,
    groupId: cfg.groupId,
    startup: cfg.startup,
    maxBytesPerPartition: cfg.maxBytesPerPartition,
  };
}

/** `pipeline` names the group default: two pipelines with a source of the same name must not share a consumer group. */
export function sourceOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>, pipeline?: string): KafkaSourceOptions {
  if (!o.topic) throw new KafkaOptionError(`source '${name}': the kafka connector needs 'topic'`);
  return sourceOptionsOf(name, resolved(() => resolveKafkaSource(name, rawOptions(o), pipeline)), env);
}

/**
 * `member` (scale-out: several processes run the same sink) is appended to the transactional id,
 * the chosen one too: two members with one transactional id would fence each other, and would
 * share one interval marker. Null/absent keeps today's names, so existing markers stay valid.
 */
export function sinkOptionsOf(name: string, cfg: KafkaSinkConfig, env: Record<string, string | undefined>, member?: string | null): KafkaSinkOptions {
  if (!cfg.topic) throw new KafkaOptionError(`sink '${name}': the kafka connector needs 'topic'`);
  const transactionalId = member !== undefined && member !== null ? `${cfg.transactionalId}-${member}` : cfg.transactionalId;
  return {
    brokers: brokersOf(cfg.brokers, env),
    topic: cfg.topic,
    keyColumns: [...cfg.keyColumns],
    delivery: cfg.delivery,
    acks: cfg.acks === 'all' ? -1 : Number(cfg.acks),
    idempotent: cfg.idempotent,
    transactionalId,
    commitGroup: `${transactionalId}-commits`,
  };
}

export function sinkOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>, pipeline?: string, member?: string | null): KafkaSinkOptions {
  if (!o.topic) throw new KafkaOptionError(`sink '${name}': the kafka connector needs 'topic'`);
  return sinkOptionsOf(name, resolved(() => resolveKafkaSink(name, rawOptions(o), pipeline)), env, member);
}

/** A resolver's complaint about a hand-made def, as this connector's error (the runner reports it). */
function resolved<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ConnectorConfigError) throw new KafkaOptionError(e.message);
    throw e;
  }
}
