// Resuming a followed NDJSON file from its checkpointed byte offset (no row twice, none
// lost), LEFT interval join padding, GROUP BY state_ttl eviction, and HOP with EMIT CHANGES.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import * as path from 'node:path';
import { bidPlan, MIN } from '../../fixtures/runtime/bid-plans.ts';
import { PlanBuilder, column, T, agg, E, SEC } from '../../fixtures/plans/builder.ts';
import { readNdjson, runPlan, tempDir, writeNdjson } from '../../fixtures/runtime/run-helpers.ts';

const bid = (t: string, price: string, item: string) => ({ bidtime: `2020-04-15 ${t}:00`, price, item });

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

test('a followed file resumes from the checkpointed offset after a stop', async () => {
  const dir = tempDir();
  const input = path.join(dir, 'in.ndjson');
  writeNdjson(input, [bid('08:01', '1.00', 'A'), bid('08:02', '2.00', 'B'), bid('08:11', '4.00', 'C')]);
  const plan = bidPlan({ path: 'in.ndjson', window: { kind: 'tumble', sizeMs: 10 * MIN, offsetMs: 0 }, delayMs: 0, follow: true, late: 'drop', checkpointIntervalMs: 50 });
  const ck = path.join(dir, 'ck');
  let ac = new AbortController();
  let run = runPlan(plan, { dir, checkpointDir: ck, signal: ac.signal });
  await until(() => readNdjson(path.join(dir, 'out.ndjson')).length === 1);
  ac.abort();
  assert.equal((await run).exitCode, 0);
  // While stopped, more data arrives; the restart must read only the new lines.
  appendFileSync(input, [bid('08:12', '8.00', 'D'), bid('08:25', '16.00', 'E')].map((r) => JSON.stringify(r)).join('\n') + '\n');
  ac = new AbortController();
  run = runPlan(plan, { dir, checkpointDir: ck, signal: ac.signal });
  await until(() => readNdjson(path.join(dir, 'out.ndjson')).length === 2);
  ac.abort();
  assert.equal((await run).exitCode, 0);
  assert.deepEqual(readNdjson(path.join(dir, 'out.ndjson')), [
    { window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', price: '3.00' },
    // C came before the stop, D after it: both in the window, counted once each.
    { window_start: '2020-04-15 08:10:00.000', window_end: '2020-04-15 08:20:00.000', price: '12.00' },
  ]);
});

function joinPlan(joinType: 'inner' | 'left') {
  const b = new PlanBuilder('join_' + joinType);
  for (const [name, time] of [['l', 'lt'], ['r', 'rt']] as const) {
    b.source({
      name,
      connector: 'file',
      format: 'ndjson',
      columns: [column('id', T.string()), column(time, T.timestamp(3))],
      watermark: { column: time, delayMs: 0, idleTimeoutMs: null },
      options: { path: `${name}.ndjson` },
    });
  }
  const l = b.scan('l', 'scan_l');
  const r = b.scan('r', 'scan_r');
  const plan = b.build();
  plan.operators.push({
    op: 'interval_join',
    id: 'j',
    inputs: [l, r],
    joinType,
    leftKeys: [E.col('id', T.string(), 0)],
    rightKeys: [E.col('id', T.string(), 1)],
    leftTime: 'lt',
    rightTime: 'rt',
    lowerMs: -5 * SEC,
    upperMs: 0,
    residual: null,
    allowedLatenessMs: 0,
    late: { kind: 'drop' },
    outputMap: [
      { name: 'id', input: 0, column: 'id' },
      { name: 'lt', input: 0, column: 'lt' },
      { name: 'rt', input: 1, column: 'rt' },
    ],
    schema: [column('id', T.string()), column('lt', T.timestamp(3)), column('rt', T.timestamp(3))],
    changelog: 'append',
    upsertKey: null,
    stateBound: { kind: 'interval', retainMs: 5 * SEC },
    timeColumn: null,
    span: plan.sources[0]!.span,
  });
  plan.sinks.push({ ...b.build().sinks[0]!, id: 'out', name: 'out', connector: 'file', input: 'j', lateFrom: [], schema: plan.operators.at(-1)!.schema, changelog: 'append', upsertKey: null, options: {}, iceberg: null, clickhouse: null, kafka: null, file: { path: 'out.ndjson', format: 'ndjson' }, span: plan.sources[0]!.span } as never);
  return plan;
}

test('LEFT interval join pads unmatched left rows with NULLs once the interval has passed', async () => {
  const dir = tempDir();
  const t = (s: number) => `2024-01-01 00:00:${String(s).padStart(2, '0')}`;
  writeNdjson(path.join(dir, 'l.ndjson'), [{ id: 'a', lt: t(0) }, { id: 'b', lt: t(1) }]);
  writeNdjson(path.join(dir, 'r.ndjson'), [{ id: 'a', rt: t(3) }, { id: 'b', rt: t(9) }, { id: 'z', rt: t(30) }]);
  const inner = await runPlan(joinPlan('inner'), { dir });
  assert.deepEqual(inner.out, [{ id: 'a', lt: '2024-01-01 00:00:00.000', rt: '2024-01-01 00:00:03.000' }]);
  const dir2 = tempDir();
  writeNdjson(path.join(dir2, 'l.ndjson'), [{ id: 'a', lt: t(0) }, { id: 'b', lt: t(1) }]);
  writeNdjson(path.join(dir2, 'r.ndjson'), [{ id: 'a', rt: t(3) }, { id: 'b', rt: t(9) }, { id: 'z', rt: t(30) }]);
  const l2 = await runPlan(joinPlan('left'), { dir: dir2 });
  assert.equal(l2.exitCode, 0, l2.stderr);
  assert.deepEqual(l2.out, [
    { id: 'a', lt: '2024-01-01 00:00:00.000', rt: '2024-01-01 00:00:03.000' },
    { id: 'b', lt: '2024-01-01 00:00:01.000', rt: null },
  ]);
});

test('GROUP BY with state_ttl forgets a group untouched for the TTL (processing time)', async () => {
  const dir = tempDir();
  const input = path.join(dir, 'in.ndjson');
  writeNdjson(input, [{ k: 'a', v: 1 }, { k: 'a', v: 2 }]);
  const b = new PlanBuilder('ttl');
  b.source({ name: 's', connector: 'file', format: 'ndjson', columns: [column('k', T.string()), column('v', T.bigint())], options: { path: 'in.ndjson', follow: 'true' } });
  const g = b.groupAgg(b.scan('s'), { keys: ['k'], aggregates: (c) => [agg.sum('total', c('v'), T.bigint()), agg.countStar('n')], stateTtlMs: 300 });
  b.sink({ name: 'out', connector: 'file', input: g, options: { path: 'out.ndjson' }, file: { path: 'out.ndjson', format: 'ndjson' } });
  const ac = new AbortController();
  const run = runPlan(b.build(), { dir, signal: ac.signal });
  await until(() => readNdjson(path.join(dir, 'out.ndjson')).length === 2);
  await new Promise((r) => setTimeout(r, 800)); // longer than the TTL
  appendFileSync(input, JSON.stringify({ k: 'a', v: 5 }) + '\n');
  await until(() => readNdjson(path.join(dir, 'out.ndjson')).length === 3);
  ac.abort();
  await run;
  assert.deepEqual(readNdjson(path.join(dir, 'out.ndjson')), [
    { op: '+I', k: 'a', total: 1, n: 1 },
    { op: '+U', k: 'a', total: 3, n: 2 },
    { op: '+I', k: 'a', total: 5, n: 1 }, // the group was evicted and starts over
  ]);
});

test('HOP with EMIT CHANGES upserts every window an event falls into', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [bid('08:07', '1.00', 'A'), bid('08:08', '2.00', 'B')]);
  const r = await runPlan(bidPlan({ path: 'in.ndjson', window: { kind: 'hop', slideMs: 5 * MIN, sizeMs: 10 * MIN }, delayMs: 0, emit: 'changes' }), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(
    r.out.map((x) => [x.window_start, x.price]),
    [
      ['2020-04-15 08:00:00.000', '1.00'],
      ['2020-04-15 08:05:00.000', '1.00'],
      ['2020-04-15 08:00:00.000', '3.00'],
      ['2020-04-15 08:05:00.000', '3.00'],
    ],
  );
});

test('UNION of two sources: the window sees both, and the slower source holds the watermark', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'a.ndjson'), [bid('08:01', '1.00', 'A'), bid('08:40', '2.00', 'B')]);
  writeNdjson(path.join(dir, 'b.ndjson'), [bid('08:02', '4.00', 'C'), bid('08:05', '8.00', 'D')]);
  const b = new PlanBuilder('union');
  for (const name of ['a', 'b']) {
    b.source({
      name,
      connector: 'file',
      format: 'ndjson',
      columns: [column('bidtime', T.timestamp(3)), column('price', T.decimal(10, 2)), column('item', T.string())],
      watermark: { column: 'bidtime', delayMs: 0, idleTimeoutMs: null },
      options: { path: `${name}.ndjson` },
    });
  }
  const u = b.union([b.scan('a'), b.scan('b')]);
  const w = b.windowAgg(u, { id: 'w', window: { kind: 'tumble', sizeMs: 10 * MIN, offsetMs: 0 }, time: 'bidtime', keys: [], aggregates: (c) => [agg.sum('price', c('price'), T.decimal(38, 2))], late: { kind: 'to', sink: 'late' } });
  b.sink({ name: 'out', connector: 'file', input: w, options: { path: 'out.ndjson' }, file: { path: 'out.ndjson', format: 'ndjson' } });
  b.sink({ name: 'late', connector: 'file', input: null, lateFrom: [w], schema: b.lateSchema(w), options: { path: 'late.ndjson' }, file: { path: 'late.ndjson', format: 'ndjson' } });
  const r = await runPlan(b.build(), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.late, []);
  assert.deepEqual(r.out, [
    { window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', price: '13.00' },
    { window_start: '2020-04-15 08:40:00.000', window_end: '2020-04-15 08:50:00.000', price: '2.00' },
  ]);
});
