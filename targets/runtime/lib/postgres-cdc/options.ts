// `postgres-cdc` connector options as the runtime source needs them, made from the resolved
// config the compiler decided (targets/runtime/lib/config/postgres-cdc/config.ts), and the error type whose
// messages name the DSN with its password redacted.
import { ConnectorConfigError, rawOptions } from '../config/option-reader.ts';
import { defaultCdcName, resolvePostgresCdcSource, type PostgresCdcSourceConfig } from '../config/postgres-cdc/config.ts';

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

/** Slot and publication names are identifiers: the source name made safe, with a fixed prefix. */
export const defaultName = defaultCdcName;

/**
 * The runtime's options of a source, from the resolved config the compiler decided (`def.config`,
 * targets/runtime/lib/config/postgres-cdc/config.ts). Only run-time facts are added: the DSN from the
 * environment when the spec gives none, and the checks of substituted names.
 */
export function cdcOptionsOf(name: string, cfg: PostgresCdcSourceConfig, env: Record<string, string | undefined>): CdcOptions {
  const dsn = cfg.dsn ?? env.PIPEC_PG_URL;
  if (!dsn) throw new CdcError(`source '${name}': the postgres-cdc connector needs 'dsn'`);
  if (!cfg.table) throw new CdcError(`source '${name}': the postgres-cdc connector needs 'table' (${redactDsn(dsn)})`);
  const parts = cfg.table.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENT.test(p))) {
    throw new CdcError(`source '${name}': table '${cfg.table}' is not a plain [schema.]name`);
  }
  for (const [k, v] of [['slot', cfg.slot], ['publication', cfg.publication]] as const) {
    if (!IDENT.test(v)) throw new CdcError(`source '${name}': ${k} '${v}' must be a plain identifier`);
  }
  return {
    dsn,
    table: cfg.table,
    schema: parts.length === 2 ? parts[0]!.toLowerCase() : 'public',
    relname: parts[parts.length - 1]!.toLowerCase(),
    slot: cfg.slot.toLowerCase(),
    publication: cfg.publication.toLowerCase(),
    snapshot: cfg.snapshot,
    heartbeatMs: cfg.heartbeatMs,
    snapshotFetch: cfg.snapshotFetchSize,
    reconnectTimeoutMs: cfg.reconnectTimeoutMs,
  };
}

/** A hand-made def (tests): its options through the same resolver as the compiler's. */
export function cdcOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>): CdcOptions {
  let cfg: PostgresCdcSourceConfig;
  try {
    cfg = resolvePostgresCdcSource(name, rawOptions(o));
  } catch (e) {
    if (e instanceof ConnectorConfigError) throw new CdcError(e.message);
    throw e;
  }
  return cdcOptionsOf(name, cfg, env);
}
