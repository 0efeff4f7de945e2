// Iceberg interop (issue 20): tables written by `pipec run` and `pipec compact` read right by
// Apache Spark 4.0 + Iceberg 1.10 (default vectorised reader), DuckDB's iceberg extension and
// pyiceberg: rows equal to an independent computation from the input, ~30 filters (partition
// and metric pruning), every Spark metadata table readable, before and after compaction, and
// Spark writing a table between two pipec runs. Spark and DuckDB run in engines.py (one
// Spark session per read phase, two in all); pyiceberg in the main venv.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { runCompaction } from '../../../targets/iceberg/compact.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { SqlCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/sql-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { toLocation } from '../../../targets/runtime/lib/iceberg/writer/file-io.ts';
import { ensureVenv, repoRoot, venvPythonOf } from '../../support/venv.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { AGG_COLUMNS, APPEND_COLUMNS, CASES, FILTERS, canonAppend, inputRows, ndjson, sortCanon, spec, upserted, type Canon, type InputRow, type TableCase } from './matrix.ts';

const BATCH1 = inputRows(0, 60);
const BATCH2 = inputRows(60, 90);
/** The row Spark inserts into t_spark between the two pipec runs. */
const SPARK_ROW: InputRow = { id: 1000, city: 'Genève', flag: true, payload: Buffer.from([1, 2]).toString('base64'), amount: '5.25', ts: Date.UTC(2024, 2, 1), n: 7 };
const SPARK_INSERT = "INSERT INTO lake.db.t_spark VALUES (1000, 'Genève', true, X'0102', 5.25, TIMESTAMP_NTZ'2024-03-01 00:00:00', 7)";

function sh(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 16 << 20 }, (e, stdout, stderr) => (e ? reject(new Error(`${cmd} ${args.join(' ')} failed:\n${stdout}${stderr}`)) : resolve())),
  );
}

async function run(dir: string, pipeline: string, input: string, env: Record<string, string>): Promise<void> {
  const file = path.join(dir, `${pipeline}.pipe.sql`);
  writeFileSync(file, spec(pipeline, input));
  const r = await compileFile(file, { cwd: dir, env: { get: (n) => env[n] } });
  const errors = r.diagnostics.sorted().filter((d) => d.severity === 'error');
  assert.ok(r.plan && !errors.length, `spec compiles: ${errors.map((d) => d.message).join('; ')}`);
  let stderr = '';
  const { exitCode } = await runPipeline(r.plan, { baseDir: dir, env, checkpointDir: path.join(dir, `ckpt-${pipeline}`), handleSignals: false, stdout: () => undefined, stderr: (t) => (stderr += t) });
  assert.equal(exitCode, 0, stderr);
  return undefined;
}

async function compact(dir: string, env: Record<string, string>): Promise<string[]> {
  const file = path.join(dir, 'compact.pipe.sql');
  writeFileSync(file, spec('interop_compact', 'in1.ndjson'));
  const r = await compileFile(file, { cwd: dir, env: { get: (n) => env[n] } });
  const lines: string[] = [];
  const out = await runCompaction(r.plan!, dir, (l) => lines.push(l));
  assert.deepEqual(out, { ...out, errors: [] }, lines.join('\n'));
  return lines;
}

interface EngineResult {
  rows: Canon[] | null;
  rows_error?: string;
  filters: Record<string, string[] | { error: string }>;
  metadata?: Record<string, number | { error: string }>;
}
interface EnginesOut {
  spark: Record<string, EngineResult>;
  duckdb: Record<string, EngineResult>;
  spark_writes: { sql: string; ok: boolean; error?: string }[];
  errors: string[];
}

function engines(job: Record<string, unknown>): Promise<EnginesOut> {
  return new Promise((resolve, reject) => {
    const child = spawn(venvPythonOf('spark'), [path.join(import.meta.dirname, 'engines.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      try {
        resolve(JSON.parse(out) as EnginesOut);
      } catch {
        reject(new Error(`engines.py exited ${code}: ${err.slice(-4000)}`));
      }
    });
    child.stdin.end(JSON.stringify(job));
  });
}

interface Env {
  dir: string;
  wh: string;
  whSql: string;
  sqlDb: string;
  env: Record<string, string>;
}

async function metadataOf(e: Env, c: TableCase): Promise<string> {
  const catalog = c.catalog === 'lake' ? new FilesystemCatalog('lake', toLocation(e.wh)) : await SqlCatalog.open('lakesql', `sqlite:///${e.sqlDb}`, toLocation(e.whSql));
  try {
    const t = await catalog.load(identFromName(c.table));
    assert.ok(t, `${c.table} exists`);
    return t.metadataLocation;
  } finally {
    await catalog.close();
  }
}

function expectedRows(c: TableCase, phase: 1 | 2): Canon[] {
  if (c.kind !== 'append') return sortCanon(upserted(phase === 1 ? [BATCH1] : [BATCH1, BATCH2]));
  const rows = phase === 1 ? BATCH1 : [...BATCH1, ...(c.sparkWrites ? [SPARK_ROW] : []), ...BATCH2];
  return sortCanon(rows.map(canonAppend));
}

function inputOf(c: TableCase, phase: 1 | 2): InputRow[] {
  return phase === 1 ? BATCH1 : [...BATCH1, ...(c.sparkWrites ? [SPARK_ROW] : []), ...BATCH2];
}

async function readPhase(e: Env, phase: 1 | 2, sparkWrites: string[]): Promise<{ out: EnginesOut; metadata: Map<string, string> }> {
  const metadata = new Map<string, string>();
  for (const c of CASES) metadata.set(c.sink, await metadataOf(e, c));
  const job = {
    jars: readdirSync(path.join(repoRoot, 'test/services/.cache/spark-jars')).filter((f) => f.endsWith('.jar')).map((f) => path.join(repoRoot, 'test/services/.cache/spark-jars', f)),
    catalogs: [
      { spark: 'lake', type: 'filesystem', warehouse: toLocation(e.wh) },
      { spark: 'lakesql', type: 'sql', jdbc: `jdbc:sqlite:${e.sqlDb}`, warehouse: toLocation(e.whSql) },
    ],
    spark_writes: sparkWrites,
    tables: CASES.map((c) => ({
      id: c.sink,
      spark: `${c.catalog}.${c.table}`,
      metadata: metadata.get(c.sink),
      columns: c.kind === 'append' ? APPEND_COLUMNS : AGG_COLUMNS,
      filters: filtersOf(c, phase).map((f) => ({ name: f.name, spark: f.spark, duckdb: f.duckdb })),
      metadata_tables: phase === 2 && METADATA_CASES.has(c.sink),
    })),
  };
  const out = await engines(job);
  assert.deepEqual(out.errors, [], 'both engines ran');
  return { out, metadata };
}

/**
 * The filters a table runs in a phase: each filter runs on two append tables per phase, which
 * rotate with the filter and the phase, so that the filters meet every kind of partitioning
 * while a Spark session stays within a few minutes (each query costs a Spark job).
 */
function filtersOf(c: TableCase, phase: 1 | 2): typeof FILTERS {
  const appends = CASES.filter((x) => x.kind === 'append');
  const k = appends.indexOf(c);
  if (k < 0) return [];
  return FILTERS.filter((_, i) => [i % appends.length, (i + 3 * phase) % appends.length].includes(k));
}

/** Every Spark metadata table is read on these (after compaction): v2/v3, both catalogs, deletes. */
const METADATA_CASES = new Set(['t_day', 't_month', 't_bucket', 't_mor2', 't_mor3', 't_spark']);

function checkEngines(out: EnginesOut, phase: 1 | 2, problems: string[]): void {
  for (const c of CASES) {
    for (const engine of ['spark', 'duckdb'] as const) {
      const r = out[engine][c.sink];
      const where = `phase ${phase} ${engine} ${c.sink}`;
      if (!r) {
        problems.push(`${where}: no result`);
        continue;
      }
      if (r.rows === null) problems.push(`${where}: scan failed: ${r.rows_error}`);
      else if (JSON.stringify(sortCanon(r.rows)) !== JSON.stringify(expectedRows(c, phase))) {
        problems.push(`${where}: rows differ: got ${JSON.stringify(sortCanon(r.rows)).slice(0, 600)} want ${JSON.stringify(expectedRows(c, phase)).slice(0, 600)}`);
      }
      if (c.kind === 'append') {
        for (const f of filtersOf(c, phase)) {
          const got = r.filters[f.name];
          const want = inputOf(c, phase).filter(f.keep).map((x) => String(x.id)).sort();
          if (!Array.isArray(got)) problems.push(`${where} WHERE ${f[engine]}: ${got?.error}`);
          else if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${where} WHERE ${f[engine]}: ids ${got.join(',')} want ${want.join(',')}`);
        }
      }
      for (const [m, v] of Object.entries(r.metadata ?? {})) if (typeof v !== 'number') problems.push(`${where}: ${c.table}.${m}: ${v.error}`);
    }
  }
}

/** pyiceberg's text for the canonical row (decimals and strings as is, binary base64, ISO timestamps). */
function pyicebergCanon(row: Record<string, unknown>, c: TableCase): Canon {
  const o: Canon = {};
  for (const col of c.kind === 'append' ? APPEND_COLUMNS : AGG_COLUMNS) {
    const v = row[col.name];
    if (v === null || v === undefined) o[col.name] = null;
    else if (col.type === 'binary') o[col.name] = Buffer.from(String(v), 'base64').toString('hex').toUpperCase();
    else if (col.type === 'timestamp') {
      const s = String(v);
      const [d, t] = s.split('T') as [string, string];
      const [hms, frac = ''] = t.split('.');
      o[col.name] = `${d} ${hms}.${frac.padEnd(6, '0')}`;
    } else o[col.name] = String(v);
  }
  return o;
}

async function checkPyiceberg(metadata: Map<string, string>, phase: 1 | 2, problems: string[]): Promise<void> {
  for (const c of CASES) {
    try {
      const dump = await readIcebergTable({ metadata: metadata.get(c.sink)! });
      const got = sortCanon(dump.rows.map((r) => pyicebergCanon(r, c)));
      if (JSON.stringify(got) !== JSON.stringify(expectedRows(c, phase))) problems.push(`phase ${phase} pyiceberg ${c.sink}: rows differ: ${JSON.stringify(got).slice(0, 400)}`);
    } catch (e) {
      problems.push(`phase ${phase} pyiceberg ${c.sink}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
}

// Opt-in until it is timed on an unloaded machine: two Spark sessions took over the runner's
// 15 minutes per file on a machine with a load of ~25 on 2 cores (one session: ~6 minutes).
const SKIP = process.env.PIPEC_ICEBERG_INTEROP === '1' ? false : 'opt-in: PIPEC_ICEBERG_INTEROP=1 runs it (Spark + DuckDB + pyiceberg, several minutes)';

test('Spark, DuckDB and pyiceberg read pipec-written tables right, before and after compaction', { timeout: 14 * 60_000, skip: SKIP }, async () => {
  await Promise.all([ensureVenv('spark'), ensureVenv(), sh('bash', [path.join(repoRoot, 'test/services/spark/build.sh')])]);
  // A space and non-ASCII in both warehouse paths.
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec interop '));
  const e: Env = { dir, wh: path.join(dir, 'wäre house'), whSql: path.join(dir, 'sql wh'), sqlDb: path.join(dir, 'catalog.db'), env: {} };
  e.env = { WH: e.wh, WH_SQL: e.whSql, SQL_URI: `sqlite:///${e.sqlDb}` };
  mkdirSync(e.wh, { recursive: true });
  try {
    writeFileSync(path.join(dir, 'in1.ndjson'), ndjson(BATCH1));
    writeFileSync(path.join(dir, 'in2.ndjson'), ndjson(BATCH2));
    await run(dir, 'interop_one', 'in1.ndjson', e.env);

    const problems: string[] = [];
    const first = await readPhase(e, 1, [SPARK_INSERT]);
    assert.deepEqual(first.out.spark_writes.map((w) => w.error ?? 'ok'), ['ok'], 'Spark appends to a pipec table');
    checkEngines(first.out, 1, problems);
    await checkPyiceberg(first.metadata, 1, problems);

    // pipec writes again (after Spark, into the same tables), then compacts.
    await run(dir, 'interop_two', 'in2.ndjson', e.env);
    const log = await compact(dir, e.env);
    assert.ok(log.some((l) => /bin-packed \d+ small files/.test(l)), log.join('\n'));

    const second = await readPhase(e, 2, []);
    checkEngines(second.out, 2, problems);
    await checkPyiceberg(second.metadata, 2, problems);
    assert.deepEqual(problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
