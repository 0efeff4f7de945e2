// `postgres-cdc` connector options (LANGUAGE.md) read once from the `WITH (...)` map, and the
// error type whose messages name the DSN with its password redacted.

export type SnapshotMode = 'initial' | 'never';

export interface CdcOptions {
  dsn: string;
  /** As given (`orders` or `public.orders`). */
  table: string;
  schema: string;
  relname: string;
  slot: string;
  publication: string;
  snapshot: SnapshotMode;
  /** 0 = no heartbeat. */
  heartbeatMs: number;
  /** Rows fetched per snapshot round trip. */
  snapshotFetch: number;
  /** Give up reconnecting after this long without a working stream. */
  reconnectTimeoutMs: number;
}

/** A failure the runner reports to the user as is (message already names the redacted DSN). */
export class CdcError extends Error {}

/** The DSN with any password replaced by `***` (URL and key=value forms). */
export function redactDsn(dsn: string): string {
  try {
    const u = new URL(dsn);
    if (u.password !== '') u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (k.toLowerCase() === 'password') u.searchParams.set(k, '***');
    return u.toString();
  } catch {
    return dsn.replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi, '$1***');
  }
}

const IDENT = /^[a-z_][a-z0-9_$]*$/i;

function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|min|minutes?|m|h)?\s*$/i.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase();
  const f = unit === 'ms' ? 1 : unit.startsWith('s') ? 1000 : unit === 'h' ? 3600_000 : 60_000;
  return Math.round(n * f);
}

/** Slot and publication names are identifiers: the source name made safe, with a fixed prefix. */
export function defaultName(sourceName: string, suffix: string): string {
  return `pipec_${sourceName.toLowerCase().replace(/[^a-z0-9_]/g, '_')}${suffix}`.slice(0, 63);
}

export function cdcOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>): CdcOptions {
  const dsn = o.dsn ?? env.PIPEC_PG_URL;
  if (!dsn) throw new CdcError(`source '${name}': the postgres-cdc connector needs 'dsn'`);
  if (!o.table) throw new CdcError(`source '${name}': the postgres-cdc connector needs 'table' (${redactDsn(dsn)})`);
  const parts = o.table.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENT.test(p))) {
    throw new CdcError(`source '${name}': table '${o.table}' is not a plain [schema.]name`);
  }
  const schema = parts.length === 2 ? parts[0]!.toLowerCase() : 'public';
  const relname = parts[parts.length - 1]!.toLowerCase();
  const snapshot = (o.snapshot ?? 'initial') as SnapshotMode;
  if (snapshot !== 'initial' && snapshot !== 'never') throw new CdcError(`source '${name}': snapshot must be 'initial' or 'never', not '${snapshot}'`);
  const slot = o.slot ?? defaultName(name, '');
  const publication = o.publication ?? defaultName(name, '_pub');
  for (const [k, v] of [['slot', slot], ['publication', publication]] as const) {
    if (!IDENT.test(v)) throw new CdcError(`source '${name}': ${k} '${v}' must be a plain identifier`);
  }
  let heartbeatMs = 0;
  if (o.heartbeat !== undefined) {
    const d = parseDuration(o.heartbeat);
    if (d === null) throw new CdcError(`source '${name}': heartbeat '${o.heartbeat}' is not a duration like '10 s'`);
    heartbeatMs = d;
  }
  return {
    dsn,
    table: o.table,
    schema,
    relname,
    slot: slot.toLowerCase(),
    publication: publication.toLowerCase(),
    snapshot,
    heartbeatMs,
    snapshotFetch: o['snapshot.fetch_size'] !== undefined ? Number(o['snapshot.fetch_size']) : 5000,
    reconnectTimeoutMs: parseDuration(o.reconnect_timeout ?? '120 s') ?? 120_000,
  };
}
