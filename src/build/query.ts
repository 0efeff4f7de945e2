// `pipec query`: runs one DuckDB SQL statement over what local runs wrote. Every queryable sink
// becomes a view named by the sink (and `<pipeline>.<sink>`): NDJSON and Parquet file sinks read
// directly; Iceberg tables through pipec's own reader, which hands DuckDB the snapshot's live
// data files and the positions their deletes remove, so DuckDB needs no Iceberg extension and
// nothing is downloaded (extension autoload is off).
import type { LocalRelation, NotQueryable } from './query-relations.ts';
import { duckdbType, quoteIdent, quoteText } from './query-sql-text.ts';
import { scanIcebergTable, snapshotIds, TableScanError } from '../../targets/iceberg/table-scan.ts';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface QueryInput {
  sql: string;
  relations: LocalRelation[];
  notQueryable: NotQueryable[];
  /** Iceberg snapshot to read instead of the current one (applies to the table that has it). */
  snapshot: string | null;
}

export interface QueryOutput {
  columns: { name: string; type: string }[];
  /** Cell values as DuckDB prints them (null for SQL NULL). */
  rows: (string | null)[][];
  /** The same rows as JSON values (numbers stay exact: big integers and decimals are text). */
  jsonRows: Record<string, unknown>[];
}

/** A query that cannot run: the message names what and where, for the user. */
export class QueryError extends Error {}

type DuckDb = typeof import('@duckdb/node-api');

async function loadDuckDb(): Promise<DuckDb> {
  try {
    return await import('@duckdb/node-api');
  } catch {
    throw new QueryError('pipec query needs DuckDB: install it next to pipec with `npm install -D @duckdb/node-api` (an optional dependency of pipec)');
  }
}

export async function runQuery(input: QueryInput): Promise<QueryOutput> {
  const duck = await loadDuckDb();
  const instance = await duck.DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const conn = await instance.connect();
  try {
    const missing = new Map<string, string>();
    const snapshotUsed = await defineRelations(conn, input, missing);
    if (input.snapshot !== null && !snapshotUsed) await failUnknownSnapshot(input);
    let result;
    try {
      result = await conn.runAndReadAll(input.sql);
    } catch (e) {
      throw new QueryError(explainDuckDbError((e as Error).message, missing, input.notQueryable, input.relations));
    }
    const columns = result.columnNames().map((name, i) => ({ name, type: String(result.columnType(i)) }));
    const rows = result.getRows().map((r) => r.map((v) => (v === null ? null : String(v))));
    return { columns, rows, jsonRows: result.getRowObjectsJson() as Record<string, unknown>[] };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

type Conn = Awaited<ReturnType<Awaited<ReturnType<DuckDb['DuckDBInstance']['create']>>['connect']>>;

/**
 * One view per relation, in the pipeline's schema and (when the sink name is unique across the
 * given specs) in the default schema. A relation with no output yet gets no view; `missing`
 * says why, for the error when the query names it. Returns whether `--snapshot` matched a table.
 */
async function defineRelations(conn: Conn, input: QueryInput, missing: Map<string, string>): Promise<boolean> {
  const counts = new Map<string, number>();
  for (const r of input.relations) counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
  await conn.run('CREATE SCHEMA pipec_internal');
  let snapshotUsed = false;
  for (const [i, r] of input.relations.entries()) {
    const select = await selectFor(conn, r, i, input.snapshot, (used) => (snapshotUsed ||= used));
    if (typeof select !== 'string') {
      missing.set(r.name, `sink ${r.name} of pipeline ${r.pipeline} ${select.why}`);
      missing.set(`${r.pipeline}.${r.name}`, missing.get(r.name)!);
      continue;
    }
    await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(r.pipeline)}`);
    await conn.run(`CREATE VIEW ${quoteIdent(r.pipeline)}.${quoteIdent(r.name)} AS ${select}`);
    if (counts.get(r.name) === 1 && r.name !== r.pipeline) await conn.run(`CREATE VIEW ${quoteIdent(r.name)} AS ${select}`);
  }
  return snapshotUsed;
}

const projection = (r: LocalRelation, from: (c: string) => string): string =>
  r.columns.map((c) => `CAST(${from(c.name)} AS ${duckdbType(c.type)}) AS ${quoteIdent(c.name)}`).join(', ');

async function selectFor(conn: Conn, r: LocalRelation, i: number, snapshot: string | null, noteSnapshot: (used: boolean) => void): Promise<string | { why: string }> {
  switch (r.kind) {
    case 'ndjson': {
      if (!existsSync(r.path) || statSync(r.path).size === 0) return { why: `has no output yet at ${r.path} (run the pipeline first)` };
      // Every column read as JSON text and cast, so BYTES (base64 in NDJSON) decode as the runtime wrote them.
      const cols = `{${r.columns.map((c) => `${quoteText(c.name)}: '${c.type.kind === 'bytes' ? 'VARCHAR' : duckdbType(c.type)}'`).join(', ')}}`;
      const from = `read_json(${quoteText(r.path)}, format = 'newline_delimited', columns = ${cols})`;
      return `SELECT ${projection(r, (c) => (columnType(r, c) === 'bytes' ? `from_base64(${quoteIdent(c)})` : quoteIdent(c)))} FROM ${from}`;
    }
    case 'parquet-dir': {
      const parts = existsSync(r.dir) ? readdirSync(r.dir).filter((f) => /^part-\d+\.parquet$/.test(f)).sort() : [];
      if (parts.length === 0) return { why: `has no output yet in ${r.dir} (run the pipeline first)` };
      const list = `[${parts.map((f) => quoteText(join(r.dir, f))).join(', ')}]`;
      return `SELECT ${projection(r, quoteIdent)} FROM read_parquet(${list}, union_by_name = true)`;
    }
    case 'iceberg':
      return icebergSelect(conn, r, i, snapshot, noteSnapshot);
  }
}

const columnType = (r: LocalRelation, name: string): string => r.columns.find((c) => c.name === name)?.type.kind ?? '';

async function icebergSelect(conn: Conn, r: LocalRelation & { kind: 'iceberg' }, i: number, snapshot: string | null, noteSnapshot: (used: boolean) => void): Promise<string | { why: string }> {
  let want: string | null = null;
  if (snapshot !== null) {
    try {
      want = (await snapshotIds(r.catalog, r.table, r.baseDir)).includes(snapshot) ? snapshot : null;
    } catch {
      want = null;
    }
    noteSnapshot(want !== null);
  }
  let scan;
  try {
    scan = await scanIcebergTable(r.catalog, r.table, r.baseDir, want);
  } catch (e) {
    if (e instanceof TableScanError) return { why: `cannot be read: ${e.message}` };
    return { why: `cannot be read: table ${r.catalog.name}.${r.table}: ${(e as Error).message}` };
  }
  if (scan.dataFiles.length === 0) {
    // An empty table (or snapshot) is a relation with no rows, not an error.
    return `SELECT ${r.columns.map((c) => `CAST(NULL AS ${duckdbType(c.type)}) AS ${quoteIdent(c.name)}`).join(', ')} WHERE false`;
  }
  const files = `[${scan.dataFiles.map(quoteText).join(', ')}]`;
  const read = `read_parquet(${files}, filename = true, file_row_number = true, union_by_name = true)`;
  if (scan.deleted.size === 0) return `SELECT ${projection(r, (c) => `d.${quoteIdent(c)}`)} FROM ${read} d`;
  const deletes = `pipec_internal.deleted_${i}`;
  await conn.run(`CREATE TABLE ${deletes} (file VARCHAR, pos BIGINT)`);
  const appender = await conn.createAppender(`deleted_${i}`, 'pipec_internal');
  for (const [file, positions] of scan.deleted) {
    for (const p of positions) {
      appender.appendVarchar(file);
      appender.appendBigInt(BigInt(p));
      appender.endRow();
    }
  }
  appender.closeSync();
  return `SELECT ${projection(r, (c) => `d.${quoteIdent(c)}`)} FROM ${read} d ANTI JOIN ${deletes} x ON x.file = d.filename AND x.pos = d.file_row_number`;
}

async function failUnknownSnapshot(input: QueryInput): Promise<never> {
  const tables = input.relations.filter((r): r is LocalRelation & { kind: 'iceberg' } => r.kind === 'iceberg');
  if (tables.length === 0) throw new QueryError(`--snapshot ${input.snapshot}: the specs have no Iceberg sink to read a snapshot of`);
  const known: string[] = [];
  for (const t of tables) {
    const ids = await snapshotIds(t.catalog, t.table, t.baseDir).catch(() => []);
    known.push(`${t.name}: ${ids.length ? ids.slice(-5).join(', ') : 'no snapshots yet'}`);
  }
  throw new QueryError(`--snapshot ${input.snapshot}: no Iceberg table of these specs has that snapshot (${known.join('; ')})`);
}

/** DuckDB's message, plus what pipec knows about the name it could not find. */
function explainDuckDbError(message: string, missing: Map<string, string>, notQueryable: NotQueryable[], relations: LocalRelation[]): string {
  const name = /Table with name ([^\s!]+) does not exist/.exec(message)?.[1];
  const first = message.split('\n')[0]!;
  if (name !== undefined) {
    const why = missing.get(name);
    if (why) return `${why}`;
    const nq = notQueryable.find((n) => n.name === name || `${n.pipeline}.${n.name}` === name);
    if (nq) return `sink ${nq.name} of pipeline ${nq.pipeline} cannot be queried: ${nq.why}`;
    const names = [...new Set(relations.map((r) => r.name))];
    return `the query failed: ${first} (the tables here are the specs' file and Iceberg sinks: ${names.length ? names.join(', ') : 'none'})`;
  }
  return `the query failed: ${first}`;
}
