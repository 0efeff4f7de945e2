// The engines of the Nexmark-style suite, each running one query over the files of a run folder
// and returning its CPU seconds and answer: `pipec run` (the built CLI, its own process), DuckDB
// (in this process, a batch query over the same NDJSON files) and, when the `flink` venv is
// there, the script `pipec build --target flink` writes for the same spec, on PyFlink's local
// mini-cluster (nexmark/flink-script.py; CPU of its whole process tree, the JVM included).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { venvPythonOf } from '../../support/venv.ts';
import { SOURCE, type NexmarkQuery } from './queries.ts';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const PIPEC = join(ROOT, 'bin', 'pipec.mjs');
export const PRELOAD = join(import.meta.dirname, '..', 'cpu-time-preload.mjs');
const FLINK_SCRIPT = join(import.meta.dirname, 'flink-script.py');

export interface Figure {
  cpuS: number;
  wallS: number;
  rows: number;
  check: number;
}

/** The NDJSON rows of `files`, one after another, read in chunks (q2's output passes 512 MiB at 2M bids). */
function* rowsOf(files: string[]): Generator<Record<string, unknown>> {
  const buf = Buffer.allocUnsafe(1 << 20);
  for (const file of files) {
    const fd = openSync(file, 'r');
    try {
      const dec = new StringDecoder('utf8');
      let rest = '';
      for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
        const lines = (rest + dec.write(buf.subarray(0, n))).split('\n');
        rest = lines.pop()!;
        for (const l of lines) if (l.trim()) yield JSON.parse(l) as Record<string, unknown>;
      }
      rest += dec.end();
      if (rest.trim()) yield JSON.parse(rest) as Record<string, unknown>;
    } finally {
      closeSync(fd);
    }
  }
}

/** Writes `<id>.pipe.sql` (the query's sources, views and sink) into `dir`; returns its name. */
export function writeSpec(dir: string, q: NexmarkQuery): string {
  const name = `${q.id}.pipe.sql`;
  writeFileSync(join(dir, name), `PIPELINE nexmark_${q.id} WITH (checkpoint_interval = '1 h');\n${q.sources ?? SOURCE}\n${q.spec}\n`);
  return name;
}

export function runPipec(dir: string, q: NexmarkQuery): Figure {
  const spec = writeSpec(dir, q);
  rmSync(join(dir, 'out.ndjson'), { recursive: true, force: true });
  const cpuFile = join(dir, `${q.id}.cpu`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', PRELOAD, PIPEC, 'run', spec], { cwd: dir, env: { ...process.env, PIPEC_BENCH_CPU_FILE: cpuFile, NO_COLOR: '1' }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallS = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`pipec run ${q.id} exited ${r.status}:\n${r.stderr.slice(-2000)}`);
  return { cpuS: Number(readFileSync(cpuFile, 'utf8')) / 1000, wallS, ...q.check(rowsOf([join(dir, 'out.ndjson')])) };
}

export async function runDuckDb(dir: string, q: NexmarkQuery): Promise<Figure> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  // The same work as pipec: read and decode the NDJSON files, then compute.
  await con.run(
    `CREATE VIEW bid AS SELECT * FROM read_json('${join(dir, 'bids.ndjson')}', format = 'newline_delimited', columns = {auction: 'BIGINT', bidder: 'BIGINT', price: 'BIGINT', channel: 'VARCHAR', url: 'VARCHAR', date_time: 'TIMESTAMP', extra: 'VARCHAR'})`,
  );
  await con.run(
    `CREATE VIEW auction AS SELECT * FROM read_json('${join(dir, 'auctions.ndjson')}', format = 'newline_delimited', columns = {id: 'BIGINT', item_name: 'VARCHAR', seller: 'BIGINT', category: 'BIGINT', initial_bid: 'BIGINT', date_time: 'TIMESTAMP', expires: 'TIMESTAMP'})`,
  );
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const reader = await con.runAndReadAll(q.duckdb);
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const row = reader.getRowObjects()[0]!;
  con.closeSync();
  return { cpuS: (c.user + c.system) / 1e6, wallS, rows: Number(row['rows']), check: Number(row['check']) };
}

/** The Flink venv's python when it is installed (never installs it: that is `bash test/services/venv.sh flink`). */
export function flinkPython(): string | null {
  const py = venvPythonOf('flink');
  return existsSync(py) ? py : null;
}

/** Flink's part files of a sink folder in write order: per subtask, by part counter. */
function flinkSinkRows(folder: string): Iterable<Record<string, unknown>> {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  const parts = readdirSync(folder)
    .filter((n) => !n.startsWith('.') && !n.startsWith('_'))
    .map((n) => ({ n, m: /-(\d+)-(\d+)$/.exec(n) }))
    .sort((a, b) => Number(a.m?.[1] ?? 0) - Number(b.m?.[1] ?? 0) || Number(a.m?.[2] ?? 0) - Number(b.m?.[2] ?? 0) || a.n.localeCompare(b.n));
  return rowsOf(parts.map((p) => join(folder, p.n)));
}

/** Builds the query's Flink script once (`pipec build --target flink`); returns its path. */
export function buildFlinkScript(dir: string, q: NexmarkQuery): string {
  const spec = writeSpec(dir, q);
  const r = spawnSync(process.execPath, [PIPEC, 'build', spec, '--target', 'flink', '--out', 'flink-gen'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pipec build --target flink of ${q.id} exited ${r.status}:\n${r.stderr.slice(-2000)}`);
  return join(dir, 'flink-gen', `nexmark_${q.id}`, 'flink', 'pipeline.sql');
}

export function runFlink(python: string, dir: string, script: string, q: NexmarkQuery, parallelism: number): Figure {
  rmSync(join(dir, 'out.ndjson'), { recursive: true, force: true });
  const t0 = performance.now();
  const r = spawnSync(python, [FLINK_SCRIPT, script, dir, String(parallelism)], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26, timeout: 1_800_000 });
  const wallS = (performance.now() - t0) / 1000;
  const last = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  const doc = last ? (JSON.parse(last) as { ok: boolean; cpu_s?: number; message?: string; statement?: string }) : undefined;
  if (!doc?.ok) {
    const why = doc ? `${doc.statement ? `on: ${doc.statement.split('\n')[0]} …\n` : ''}${(doc.message ?? '').split('\n')[0]}` : `exit ${r.status}: ${r.stderr.slice(-1500)}`;
    throw new Error(`Flink p${parallelism} ${q.id}: ${why}`);
  }
  return { cpuS: doc.cpu_s!, wallS, ...q.check(flinkSinkRows(join(dir, 'out.ndjson'))) };
}
