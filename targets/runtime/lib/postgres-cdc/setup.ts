// Preparing a CDC source on the server: checks (wal_level, table), the catalog of the table,
// the publication and the replication slot (created with an exported snapshot when the
// initial snapshot must be read at the slot's consistent point).
import pg from 'pg';
import { CdcError, redactDsn, type CdcConnection } from './at-start.ts';
import type { PgColumn } from './pg-values.ts';

/** Session settings so text values have one format whatever the server's defaults. */
export const SESSION_OPTIONS = '-c DateStyle=ISO -c TimeZone=UTC -c extra_float_digits=3 -c bytea_output=hex -c IntervalStyle=iso_8601';

export function clientConfig(dsn: string, replication = false): pg.ClientConfig {
  return { connectionString: dsn, options: SESSION_OPTIONS, ...(replication ? { replication: 'database' } : {}), connectionTimeoutMillis: 10_000 } as pg.ClientConfig;
}

/** Wraps a driver error into a message naming what failed and where (password redacted). */
export function describe(o: CdcConnection, what: string, e: unknown): CdcError {
  const msg = e instanceof Error ? e.message || (e as { code?: string }).code || String(e) : String(e);
  return new CdcError(`postgres-cdc ${redactDsn(o.dsn)}: ${what}: ${msg.split(o.dsn).join(redactDsn(o.dsn))}`);
}

export async function connect(o: CdcConnection, replication = false): Promise<pg.Client> {
  const c = new pg.Client(clientConfig(o.dsn, replication));
  c.on('error', () => {}); // surfaced through the failing query instead
  try {
    await c.connect();
  } catch (e) {
    await c.end().catch(() => {});
    throw describe(o, 'cannot connect', e);
  }
  return c;
}

export interface TableInfo {
  columns: PgColumn[];
  primaryKey: string[];
  replicaIdentity: 'default' | 'nothing' | 'full' | 'index';
}

export async function checkServer(o: CdcConnection, c: pg.Client): Promise<TableInfo> {
  const wal = (await c.query('SHOW wal_level')).rows[0].wal_level as string;
  if (wal !== 'logical') {
    throw new CdcError(`postgres-cdc ${redactDsn(o.dsn)}: wal_level is '${wal}', logical replication needs wal_level = logical (postgresql.conf, then restart the server)`);
  }
  const qualified = `${o.schema}.${o.relname}`;
  const rel = await c.query('SELECT c.oid, c.relreplident FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ($3, $4)', [o.schema, o.relname, 'r', 'p']);
  if (rel.rowCount === 0) throw new CdcError(`postgres-cdc ${redactDsn(o.dsn)}: table '${qualified}' does not exist`);
  const oid = rel.rows[0].oid as number;
  const cols = await c.query(
    `SELECT a.attname, a.attnotnull, COALESCE(NULLIF(t.typbasetype, 0), a.atttypid)::int AS oid,
            CASE WHEN t.typtype = 'd' THEN a2.typname ELSE t.typname END AS typname,
            CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END AS typmod,
            (CASE WHEN t.typtype = 'd' THEN a2.typcategory ELSE t.typcategory END) = 'A' AS is_array
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_type a2 ON a2.oid = t.typbasetype
      WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [oid],
  );
  const pk = await c.query(
    `SELECT a.attname FROM pg_index i JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1 AND i.indisprimary ORDER BY k.n`,
    [oid],
  );
  const ident = rel.rows[0].relreplident as string;
  return {
    columns: cols.rows.map((r) => ({ name: r.attname, typeOid: r.oid, typname: r.typname, typmod: r.typmod, notNull: r.attnotnull, isArray: r.is_array })),
    primaryKey: pk.rows.map((r) => r.attname as string),
    replicaIdentity: ident === 'f' ? 'full' : ident === 'n' ? 'nothing' : ident === 'i' ? 'index' : 'default',
  };
}

export const quoteIdent = (s: string): string => '"' + s.replace(/"/g, '""') + '"';

/** Creates the publication, or adds the table to an existing one. */
export async function ensurePublication(o: CdcConnection, c: pg.Client): Promise<void> {
  const table = `${quoteIdent(o.schema)}.${quoteIdent(o.relname)}`;
  const pub = await c.query('SELECT puballtables FROM pg_publication WHERE pubname = $1', [o.publication]);
  try {
    if (pub.rowCount === 0) {
      await c.query(`CREATE PUBLICATION ${quoteIdent(o.publication)} FOR TABLE ${table}`);
      return;
    }
    if (pub.rows[0].puballtables) return;
    const has = await c.query('SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND schemaname = $2 AND tablename = $3', [o.publication, o.schema, o.relname]);
    if (has.rowCount === 0) await c.query(`ALTER PUBLICATION ${quoteIdent(o.publication)} ADD TABLE ${table}`);
  } catch (e) {
    if ((e as { code?: string }).code === '42710') return; // created concurrently
    throw describe(o, `cannot create publication '${o.publication}'`, e);
  }
}

export interface SlotState {
  exists: boolean;
  active: boolean;
  activePid: number | null;
  plugin: string | null;
  confirmedFlush: string | null;
}

export async function slotState(o: CdcConnection, c: pg.Client): Promise<SlotState> {
  const r = await c.query('SELECT plugin, active, active_pid, confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1', [o.slot]);
  if (r.rowCount === 0) return { exists: false, active: false, activePid: null, plugin: null, confirmedFlush: null };
  const row = r.rows[0];
  return { exists: true, active: row.active, activePid: row.active_pid, plugin: row.plugin, confirmedFlush: row.lsn };
}

export function slotInUse(o: CdcConnection, pid: number | null): CdcError {
  return new CdcError(`postgres-cdc ${redactDsn(o.dsn)}: replication slot '${o.slot}' is in use by another connection (pid ${pid ?? '?'}); another pipeline instance reads it, or set a different 'slot'`);
}

export async function dropSlot(o: CdcConnection, c: pg.Client): Promise<void> {
  try {
    await c.query('SELECT pg_drop_replication_slot($1)', [o.slot]);
  } catch (e) {
    throw describe(o, `cannot drop replication slot '${o.slot}'`, e);
  }
}

export interface CreatedSlot {
  consistentPoint: string;
  /** Exported snapshot; valid while `repl` stays open and runs no other command. */
  snapshotName: string | null;
  repl: pg.Client;
}

/** Creates the slot over a replication connection; with `exportSnapshot` the connection is kept open for the snapshot import. */
export async function createSlot(o: CdcConnection, exportSnapshot: boolean): Promise<CreatedSlot> {
  const repl = await connect(o, true);
  try {
    const r = await repl.query(`CREATE_REPLICATION_SLOT ${quoteIdent(o.slot)} LOGICAL pgoutput ${exportSnapshot ? 'EXPORT_SNAPSHOT' : 'NOEXPORT_SNAPSHOT'}`);
    const row = r.rows[0];
    return { consistentPoint: row.consistent_point, snapshotName: row.snapshot_name ?? null, repl };
  } catch (e) {
    await repl.end().catch(() => {});
    throw describe(o, `cannot create replication slot '${o.slot}'`, e);
  }
}

/** Bytes of WAL the slot holds back: current WAL position minus what was confirmed. */
export async function slotLagBytes(c: pg.Client, slot: string): Promise<number | null> {
  const r = await c.query('SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::float8 AS lag FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  return r.rowCount === 0 || r.rows[0].lag === null ? null : Number(r.rows[0].lag);
}
