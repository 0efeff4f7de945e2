// postgres-cdc source: the resolved configuration and its resolver (defaults of
// docs/cdc-and-clickhouse-sink.md, applied once). The runtime source reads the result.
import { OptionReader, type RawOption } from '../option-reader.ts';

export interface PostgresCdcSourceConfig {
  connector: 'postgres-cdc';
  /** Secret (may hold a password). null: `PIPEC_PG_URL` at start. */
  dsn: string | null;
  /** As written (`orders` or `public.orders`). */
  table: string;
  /** Replication slot (lower case, at most 63 characters). */
  slot: string;
  publication: string;
  snapshot: 'initial' | 'never';
  /** 0: no heartbeat. */
  heartbeatMs: number;
  snapshotFetchSize: number;
  reconnectTimeoutMs: number;
  templated: string[];
}

/** Slot and publication names are identifiers: the source name made safe, with a fixed prefix. */
export function defaultCdcName(sourceName: string, suffix: string): string {
  return `pipec_${sourceName.toLowerCase().replace(/[^a-z0-9_]/g, '_')}${suffix}`.slice(0, 63);
}

export function resolvePostgresCdcSource(name: string, opts: Record<string, RawOption>): PostgresCdcSourceConfig {
  const r = new OptionReader(opts, `source '${name}'`);
  const slot = r.text('slot', 'slot');
  const publication = r.text('publication', 'publication');
  return {
    connector: 'postgres-cdc',
    dsn: r.text('dsn', 'dsn') ?? null,
    table: r.text('table', 'table') ?? '',
    slot: slot === undefined ? defaultCdcName(name, '') : r.templated.includes('slot') ? slot : slot.toLowerCase(),
    publication: publication === undefined ? defaultCdcName(name, '_pub') : r.templated.includes('publication') ? publication : publication.toLowerCase(),
    snapshot: r.oneOf('snapshot', ['initial', 'never'] as const, 'initial'),
    heartbeatMs: r.durationMs('heartbeat', 0),
    snapshotFetchSize: r.int('snapshot.fetch_size', 5000, 1),
    reconnectTimeoutMs: r.durationMs('reconnect_timeout', 120_000),
    templated: r.templated,
  };
}
