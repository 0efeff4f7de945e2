// SESSION with GROUP BY keys beyond its PARTITION BY, through the generated pipeline: 30,000
// random out-of-order events, sessions per user (PARTITION BY k) aggregated per (k, g), and one
// session sequence over all events (no PARTITION BY) aggregated per g; the expected rows come
// from DuckDB SQL over the same NDJSON file (sessions split where a partition's step > gap).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { PlanBuilder, column, T, agg, SEC } from '../../fixtures/plans/builder.ts';
import { runPlan, readNdjson, tempDir, writeNdjson } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';

const N = 30_000;
const BASE = Date.UTC(2024, 0, 1);
const GAP = 5 * SEC;

function events(): { ts: number; k: string; g: string; amount: string }[] {
  let s = 424242;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const out = [];
  for (let i = 0; i < N; i++) {
    // Mostly ~100 ms apart, sometimes a pause of 6 s (> gap): the global sequence splits too.
    const pause = i % 500 === 499 ? 6 * SEC : 0;
    const ts = BASE + i * 100 + Math.floor(i / 500) * 6 * SEC + pause - Math.floor(rnd() * 2000);
    const cents = Math.floor(rnd() * 100_000) - 10_000;
    out.push({ ts, k: `k${Math.floor(rnd() * 50)}`, g: `g${Math.floor(rnd() * 4)}`, amount: (cents / 100).toFixed(2) });
  }
  return out;
}

const toMs = (s: string): number => Date.parse(s.replace(' ', 'T') + 'Z');

test('SESSION PARTITION BY k GROUP BY k, g and SESSION without PARTITION BY GROUP BY g equal DuckDB', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'events.ndjson');
  writeNdjson(file, events());

  const b = new PlanBuilder('session_partition');
  b.source({
    name: 'ev',
    connector: 'file',
    format: 'ndjson',
    columns: [column('ts', T.timestamp(3)), column('k', T.string()), column('g', T.string()), column('amount', T.decimal(12, 2))],
    watermark: { column: 'ts', delayMs: 3 * SEC, idleTimeoutMs: null },
    options: { path: 'events.ndjson', format: 'ndjson' },
  });
  const scan = b.scan('ev');
  const cases = { per_user: { partitionBy: ['k'], keys: ['k', 'g'] }, global: { partitionBy: [], keys: ['g'] } };
  for (const [name, c] of Object.entries(cases)) {
    const w = b.windowAgg(scan, {
      id: `w_${name}`,
      window: { kind: 'session', gapMs: GAP, partitionBy: c.partitionBy },
      time: 'ts',
      keys: c.keys,
      aggregates: (col) => [agg.sum('total', col('amount'), T.decimal(38, 2)), agg.countStar('n')],
      late: { kind: 'to', sink: 'late' },
    });
    b.sink({ name, connector: 'file', input: w, options: { path: `${name}.ndjson` }, file: { path: `${name}.ndjson`, format: 'ndjson' } });
  }
  b.sink({ name: 'late', connector: 'file', input: null, lateFrom: ['w_per_user', 'w_global'], schema: b.lateSchema('w_per_user'), options: { path: 'late.ndjson' }, file: { path: 'late.ndjson', format: 'ndjson' } });
  const r = await runPlan(b.build(), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(readNdjson(path.join(dir, 'late.ndjson')), []);

  const src = `read_json('${file}', format = 'newline_delimited', columns = {ts: 'BIGINT', k: 'VARCHAR', g: 'VARCHAR', amount: 'DECIMAL(12,2)'})`;
  // Session ids per partition (PARTITION BY p: a constant without PARTITION BY), then bounds per session.
  const sessions = (p: string): string => `SELECT *, MIN(ts) OVER (PARTITION BY ${p}, sid) AS ws, MAX(ts) OVER (PARTITION BY ${p}, sid) + ${GAP} AS we FROM (
      SELECT *, SUM(brk) OVER (PARTITION BY ${p} ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM (
        SELECT *, CASE WHEN ts - LAG(ts) OVER (PARTITION BY ${p} ORDER BY ts) <= ${GAP} THEN 0 ELSE 1 END AS brk FROM (SELECT *, 0 AS all_rows FROM ${src})))`;
  const want = {
    per_user: await queryDuckDb(`SELECT k, g, ws::BIGINT AS ws, we::BIGINT AS we, SUM(amount)::VARCHAR AS total, COUNT(*)::BIGINT AS n FROM (${sessions('k')}) GROUP BY k, g, ws, we ORDER BY ws, we, k, g`),
    global: await queryDuckDb(`SELECT g, ws::BIGINT AS ws, we::BIGINT AS we, SUM(amount)::VARCHAR AS total, COUNT(*)::BIGINT AS n FROM (${sessions('all_rows')}) GROUP BY g, ws, we ORDER BY ws, we, g`),
  };
  const got = {
    per_user: readNdjson(path.join(dir, 'per_user.ndjson'))
      .map((x) => ({ k: x.k, g: x.g, ws: toMs(x.window_start as string), we: toMs(x.window_end as string), total: x.total, n: x.n }))
      .sort((a, c) => a.ws - c.ws || a.we - c.we || (a.k as string).localeCompare(c.k as string) || (a.g as string).localeCompare(c.g as string)),
    global: readNdjson(path.join(dir, 'global.ndjson'))
      .map((x) => ({ g: x.g, ws: toMs(x.window_start as string), we: toMs(x.window_end as string), total: x.total, n: x.n }))
      .sort((a, c) => a.ws - c.ws || a.we - c.we || (a.g as string).localeCompare(c.g as string)),
  };
  // Shape checks that make the comparison meaningful: users' sessions hold several g values,
  // and the global sequence is split into several sessions by the pauses.
  const perSession = new Map<string, number>();
  for (const x of want.per_user) perSession.set(`${x.k}|${x.ws}`, (perSession.get(`${x.k}|${x.ws}`) ?? 0) + 1);
  assert.ok([...perSession.values()].some((n) => n > 1), 'some user session has rows for several g');
  assert.ok(new Set(want.global.map((x) => x.ws)).size >= 10, `global sessions: ${new Set(want.global.map((x) => x.ws)).size}`);
  assert.ok(want.per_user.length > 1000, `per-user rows: ${want.per_user.length}`);
  assert.deepEqual(got.per_user, want.per_user);
  assert.deepEqual(got.global, want.global);
});
