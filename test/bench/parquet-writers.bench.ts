// Parquet writer choice by measurement (Iceberg issue): the same 10-column dataset written by
// parquetjs-lite (the baseline, named by the product owner), hyparquet-writer, parquet-wasm
// (with apache-arrow) and DuckDB. Reports rows/s with the ratio to the baseline from the same
// run, peak memory, file size, whether the footer carries the min/max/null-count statistics
// Iceberg needs, and whether DuckDB and pyarrow (pyiceberg's reader) read it back exactly.
// PIPEC_BENCH_ROWS sets the row count (default 1,000,000).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parquetMetadata } from 'hyparquet';
import { DuckDBInstance } from '@duckdb/node-api';
import { ensureVenv, venvPython } from '../support/venv.ts';
import { makeColumns } from './parquet/dataset.ts';

const rows = Number(process.env.PIPEC_BENCH_ROWS ?? 1_000_000);
const writers = ['parquetjs-lite', 'hyparquet-writer', 'parquet-wasm', 'duckdb'];
const dir = mkdtempSync(join(tmpdir(), 'pipec-pq-bench-'));
const expected = makeColumns(rows);
const expectedQty = expected.quantity.reduce((a, b) => a + b, 0);
const expectedNulls = expected.note.filter((n) => n === null).length;

interface Result {
  writer: string;
  ms: number;
  peakRssMb: number;
  bytes: number;
  stats: string;
  duckdb: string;
  pyarrow: string;
}

function footerStats(path: string): string {
  const buf = readFileSync(path);
  const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const chunks = meta.row_groups.flatMap((rg) => rg.columns);
  const withMinMax = chunks.filter((c) => c.meta_data?.statistics && (c.meta_data.statistics.min_value !== undefined || c.meta_data.statistics.min !== undefined)).length;
  const withNulls = chunks.filter((c) => c.meta_data?.statistics?.null_count !== undefined).length;
  return withMinMax === chunks.length && withNulls === chunks.length ? 'min/max/nulls' : `partial (${withMinMax}/${chunks.length} min/max, ${withNulls} null counts)`;
}

async function duckdbCheck(path: string): Promise<string> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const r = await con.runAndReadAll(`SELECT count(*)::BIGINT AS n, sum(quantity)::BIGINT AS q, count(*) FILTER (WHERE note IS NULL)::BIGINT AS nulls FROM read_parquet('${path}')`);
  const [n, q, nulls] = r.getRows()[0]!.map((v) => Number(v));
  return n === rows && q === expectedQty && nulls === expectedNulls ? 'exact' : `MISMATCH n=${n} q=${q}`;
}

function pyarrowCheck(path: string): string {
  const code = `import pyarrow.parquet as pq, pyarrow.compute as pc, sys\nt = pq.read_table(sys.argv[1])\nprint(t.num_rows, pc.sum(t['quantity']).as_py(), t['note'].null_count)`;
  const r = spawnSync(venvPython, ['-c', code, path], { encoding: 'utf8' });
  const [n, q, nulls] = r.stdout.trim().split(' ').map(Number);
  return n === rows && q === expectedQty && nulls === expectedNulls ? 'exact' : `MISMATCH ${r.stdout.trim()} ${r.stderr.slice(-200)}`;
}

await ensureVenv();
const results: Result[] = [];
for (const writer of writers) {
  const out = join(dir, `${writer}.parquet`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'parquet', 'write-one.ts'), writer, out, String(rows)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) {
    process.stdout.write(`${writer}: failed\n${r.stderr.slice(-1500)}\n`);
    continue;
  }
  const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; peakRssMb: number };
  results.push({ writer, ms: m.ms, peakRssMb: m.peakRssMb, bytes: statSync(out).size, stats: footerStats(out), duckdb: await duckdbCheck(out), pyarrow: pyarrowCheck(out) });
}
const baseline = results.find((r) => r.writer === 'parquetjs-lite');
process.stdout.write(`\nParquet writers, ${rows.toLocaleString('en')} rows x 10 columns, snappy (baseline: parquetjs-lite, same run)\n`);
process.stdout.write(`${'writer'.padEnd(18)}${'rows/s'.padStart(12)}${'ratio'.padStart(8)}${'peak RSS'.padStart(11)}${'size'.padStart(10)}  ${'footer stats'.padEnd(15)}${'duckdb'.padEnd(8)}pyarrow\n`);
for (const r of results) {
  const rps = rows / (r.ms / 1000);
  const ratio = baseline ? baseline.ms / r.ms : NaN;
  process.stdout.write(
    `${r.writer.padEnd(18)}${Math.round(rps).toLocaleString('en').padStart(12)}${ratio.toFixed(2).padStart(8)}${`${Math.round(r.peakRssMb)} MB`.padStart(11)}${`${(r.bytes / 1048576).toFixed(1)} MB`.padStart(10)}  ${r.stats.padEnd(15)}${r.duckdb.padEnd(8)}${r.pyarrow}\n`,
  );
}
rmSync(dir, { recursive: true, force: true });
