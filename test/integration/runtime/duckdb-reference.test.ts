// Reference check: 100,000 random events, out of order within the watermark delay, through
// TUMBLE, HOP, CUMULATE and SESSION aggregates in the runtime; the expected results are
// computed independently by DuckDB SQL over the same NDJSON file, and must match exactly
// (exact DECIMAL sums, counts, MIN/MAX, window bounds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { IrWindow } from '../../../src/plan/ir.ts';
import { PlanBuilder, column, T, agg, SEC, MIN } from '../../fixtures/plans/builder.ts';
import { runPlan, readNdjson, tempDir, writeNdjson } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';

const N = 100_000;
const BASE = Date.UTC(2024, 0, 1);

function events(): { ts: number; k: string; v: number; amount: string }[] {
  let s = 20240101;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const out = [];
  for (let i = 0; i < N; i++) {
    // ~37 ms apart, each up to 3 s early: out of order, but within the 5 s watermark delay.
    const ts = BASE + i * 37 - Math.floor(rnd() * 3000);
    const cents = Math.floor(rnd() * 1_000_000) - 100_000;
    out.push({ ts, k: `k${Math.floor(rnd() * 100)}`, v: Math.floor(rnd() * 10_000), amount: (cents / 100).toFixed(2) });
  }
  return out;
}

const windows: Record<string, IrWindow> = {
  tumble: { kind: 'tumble', sizeMs: MIN, offsetMs: 0 },
  hop: { kind: 'hop', slideMs: 20 * SEC, sizeMs: MIN },
  cumulate: { kind: 'cumulate', stepMs: 15 * SEC, sizeMs: MIN },
  session: { kind: 'session', gapMs: 5 * SEC, partitionBy: ['k'] },
};

const toMs = (s: string): number => Date.parse(s.replace(' ', 'T') + 'Z');

test('100,000 random events: TUMBLE, HOP, CUMULATE, SESSION equal DuckDB over the same file', { timeout: 180_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'events.ndjson');
  writeNdjson(file, events());

  const b = new PlanBuilder('reference');
  b.source({
    name: 'ev',
    connector: 'file',
    format: 'ndjson',
    columns: [column('ts', T.timestamp(3)), column('k', T.string()), column('v', T.bigint()), column('amount', T.decimal(12, 2))],
    watermark: { column: 'ts', delayMs: 5 * SEC, idleTimeoutMs: null },
    options: { path: 'events.ndjson', format: 'ndjson' },
  });
  const scan = b.scan('ev');
  for (const [name, window] of Object.entries(windows)) {
    const w = b.windowAgg(scan, {
      id: `w_${name}`,
      window,
      time: 'ts',
      keys: ['k'],
      aggregates: (c) => [agg.sum('total', c('amount'), T.decimal(38, 2)), agg.countStar('n'), agg.min('lo', c('v')), agg.max('hi', c('v'))],
      late: { kind: 'to', sink: 'late' },
    });
    b.sink({ name, connector: 'file', input: w, options: { path: `${name}.ndjson` }, file: { path: `${name}.ndjson`, format: 'ndjson' } });
  }
  b.sink({ name: 'late', connector: 'file', input: null, lateFrom: ['w_tumble', 'w_hop', 'w_cumulate', 'w_session'], schema: b.lateSchema('w_tumble'), options: { path: 'late.ndjson' }, file: { path: 'late.ndjson', format: 'ndjson' } });
  const r = await runPlan(b.build(), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(readNdjson(path.join(dir, 'late.ndjson')), []);

  const src = `read_json('${file}', format = 'newline_delimited', columns = {ts: 'BIGINT', k: 'VARCHAR', v: 'BIGINT', amount: 'DECIMAL(12,2)'})`;
  const assigned: Record<string, string> = {
    tumble: `SELECT k, v, amount, ts - (ts % 60000) AS ws, ts - (ts % 60000) + 60000 AS we FROM ${src}`,
    hop: `SELECT k, v, amount, ws, ws + 60000 AS we FROM (SELECT *, ts - (ts % 20000) - 20000 * j AS ws FROM ${src}, range(0, 3) AS t(j)) WHERE ws + 60000 > ts`,
    cumulate: `SELECT k, v, amount, ts - (ts % 60000) AS ws, ts - (ts % 60000) + 15000 * j AS we FROM ${src}, range(1, 5) AS t(j) WHERE ts - (ts % 60000) + 15000 * j > ts`,
    session: `SELECT k, v, amount, MIN(ts) OVER (PARTITION BY k, sid) AS ws, MAX(ts) OVER (PARTITION BY k, sid) + 5000 AS we FROM (
        SELECT *, SUM(brk) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM (
          SELECT *, CASE WHEN ts - LAG(ts) OVER (PARTITION BY k ORDER BY ts) <= 5000 THEN 0 ELSE 1 END AS brk FROM ${src}))`,
  };
  for (const name of Object.keys(windows)) {
    const want = await queryDuckDb(
      `SELECT k, ws::BIGINT AS ws, we::BIGINT AS we, SUM(amount)::VARCHAR AS total, COUNT(*)::BIGINT AS n, MIN(v)::BIGINT AS lo, MAX(v)::BIGINT AS hi
       FROM (${assigned[name]}) GROUP BY k, ws, we ORDER BY ws, we, k`,
    );
    const got = readNdjson(path.join(dir, `${name}.ndjson`))
      .map((x) => ({ k: x.k, ws: toMs(x.window_start as string), we: toMs(x.window_end as string), total: x.total, n: x.n, lo: x.lo, hi: x.hi }))
      .sort((a, c) => a.ws - c.ws || a.we - c.we || (a.k as string).localeCompare(c.k as string));
    assert.ok(want.length > 1000, `${name}: ${want.length} windows`);
    assert.equal(got.length, want.length, `${name}: number of window rows`);
    assert.deepEqual(got, want, `${name}: window results`);
  }
});
