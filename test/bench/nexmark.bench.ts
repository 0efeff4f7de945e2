// Nexmark-style suite (#18): a seeded bid stream (nexmark/generator.ts) through five queries
// (nexmark/queries.ts), each run by `pipec run` (the built CLI, file source → NDJSON file sink) and
// by DuckDB as a batch query over the same file, in the same run. Prints per query the CPU
// seconds of each, pipec's events per CPU second, and the ratio of the two rates (the goal is
// ≥ 0.5× DuckDB on q1–q4 and ≥ 0.33× on q5). Both must compute the same answer (row count and a
// sum over the rows), else the query fails: a figure of a wrong answer is worth nothing.
// BENCH_NEXMARK_EVENTS sets the size (default 1,000,000); `npm run bench nexmark` runs it alone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeBids } from './nexmark/generator.ts';
import { QUERIES, SOURCE, type NexmarkQuery } from './nexmark/queries.ts';

const N = Number(process.env.BENCH_NEXMARK_EVENTS ?? 1_000_000);
const ROOT = join(import.meta.dirname, '..', '..');
const PIPEC = join(ROOT, 'bin', 'pipec.mjs');
const PRELOAD = join(import.meta.dirname, 'cpu-time-preload.mjs');
const GOAL: Record<string, number> = { q1: 0.5, q2: 0.5, q3: 0.5, q4: 0.5, q5: 0.33 };

interface Figure {
  cpuS: number;
  wallS: number;
  rows: number;
  check: number;
}

function runPipec(dir: string, q: NexmarkQuery): Figure {
  writeFileSync(join(dir, `${q.id}.pipe.sql`), `PIPELINE nexmark_${q.id} WITH (checkpoint_interval = '1 h');\n${SOURCE}\n${q.spec}\n`);
  rmSync(join(dir, 'out.ndjson'), { force: true });
  const cpuFile = join(dir, `${q.id}.cpu`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', PRELOAD, PIPEC, 'run', `${q.id}.pipe.sql`], { cwd: dir, env: { ...process.env, PIPEC_BENCH_CPU_FILE: cpuFile, NO_COLOR: '1' }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallS = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`pipec run ${q.id} exited ${r.status}:\n${r.stderr.slice(-2000)}`);
  const rows = readFileSync(join(dir, 'out.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { cpuS: Number(readFileSync(cpuFile, 'utf8')) / 1000, wallS, ...q.check(rows) };
}

async function runDuckDb(file: string, q: NexmarkQuery): Promise<Figure> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  // The same work as pipec: read and decode the NDJSON file, then compute.
  await con.run(
    `CREATE VIEW bid AS SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {auction: 'BIGINT', bidder: 'BIGINT', price: 'BIGINT', channel: 'VARCHAR', url: 'VARCHAR', date_time: 'TIMESTAMP', extra: 'VARCHAR'})`,
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

const f2 = (n: number): string => n.toFixed(2);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-nexmark-'));
  const file = join(dir, 'bids.ndjson');
  await writeBids(file, N);
  process.stdout.write(`Nexmark-style bids: ${N.toLocaleString('en')} events (load average ${loadavg()[0]!.toFixed(1)}); CPU seconds, lower is better\n\n`);
  process.stdout.write('query | what | pipec CPU s | pipec events/CPU-s | DuckDB CPU s | pipec / DuckDB (per CPU s) | goal\n---|---|---|---|---|---|---\n');
  let wrong = 0;
  for (const q of QUERIES) {
    const p = runPipec(dir, q);
    const d = await runDuckDb(file, q);
    const ratio = d.cpuS / p.cpuS;
    const agree = p.rows === d.rows && Math.abs(p.check - d.check) < 1e-6 * Math.max(1, Math.abs(d.check));
    if (!agree) wrong++;
    process.stdout.write(`${q.id} | ${q.what} | ${f2(p.cpuS)} | ${Math.round(N / p.cpuS).toLocaleString('en')} | ${f2(d.cpuS)} | ${f2(ratio)}× | ≥ ${GOAL[q.id]}×${ratio >= GOAL[q.id]! ? '' : ' (not met)'}\n`);
    if (!agree) process.stdout.write(`  DIFFERENT ANSWERS: pipec ${p.rows} rows / check ${p.check}, DuckDB ${d.rows} rows / check ${d.check}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
  if (wrong) {
    process.stdout.write(`\n${wrong} quer${wrong > 1 ? 'ies' : 'y'} computed a different answer than DuckDB\n`);
    process.exitCode = 1;
  }
}

await main();
