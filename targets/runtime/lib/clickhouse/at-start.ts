// What the ClickHouse sink learns only at start, on top of the resolved config the generated module
// hands it (`def.config`, targets/runtime/lib/config/clickhouse/config.ts): the URL and credentials
// from the environment when the spec gives none, and a `${VAR}` table name split once substituted.
// No option is read and no default decided here.
import type { ClickHouseSinkConfig } from '../config/clickhouse/config.ts';
import type { SinkDef } from '../io/sinks.ts';

export class ClickHouseSinkError extends Error {}

/** Where the sink connects and the table it writes: known only once the environment is. */
export interface ClickHouseConnection {
  url: string;
  username: string;
  password: string;
  database: string;
  table: string;
}

/** The URL with its password replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** The def's resolved ClickHouse config; a def without one (made by hand) is refused, never re-read from its options. */
export function clickhouseConfigOf(def: SinkDef): ClickHouseSinkConfig {
  const c = def.config;
  if (c?.connector !== 'clickhouse') throw new ClickHouseSinkError(`sink '${def.name}': no resolved clickhouse configuration (generated modules pass one; a def made by hand resolves its options with resolveClickHouseSink)`);
  return c;
}

export function connectionOf(name: string, cfg: ClickHouseSinkConfig, env: Record<string, string | undefined>): ClickHouseConnection {
  const url = cfg.url ?? env.PIPEC_CLICKHOUSE_URL;
  if (!url) throw new ClickHouseSinkError(`sink '${name}': the clickhouse connector needs 'url' (or PIPEC_CLICKHOUSE_URL)`);
  // A `${VAR}` table name is split once substituted (database is then empty).
  const parts = cfg.database === '' ? cfg.table.split('.') : [cfg.database, cfg.table];
  const full = parts.join('.');
  if (parts.length > 2 || parts.some((p) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p))) throw new ClickHouseSinkError(`sink '${name}': table '${full}' is not a plain [database.]table`);
  return {
    url,
    username: cfg.user ?? env.PIPEC_CLICKHOUSE_USER ?? 'default',
    password: cfg.password ?? env.PIPEC_CLICKHOUSE_PASSWORD ?? '',
    database: parts.length === 2 ? parts[0]! : 'default',
    table: parts[parts.length - 1]!,
  };
}
