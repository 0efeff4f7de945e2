// Kafka connector options of a source or sink (LANGUAGE.md `kafka`), read once from the
// `WITH (...)` map after `${VAR}` substitution, with the documented defaults.

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

export function brokersOf(o: Record<string, string>, env: Record<string, string | undefined>): string[] {
  const raw = o.brokers ?? env.PIPEC_KAFKA_BROKERS ?? '';
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (list.length === 0) throw new KafkaOptionError("no Kafka brokers: set the 'brokers' option or PIPEC_KAFKA_BROKERS");
  return list;
}

/**
 * `pipeline` names the group and transactional id defaults: two pipelines with a source of
 * the same name must not share a consumer group (they would split the partitions).
 */
export function sourceOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>, pipeline?: string): KafkaSourceOptions {
  if (!o.topic) throw new KafkaOptionError(`source '${name}': the kafka connector needs 'topic'`);
  const startup = (o.startup ?? 'committed') as Startup;
  if (startup !== 'earliest' && startup !== 'latest' && startup !== 'committed') {
    throw new KafkaOptionError(`source '${name}': startup must be earliest, latest or committed, not '${startup}'`);
  }
  return {
    brokers: brokersOf(o, env),
    topic: o.topic,
    // A stable default: a restarted pipeline finds its own committed offsets.
    groupId: o.group_id ?? `pipec-${pipeline !== undefined ? pipeline + '-' : ''}${name}`,
    startup,
    maxBytesPerPartition: o['fetch.max_bytes'] !== undefined ? Number(o['fetch.max_bytes']) : 1 << 20,
  };
}

/**
 * `member` (scale-out: several processes run the same sink) is appended to the transactional id,
 * the chosen one too: two members with one transactional id would fence each other, and would
 * share one interval marker. Null/absent keeps today's names, so existing markers stay valid.
 */
export function sinkOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>, pipeline?: string, member?: string | null): KafkaSinkOptions {
  if (!o.topic) throw new KafkaOptionError(`sink '${name}': the kafka connector needs 'topic'`);
  const delivery = (o.delivery ?? 'at-least-once') as Delivery;
  if (delivery !== 'at-least-once' && delivery !== 'exactly-once') {
    throw new KafkaOptionError(`sink '${name}': delivery must be at-least-once or exactly-once, not '${delivery}'`);
  }
  const acksText = o.acks ?? 'all';
  let acks = acksText === 'all' ? -1 : Number(acksText);
  if (!Number.isInteger(acks) || acks < -1) throw new KafkaOptionError(`sink '${name}': acks must be all, 0 or 1, not '${acksText}'`);
  const idemText = o.idempotence ?? o['enable.idempotence'] ?? 'true';
  let idempotent = idemText !== 'false' && acks === -1;
  // Transactions require an idempotent producer writing with acks=all.
  if (delivery === 'exactly-once') {
    acks = -1;
    idempotent = true;
  }
  const base = o.transactional_id ?? `pipec-${pipeline !== undefined ? pipeline + '-' : ''}${name}`;
  const transactionalId = member !== undefined && member !== null ? `${base}-${member}` : base;
  return {
    brokers: brokersOf(o, env),
    topic: o.topic,
    keyColumns: (o.key ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    delivery,
    acks,
    idempotent,
    transactionalId,
    commitGroup: `${transactionalId}-commits`,
  };
}
