// What the postgres-cdc source learns only at start, on top of the resolved config the generated
// module hands it (`def.config`, targets/runtime/lib/config/postgres-cdc/config.ts): the DSN from
// the environment when the spec gives none, and the checks of substituted names. No option is
// read and no default decided here.
import type { PostgresCdcSourceConfig } from '../config/postgres-cdc/config.ts';
import type { SourceDef } from '../io/source-types.ts';

/** A failure the runner reports to the user as is (message already names the redacted DSN). */
export class CdcError extends Error {}

/** Where the source connects and what it reads, as PostgreSQL names it (identifiers folded to lower case). */
export interface CdcConnection {
  dsn: string;
  /** As given (`orders` or `public.orders`). */
  table: string;
  schema: string;
  relname: string;
  slot: string;
  publication: string;
}

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

/** The def's resolved postgres-cdc config; a def without one (made by hand) is refused, never re-read from its options. */
export function cdcConfigOf(def: SourceDef): PostgresCdcSourceConfig {
  const c = def.config;
  if (c?.connector !== 'postgres-cdc') throw new CdcError(`source '${def.name}': no resolved postgres-cdc configuration (generated modules pass one; a def made by hand resolves its options with resolvePostgresCdcSource)`);
  return c;
}

export function connectionOf(name: string, cfg: PostgresCdcSourceConfig, env: Record<string, string | undefined>): CdcConnection {
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
  };
}
