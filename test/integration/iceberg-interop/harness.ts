// The interop suite's machinery (issue 20), shared by its test files: writes a part of the
// matrix with `pipec run` / `pipec compact`, reads every table of a phase in one request to a
// long-lived engines.py (Spark + DuckDB; one Spark session per test file) and in one pyiceberg
// process, and compares each engine's rows and filter ids with matrix.ts's computation from
// the input. Steps are timed on stderr (`interop: ...`), the numbers the CI budget is set from.
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { runCompaction } from '../../../targets/iceberg/compact.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { SqlCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/sql-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { toLocation } from '../../../targets/runtime/lib/iceberg/writer/file-io.ts';
import { ensureVenv, repoRoot, venvPython, venvPythonOf } from '../../support/venv.ts';
import { AGG_COLUMNS, APPEND_COLUMNS, FILTERS, canonAppend, inputRows, ndjson, sortCanon, spec, upserted, type Canon, type InputRow, type TableCase } from './matrix.ts';

export const BATCH1 = inputRows(0, 60);
export const BATCH2 = inputRows(60, 90);

const t0 = Date.now();
export function step(msg: string): void {
  process.stderr.write(`interop: +${((Date.now() - t0) / 1000).toFixed(1)}s ${msg}\n`);
}

function sh(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 16 << 20 }, (e, stdout, stderr) => (e ? reject(new Error(`${cmd} ${args.join(' ')} failed:\n${stdout}${stderr}`)) : resolve())),
  );
}

/** Both venvs and the Spark jars (the project's scripts; no-ops once installed). */
export async function installEngines(): Promise<void> {
  await Promise.all([ensureVenv('spark'), ensureVenv(), sh('bash', [path.join(repoRoot, 'test/services/spark/build.sh')])]);
  step('venvs and jars ready');
}

export interface Env {
  dir: string;
  wh: string;
  whSql: string;
  sqlDb: string;
  env: Record<string, string>;
  cases: readonly TableCase[];
  /** Rows Spark appended to a table between the pipec runs, by sink. */
  sparkRows: Map<string, InputRow[]>;
}

/** A working folder whose two warehouse paths hold a space and non-ASCII, with both input files. */
export function makeEnv(cases: readonly TableCase[]): Env {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec interop '));
  const e: Env = { dir, wh: path.join(dir, 'wäre house'), whSql: path.join(dir, 'sql wh'), sqlDb: path.join(dir, 'catalog.db'), env: {}, cases, sparkRows: new Map() };
  e.env = { WH: e.wh, WH_SQL: e.whSql, SQL_URI: `sqlite:///${e.sqlDb}` };
  mkdirSync(e.wh, { recursive: true });
  writeFileSync(path.join(dir, 'in1.ndjson'), ndjson(BATCH1));
  writeFileSync(path.join(dir, 'in2.ndjson'), ndjson(BATCH2));
  return e;
}

export const removeEnv = (e: Env): void => rmSync(e.dir, { recursive: true, force: true });

/** One `pipec run` of the matrix part over `input` (in1.ndjson or in2.ndjson). */
export async function pipecRun(e: Env, pipeline: string, input: string): Promise<void> {
  const file = path.join(e.dir, `${pipeline}.pipe.sql`);
  writeFileSync(file, spec(pipeline, input, e.cases));
  const r = await compileFile(file, { cwd: e.dir, env: { get: (n) => e.env[n] } });
  const errors = r.diagnostics.sorted().filter((d) => d.severity === 'error');
  assert.ok(r.plan && !errors.length, `spec compiles: ${errors.map((d) => d.message).join('; ')}`);
  let stderr = '';
  const { exitCode } = await runPipeline(r.plan, { baseDir: e.dir, env: e.env, checkpointDir: path.join(e.dir, `ckpt-${pipeline}`), handleSignals: false, stdout: () => undefined, stderr: (t) => (stderr += t) });
  assert.equal(exitCode, 0, stderr);
  step(`pipec run ${pipeline}`);
}

/** `pipec compact` of the matrix part; returns its log lines. */
export async function pipecCompact(e: Env): Promise<string[]> {
  const file = path.join(e.dir, 'compact.pipe.sql');
  writeFileSync(file, spec('interop_compact', 'in1.ndjson', e.cases));
  const r = await compileFile(file, { cwd: e.dir, env: { get: (n) => e.env[n] } });
  const lines: string[] = [];
  const out = await runCompaction(r.plan!, e.dir, (l) => lines.push(l), e.env);
  assert.deepEqual(out, { ...out, errors: [] }, lines.join('\n'));
  step('pipec compact');
  return lines;
}

/**
 * The frame both interop files share: engines installed, a fresh warehouse for `cases`, one
 * long-lived Spark + DuckDB process, the first `pipec run` already written; cleaned up after.
 */
export async function withInterop(cases: readonly TableCase[], body: (e: Env, engines: Engines) => Promise<void>): Promise<void> {
  await installEngines();
  const e = makeEnv(cases);
  const engines = new Engines();
  try {
    await pipecRun(e, 'interop_one', 'in1.ndjson');
    await body(e, engines);
  } finally {
    await engines.close();
    removeEnv(e);
  }
}

/** The second `pipec run` into the same tables, then `pipec compact`, which must bin-pack. */
export async function secondRunAndCompact(e: Env): Promise<void> {
  await pipecRun(e, 'interop_two', 'in2.ndjson');
  const log = await pipecCompact(e);
  assert.ok(log.some((l) => /bin-packed \d+ small files/.test(l)), log.join('\n'));
}

interface EngineResult {
  rows: Canon[] | null;
  rows_error?: string;
  filters: Record<string, string[] | { error: string }>;
  metadata?: Record<string, number | { error: string }>;
  inspect?: Record<string, number | { error: string }>;
}
export interface EnginesOut {
  spark: Record<string, EngineResult>;
  duckdb: Record<string, EngineResult>;
  spark_sql: { sql: string; ok: boolean; rows?: (string | null)[][]; error?: string }[];
  errors: string[];
}

/** engines.py as a long-lived child: one JSON job per line in, one `@@ {json}` line out. */
export class Engines {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: ((line: string) => void)[] = [];
  private stderr = '';

  constructor() {
    this.child = spawn(venvPythonOf('spark'), [path.join(import.meta.dirname, 'engines.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d: Buffer) => {
      const text = d.toString('utf8');
      this.stderr = (this.stderr + text).slice(-8000);
      for (const l of text.split('\n')) if (l.startsWith('engines:')) process.stderr.write(l + '\n');
    });
    createInterface({ input: this.child.stdout }).on('line', (l) => {
      if (l.startsWith('@@ ')) this.waiting.shift()?.(l.slice(3));
    });
    this.child.on('exit', (code) => {
      for (const w of this.waiting.splice(0)) w(JSON.stringify({ exited: code }));
    });
  }

  async request(job: Record<string, unknown>): Promise<EnginesOut> {
    const line = await new Promise<string>((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(JSON.stringify(job) + '\n');
    });
    const out = JSON.parse(line) as EnginesOut & { exited?: number };
    if (out.exited !== undefined) throw new Error(`engines.py exited ${out.exited}: ${this.stderr.slice(-4000)}`);
    return out;
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.stdin.end();
    await exited;
  }
}

export async function metadataOf(e: Env, c: Pick<TableCase, 'catalog' | 'table'>): Promise<string> {
  const catalog = c.catalog === 'lake' ? new FilesystemCatalog('lake', toLocation(e.wh)) : await SqlCatalog.open('lakesql', `sqlite:///${e.sqlDb}`, toLocation(e.whSql));
  try {
    const t = await catalog.load(identFromName(c.table));
    assert.ok(t, `${c.table} exists`);
    return t.metadataLocation;
  } finally {
    await catalog.close();
  }
}

export function sparkJob(e: Env): Record<string, unknown> {
  const jars = path.join(repoRoot, 'test/services/.cache/spark-jars');
  return {
    jars: readdirSync(jars).filter((f) => f.endsWith('.jar')).map((f) => path.join(jars, f)),
    catalogs: [
      { spark: 'lake', type: 'filesystem', warehouse: toLocation(e.wh) },
      { spark: 'lakesql', type: 'sql', jdbc: `jdbc:sqlite:${e.sqlDb}`, warehouse: toLocation(e.whSql) },
    ],
  };
}

const columnsOf = (c: TableCase): typeof APPEND_COLUMNS => (c.kind === 'append' ? APPEND_COLUMNS : AGG_COLUMNS);
const filtersOf = (c: TableCase): typeof FILTERS => (c.kind === 'append' ? FILTERS : []);

/**
 * The filters Spark runs on a table in a phase. DuckDB and pyiceberg run every filter on every
 * append table; in Spark each filter scan costs a task per data file, so each filter runs on two
 * of the part's append tables per phase, rotating with the filter and the phase, so the filters
 * meet every kind of partitioning (all of them when the part has one append table).
 */
export function sparkFiltersOf(e: Env, c: TableCase, phase: 1 | 2): typeof FILTERS {
  const appends = e.cases.filter((x) => x.kind === 'append');
  const k = appends.indexOf(c);
  if (k < 0) return [];
  const n = appends.length;
  return FILTERS.filter((_, i) => i % n === k || (i + phase) % n === k);
}

export interface PhaseOut {
  engines: EnginesOut;
  pyiceberg: Record<string, EngineResult>;
  metadata: Map<string, string>;
}

/**
 * Reads every table of the part in all three engines (Spark and DuckDB in one engines.py
 * request, pyiceberg in one process, at the same time); `sparkSql` runs in Spark first.
 */
export async function readPhase(e: Env, engines: Engines, phase: 1 | 2, opts: { sparkSql?: string[]; metadataTables?: ReadonlySet<string> } = {}): Promise<PhaseOut> {
  const metadata = new Map<string, string>();
  for (const c of e.cases) metadata.set(c.sink, await metadataOf(e, c));
  const job = {
    ...sparkJob(e),
    spark_sql: opts.sparkSql ?? [],
    tables: e.cases.map((c) => ({
      id: c.sink,
      spark: `${c.catalog}.${c.table}`,
      metadata: metadata.get(c.sink),
      columns: columnsOf(c),
      // Spark's filters run for the name in `spark`; DuckDB runs every filter of the table.
      filters: filtersOf(c).map((f) => ({ name: f.name, spark: f.spark, duckdb: f.duckdb })),
      spark_filters: sparkFiltersOf(e, c, phase).map((f) => f.name),
      metadata_tables: opts.metadataTables?.has(c.sink) ?? false,
    })),
  };
  const pyJob = {
    tables: e.cases.map((c) => ({
      id: c.sink,
      metadata: metadata.get(c.sink),
      columns: columnsOf(c),
      filters: filtersOf(c).flatMap((f) => (f.pyiceberg === null ? [] : [{ name: f.name, expr: f.pyiceberg }])),
      inspect: opts.metadataTables?.has(c.sink) ?? false,
    })),
  };
  const [out, py] = await Promise.all([engines.request(job), pyiceberg(pyJob)]);
  step(`read phase ${phase}`);
  assert.deepEqual(out.errors, [], 'both engines ran');
  return { engines: out, pyiceberg: py, metadata };
}

export function pyiceberg(job: Record<string, unknown>): Promise<Record<string, EngineResult>> {
  return new Promise((resolve, reject) => {
    const child = spawn(venvPython, [path.join(import.meta.dirname, 'pyiceberg_read.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      try {
        resolve(JSON.parse(out) as Record<string, EngineResult>);
      } catch {
        reject(new Error(`pyiceberg_read.py exited ${code}: ${err.slice(-4000)}`));
      }
    });
    child.stdin.end(JSON.stringify(job));
  });
}

/** The input rows a table holds after a phase (Spark's rows come between the two pipec runs). */
export function inputOf(e: Env, c: TableCase, phase: 1 | 2): InputRow[] {
  return phase === 1 ? BATCH1 : [...BATCH1, ...(e.sparkRows.get(c.sink) ?? []), ...BATCH2];
}

export function expectedRows(e: Env, c: TableCase, phase: 1 | 2): Canon[] {
  if (c.kind !== 'append') return sortCanon(upserted(phase === 1 ? [BATCH1] : [BATCH1, BATCH2]));
  return sortCanon(inputOf(e, c, phase).map(canonAppend));
}

/** pyiceberg `inspect` errors to accept, by sink and metadata table: the exact error text (see writes.test.ts). */
export type KnownFailures = Record<string, Record<string, string>>;

/** Every engine's rows, filter ids and metadata tables against the computation; problems listed. */
export function check(e: Env, out: PhaseOut, phase: 1 | 2, problems: string[], known: KnownFailures = {}): { filtersChecked: number } {
  let filtersChecked = 0;
  const results = { spark: out.engines.spark, duckdb: out.engines.duckdb, pyiceberg: out.pyiceberg };
  for (const c of e.cases) {
    for (const [engine, byTable] of Object.entries(results)) {
      const r = byTable[c.sink];
      const where = `phase ${phase} ${engine} ${c.sink}`;
      if (!r) {
        problems.push(`${where}: no result`);
        continue;
      }
      if (r.rows === null) problems.push(`${where}: scan failed: ${r.rows_error}`);
      else if (JSON.stringify(sortCanon(r.rows)) !== JSON.stringify(expectedRows(e, c, phase))) {
        problems.push(`${where}: rows differ: got ${JSON.stringify(sortCanon(r.rows)).slice(0, 600)} want ${JSON.stringify(expectedRows(e, c, phase)).slice(0, 600)}`);
      }
      for (const f of engine === 'spark' ? sparkFiltersOf(e, c, phase) : filtersOf(c)) {
        const text = engine === 'pyiceberg' ? f.pyiceberg : f[engine as 'spark' | 'duckdb'];
        if (text === null) continue;
        const got = r.filters[f.name];
        const want = inputOf(e, c, phase).filter(f.keep).map((x) => String(x.id)).sort();
        filtersChecked++;
        if (!Array.isArray(got)) problems.push(`${where} WHERE ${text}: ${got?.error ?? 'not run'}`);
        else if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${where} WHERE ${text}: ids ${got.join(',')} want ${want.join(',')}`);
      }
      for (const [m, v] of Object.entries({ ...r.metadata, ...r.inspect })) {
        if (typeof v === 'number') continue;
        if (engine === 'pyiceberg' && known[c.sink]?.[m] === v.error) continue;
        problems.push(`${where}: ${c.table}.${m}: ${v.error}`);
      }
    }
  }
  step(`checked phase ${phase}: ${problems.length} problems so far${problems.length ? '\n  ' + problems.map((p) => p.slice(0, 300)).join('\n  ') : ''}`);
  return { filtersChecked };
}
