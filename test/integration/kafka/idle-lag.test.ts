// Issue 12.8 on the real broker: a partition with a backlog that a slow consumer drains (tiny
// fetches) must never be declared idle, however short idle_timeout is. Before the fix its quiet
// moments between fetches made it idle, the caught-up partition's far-ahead watermark took over
// and the rest of the backlog was dropped as late. Compared with windows computed here from the
// produced records.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { existsSync } from 'node:fs';
import { PlanBuilder, agg, column, T } from '../../fixtures/plans/builder.ts';
import { readNdjson, runPlan, sortRows, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { createTopic, kafkaEnv, unique } from './helpers.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const BASE = Date.UTC(2024, 0, 1);
const WINDOW = 10_000;
const fmt = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function plan(topic: string, group: string, idleTimeoutMs: number) {
  const b = new PlanBuilder('lagging', 60_000);
  b.source({
    name: 'ev',
    connector: 'kafka',
    format: 'json',
    columns: [column('ts', T.timestamp(3)), column('n', T.bigint())],
    watermark: { column: 'ts', delayMs: 0, idleTimeoutMs },
    // A slow consumer: each fetch brings about a dozen records of a partition.
    options: { topic, startup: 'earliest', group_id: group, 'fetch.max_bytes': '1024' },
  });
  const scan = b.scan('ev', 'scan');
  const win = b.windowAgg(scan, {
    id: 'win',
    window: { kind: 'tumble', sizeMs: WINDOW, offsetMs: 0 },
    time: 'ts',
    keys: [],
    aggregates: (c) => [agg.countStar('cnt'), agg.sum('total', c('n'), T.bigint())],
    late: { kind: 'to', sink: 'late' },
    allowedLatenessMs: 0,
  });
  b.sink({ name: 'out', connector: 'file', input: win, options: { path: 'out.ndjson', format: 'ndjson' }, file: { path: 'out.ndjson', format: 'ndjson' } });
  b.sink({ name: 'late', connector: 'file', input: null, lateFrom: [win], schema: b.lateSchema(win), options: { path: 'late.ndjson', format: 'ndjson' }, file: { path: 'late.ndjson', format: 'ndjson' } });
  return b.build();
}

test('a partition with a backlog is never idle: nothing dropped as late, every window complete', async () => {
  const { brokers, kafka } = await kafkaEnv();
  const topic = await createTopic(2, 'idle-lag');
  // Partition 0: a backlog of 4,000 records, 25 ms of event time apart (100 s, 10 windows).
  const backlog = Array.from({ length: 4000 }, (_, i) => ({ ts: BASE + i * 25, n: i }));
  // Partition 1: a few records far ahead in event time, read (and caught up) at once.
  const ahead = Array.from({ length: 5 }, (_, i) => ({ ts: BASE + 3_600_000 + i * 1000, n: 100_000 + i }));
  const producer = kafka.producer();
  await producer.connect();
  const msg = (r: { ts: number; n: number }) => ({ value: JSON.stringify({ ts: fmt(r.ts), n: r.n }) });
  for (let i = 0; i < backlog.length; i += 500) await producer.send({ topic, acks: -1, messages: backlog.slice(i, i + 500).map((r) => ({ partition: 0, ...msg(r) })) });
  await producer.send({ topic, acks: -1, messages: ahead.map((r) => ({ partition: 1, ...msg(r) })) });
  await producer.disconnect();

  // The windows, computed independently from what was produced.
  const expected = new Map<number, { cnt: number; total: number }>();
  for (const r of [...backlog, ...ahead]) {
    const ws = Math.floor(r.ts / WINDOW) * WINDOW;
    const e = expected.get(ws) ?? { cnt: 0, total: 0 };
    e.cnt++;
    e.total += r.n;
    expected.set(ws, e);
  }
  const want = [...expected].map(([ws, e]) => ({ window_start: fmt(ws), window_end: fmt(ws + WINDOW), cnt: e.cnt, total: e.total }));

  const dir = tempDir();
  const out = path.join(dir, 'out.ndjson');
  const ac = new AbortController();
  // idle_timeout 30 ms: far shorter than the seconds it takes to drain partition 0 in 1 KB fetches.
  const run = runPlan(plan(topic, unique('g'), 30), { dir, env: { PIPEC_KAFKA_BROKERS: brokers }, signal: ac.signal });
  const t0 = Date.now();
  // Once both partitions are caught up and idle, processing time closes every window.
  const late = path.join(dir, 'late.ndjson');
  // (A late row is already the failure: no need to wait for windows that will never come.)
  while (!(existsSync(out) && readNdjson(out).length >= want.length) && readNdjson(late).length === 0 && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 200));
  const tookMs = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 300));
  ac.abort();
  const r = await run;
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.late, [], `${r.late.length} on-time records were dropped as late`);
  assert.deepEqual(sortRows(r.out, ['window_start']), sortRows(want, ['window_start']));
  // The point of the test: draining took many times idle_timeout.
  assert.ok(tookMs > 10 * 30, `drained in ${tookMs} ms`);
});
