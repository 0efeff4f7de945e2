// Pipelines written as .pipe.sql, compiled by the real front end and checker, run by the
// runtime: HOP with WHERE, SESSION with ON LATE TO a FROM-less sink, GROUP BY with EMIT
// CHANGES and state_ttl, and an interval join of a CSV and an NDJSON source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson, tempDir } from '../../fixtures/runtime/run-helpers.ts';

async function run(spec: string, extra: string[] = []): Promise<{ dir: string; stdout: string; exitCode: number }> {
  const dir = tempDir();
  cpSync(path.resolve('test/fixtures/runtime/specs'), dir, { recursive: true });
  cpSync(path.resolve('test/fixtures/windows/bids.ndjson'), path.join(dir, 'bids.ndjson'));
  cpSync(path.resolve('test/fixtures/runtime/bids-supplier.ndjson'), path.join(dir, 'bids-supplier.ndjson'));
  void extra;
  const r = await compileFile(spec, { cwd: dir, env: { get: (n) => process.env[n] } });
  const errors = r.diagnostics.items.filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => d.message), []);
  assert.ok(r.plan);
  let stdout = '';
  const x = await runPipeline(r.plan, { baseDir: dir, env: {}, handleSignals: false, stdout: (t) => (stdout += t), stderr: () => {} });
  return { dir, stdout, exitCode: x.exitCode };
}

test('HOP with WHERE from .pipe.sql over the Bid table', async () => {
  const r = await run('bid-hop.pipe.sql');
  assert.equal(r.exitCode, 0);
  // By hand: WHERE price > 1 drops E (1.00); windows of 10 min every 5 min.
  assert.deepEqual(readNdjson(path.join(r.dir, 'out.ndjson')), [
    { window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', total_price: '11.00', bids: 3 },
    { window_start: '2020-04-15 08:05:00.000', window_end: '2020-04-15 08:15:00.000', total_price: '14.00', bids: 4 },
    { window_start: '2020-04-15 08:10:00.000', window_end: '2020-04-15 08:20:00.000', total_price: '9.00', bids: 2 },
    { window_start: '2020-04-15 08:15:00.000', window_end: '2020-04-15 08:25:00.000', total_price: '6.00', bids: 1 },
  ]);
});

test('SESSION (long form, PARTITION BY) and GROUP BY EMIT CHANGES with state_ttl from .pipe.sql', async () => {
  const r = await run('bid-session-items.pipe.sql');
  assert.equal(r.exitCode, 0);
  assert.deepEqual(readNdjson(path.join(r.dir, 'sessions.ndjson')), [
    { window_start: '2020-04-15 08:05:00.000', window_end: '2020-04-15 08:09:00.000', supplier_id: 'supplier1', total_price: '6.00' },
    { window_start: '2020-04-15 08:09:00.000', window_end: '2020-04-15 08:13:00.000', supplier_id: 'supplier2', total_price: '8.00' },
    { window_start: '2020-04-15 08:13:00.000', window_end: '2020-04-15 08:15:00.000', supplier_id: 'supplier1', total_price: '1.00' },
    { window_start: '2020-04-15 08:17:00.000', window_end: '2020-04-15 08:19:00.000', supplier_id: 'supplier2', total_price: '6.00' },
  ]);
  assert.deepEqual(readNdjson(path.join(r.dir, 'late.ndjson')), []);
  // One upsert per input row, in arrival order (each item occurs once in the file: all inserts).
  assert.deepEqual(
    r.stdout.trim().split('\n').map((l) => JSON.parse(l)),
    [
      { op: '+I', item: 'A', n: 1, top: '2.00' },
      { op: '+I', item: 'C', n: 1, top: '4.00' },
      { op: '+I', item: 'B', n: 1, top: '3.00' },
      { op: '+I', item: 'D', n: 1, top: '5.00' },
      { op: '+I', item: 'F', n: 1, top: '6.00' },
      { op: '+I', item: 'E', n: 1, top: '1.00' },
    ],
  );
});

test('interval join of a CSV source and an NDJSON source from .pipe.sql (bounds inclusive)', async () => {
  const r = await run('orders-payments.pipe.sql');
  assert.equal(r.exitCode, 0);
  // o1 paid after 5 min (joins), o3 paid at its order time (BETWEEN is inclusive; its payment is
  // late by the watermark and joins thanks to the view's ALLOWED LATENESS), o2 paid after 29 min
  // (outside 10 min), o9 has no order.
  assert.deepEqual(readNdjson(path.join(r.dir, 'joined.ndjson')), [
    { order_id: 'o1', customer_id: 7, amount: '10.50', paid: '10.50', order_ts: '2024-01-01 10:00:00.000', pay_ts: '2024-01-01 10:05:00.000' },
    { order_id: 'o3', customer_id: 7, amount: '5.25', paid: '5.25', order_ts: '2024-01-01 10:02:00.000', pay_ts: '2024-01-01 10:02:00.000' },
  ]);
});

test('expressions from .pipe.sql: NULL propagation, exact DECIMAL and BIGINT, strings, CASE, time functions', async () => {
  const r = await run('expressions.pipe.sql');
  assert.equal(r.exitCode, 0);
  // Worked out by hand from ev.ndjson (id 3 is filtered out by WHERE id <> 3).
  assert.deepEqual(readNdjson(path.join(r.dir, 'out.ndjson')), [
    {
      id: '9007199254740993', next_id: '9007199254740994', up: 'ALICE', who: 'alice', starts_a: true, len: 5,
      total: '37.50', third: '4.1666666666667', amount_text: '12.50', size: 'big', hr: 13,
      hour_start: '2024-05-01 13:00:00.000', small_qty: false, mid: 'li', tag: 'alice-9007199254740993',
    },
    {
      id: 2, next_id: 3, up: null, who: 'anon', starts_a: null, len: null, total: null, third: null, amount_text: null,
      size: 'none', hr: 8, hour_start: '2024-05-01 08:00:00.000', small_qty: null, mid: null, tag: null,
    },
    {
      id: 4, next_id: 5, up: 'BOB', who: 'bob', starts_a: false, len: 3, total: '14.20', third: '2.3666666666667',
      amount_text: '7.10', size: 'small', hr: 8, hour_start: '2024-05-01 08:00:00.000', small_qty: true, mid: 'ob', tag: 'bob-4',
    },
  ]);
  // A JSON number beyond 2^53 cannot be read exactly: a dead letter that says so, not a silent rounding.
  const dead = readNdjson(path.join(r.dir, 'expressions.dead-letters.ndjson'));
  assert.equal(dead.length, 1);
  assert.equal(dead[0]!.line, 5);
  assert.match(dead[0]!.reason as string, /^column id: expected BIGINT.*write it as a string/);
});
