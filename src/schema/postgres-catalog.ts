// PostgreSQL catalog → SQL columns of one table: names, types (through the mapping table
// below), NOT NULL and the primary key, read from pg_catalog with the `pg` client.
import type pg from 'pg';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import { T, type SqlType } from '../types/sql-type.ts';
import { assertNever } from '../util/assert-never.ts';
import { suggest } from '../util/suggest.ts';
import { redactDsn } from '../../targets/runtime/lib/shared/redact.ts';
import type { LoadedSchema, PostgresTableRequest } from './schema-loader.ts';

type PgTypeOf = (typmod: number, nullable: boolean) => SqlType;

/** Default fractional-second precision of timestamp/timestamptz columns without one. */
const PG_DEFAULT_TS_PRECISION = 6;
const tsPrecision = (typmod: number): number => (typmod >= 0 ? typmod : PG_DEFAULT_TS_PRECISION);

/**
 * PostgreSQL type (pg_type.typname) → SQL type. JSON stays its text (STRING); an unconstrained
 * NUMERIC reads as DECIMAL(38, 18) (with a warning), as Flink CDC does. Types missing here are
 * read as their text form with the `postgres-type-as-string` warning.
 */
export const PG_TYPE_MAP: Readonly<Record<string, PgTypeOf>> = {
  bool: (_m, n) => T.boolean(n),
  int2: (_m, n) => T.int(n),
  int4: (_m, n) => T.int(n),
  int8: (_m, n) => T.bigint(n),
  float4: (_m, n) => T.float(n),
  float8: (_m, n) => T.double(n),
  // typmod of numeric(p, s) is ((p << 16) | s) + 4 (VARHDRSZ).
  numeric: (m, n) => (m >= 4 ? T.decimal(((m - 4) >> 16) & 0xffff, (m - 4) & 0xffff, n) : T.decimal(38, 18, n)),
  text: (_m, n) => T.string(n),
  varchar: (_m, n) => T.string(n),
  bpchar: (_m, n) => T.string(n),
  char: (_m, n) => T.string(n),
  name: (_m, n) => T.string(n),
  citext: (_m, n) => T.string(n),
  uuid: (_m, n) => T.string(n),
  json: (_m, n) => T.string(n),
  jsonb: (_m, n) => T.string(n),
  xml: (_m, n) => T.string(n),
  inet: (_m, n) => T.string(n),
  cidr: (_m, n) => T.string(n),
  macaddr: (_m, n) => T.string(n),
  bytea: (_m, n) => T.bytes(n),
  date: (_m, n) => T.date(n),
  timestamp: (m, n) => T.timestamp(tsPrecision(m), n),
  timestamptz: (m, n) => T.timestampLtz(tsPrecision(m), n),
};

export interface ColumnRow {
  name: string;
  not_null: boolean;
  typmod: number;
  typname: string;
  typtype: string;
  elem_typname: string | null;
  elem_typtype: string | null;
  formatted: string;
}

const FIND_TABLE = `
SELECT c.oid::int8 AS oid, n.nspname, c.relname
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = to_regclass($1) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`;

// Domains are read as their base type; array columns through their element type.
const COLUMNS = `
SELECT a.attname AS name, a.attnotnull AS not_null,
       CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END AS typmod,
       COALESCE(bt.typname, t.typname) AS typname, COALESCE(bt.typtype, t.typtype) AS typtype,
       et.typname AS elem_typname, et.typtype AS elem_typtype,
       format_type(a.atttypid, a.atttypmod) AS formatted
FROM pg_attribute a
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
LEFT JOIN pg_type et ON et.oid = COALESCE(bt.typelem, t.typelem) AND COALESCE(bt.typcategory, t.typcategory) = 'A'
WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`;

const PRIMARY_KEY = `
SELECT a.attname AS name
FROM pg_index i
CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indrelid = $1::int8::oid AND i.indisprimary
ORDER BY k.ord`;

const ALL_TABLES = `
SELECT n.nspname, c.relname
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
ORDER BY n.nspname, c.relname`;

/** What the catalog says about one table: plain rows, so that one read serves a whole build. */
export type CatalogRead =
  | { kind: 'table'; nspname: string; relname: string; columns: ColumnRow[]; primaryKey: string[] }
  | { kind: 'missing'; candidates: { nspname: string; relname: string }[] }
  | { kind: 'failed'; reason: string };

/** Reads the catalog rows of `table`; never throws (failures come back as data). */
export async function readCatalog(dsn: string, table: string, timeoutMs: number): Promise<CatalogRead> {
  let client: pg.Client;
  try {
    // Loaded on first use: most specs never read a PostgreSQL catalog, and `pg` costs cold start.
    const { default: pgModule } = await import('pg');
    client = new pgModule.Client({ ...connectionConfig(dsn), connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  } catch (e) {
    return { kind: 'failed', reason: reason(e) };
  }
  // A connection dropped after connect() emits 'error'; without a listener that would crash pipec.
  client.on('error', () => {});
  try {
    await client.connect();
    const found = await client.query<{ oid: string; nspname: string; relname: string }>(FIND_TABLE, [table]).catch((e: unknown) => {
      // to_regclass rejects malformed names ("a.b.c.d": 42601) and other databases ("db.s.t": 0A000);
      // to the user both are a table that is not there.
      const code = (e as { code?: string }).code ?? '';
      if (code.startsWith('42') || code === '0A000' || code === '3F000') return { rows: [] };
      throw e;
    });
    const t = found.rows[0];
    if (!t) return { kind: 'missing', candidates: (await client.query<{ nspname: string; relname: string }>(ALL_TABLES)).rows };
    const cols = await client.query<ColumnRow>(COLUMNS, [t.oid]);
    const pk = await client.query<{ name: string }>(PRIMARY_KEY, [t.oid]);
    return { kind: 'table', nspname: t.nspname, relname: t.relname, columns: cols.rows, primaryKey: pk.rows.map((r) => r.name) };
  } catch (e) {
    return { kind: 'failed', reason: reason(e) };
  } finally {
    await client.end().catch(() => {});
  }
}

/** Maps a catalog read to a schema, reporting its diagnostics on the request's span. */
export function mapCatalog(read: CatalogRead, req: PostgresTableRequest, diags: DiagnosticBag): LoadedSchema | null {
  const shownDsn = redactDsn(req.dsn);
  switch (read.kind) {
    case 'failed':
      diags.report('postgres-unreachable', req.span, { dsn: shownDsn, reason: read.reason });
      return null;
    case 'missing': {
      const qualified = req.table.includes('.');
      const names = read.candidates.map((r) => (qualified ? `${r.nspname}.${r.relname}` : r.relname));
      diags.report('postgres-table-not-found', req.span, { table: req.table, dsn: shownDsn, suggestion: suggest(req.table, names) });
      return null;
    }
    case 'table': {
      const fields = read.columns.map((c) => ({ name: c.name, type: columnType(c, diags, req) }));
      const primaryKey = read.primaryKey.length ? [...read.primaryKey] : null;
      const qualifiedName = `${read.nspname}.${read.relname}`;
      return {
        fields,
        primaryKey,
        canonicalText: JSON.stringify({
          table: qualifiedName,
          columns: read.columns.map((c) => ({ name: c.name, type: c.formatted, notNull: c.not_null })),
          primaryKey,
        }),
        description: `postgres:${qualifiedName}`,
        kind: 'postgres',
      };
    }
    default:
      return assertNever(read);
  }
}

function columnType(c: ColumnRow, diags: DiagnosticBag, req: PostgresTableRequest): SqlType {
  const nullable = !c.not_null;
  if (c.elem_typname !== null) {
    // Elements of a PostgreSQL array may always be null, whatever the column's constraint.
    return T.array(baseType(c.name, c.elem_typname, c.elem_typtype ?? 'b', -1, true, c.formatted, diags, req), nullable);
  }
  return baseType(c.name, c.typname, c.typtype, c.typmod, nullable, c.formatted, diags, req);
}

function baseType(
  column: string,
  typname: string,
  typtype: string,
  typmod: number,
  nullable: boolean,
  formatted: string,
  diags: DiagnosticBag,
  req: PostgresTableRequest,
): SqlType {
  // Enum labels arrive as text.
  if (typtype === 'e') return T.string(nullable);
  const m = Object.hasOwn(PG_TYPE_MAP, typname) ? PG_TYPE_MAP[typname] : undefined;
  if (!m) {
    diags.report('postgres-type-as-string', req.span, { column, pgType: formatted });
    return T.string(nullable);
  }
  if (typname === 'numeric' && typmod < 4) diags.report('postgres-numeric-unbounded', req.span, { column });
  return m(typmod, nullable);
}

/** libpq keyword names → pg's config fields (pg itself only parses the URL form). */
const KEYWORDS: Readonly<Record<string, keyof pg.ClientConfig>> = {
  host: 'host',
  hostaddr: 'host',
  port: 'port',
  user: 'user',
  password: 'password',
  dbname: 'database',
  application_name: 'application_name',
};

/**
 * A DSN is a URL (`postgres://user:pw@host:5432/db`) or libpq's `key=value` form
 * (`host=db port=5432 dbname=shop user=pipec password='a b'`); both are what psql accepts.
 */
export function connectionConfig(dsn: string): pg.ClientConfig {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dsn.trim())) return { connectionString: dsn };
  const config: Record<string, unknown> = {};
  const re = /\s*([a-z_]+)\s*=\s*('((?:[^'\\]|\\.)*)'|[^\s']*)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(dsn)) !== null && m[0] !== '') {
    const value = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]!;
    const key = KEYWORDS[m[1]!];
    if (key === 'port') config.port = Number(value);
    else if (key) config[key] = value;
    else if (m[1] === 'sslmode') config.ssl = value === 'disable' ? false : value === 'require' ? { rejectUnauthorized: false } : value !== 'prefer' && value !== 'allow';
  }
  return config as pg.ClientConfig;
}

function reason(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return redactDsn(msg) || (e as { code?: string })?.code || 'unknown error';
}
