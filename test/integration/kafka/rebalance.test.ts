// A consumer-group rebalance seen by a running pipeline: the runner takes a checkpoint as the
// group starts rebalancing (interval checkpoints are minutes away), and the partition handed
// to the other member stops holding the watermark back, so windows it was delaying fire.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { PlanBuilder, agg, column, MIN, T } from '../../fixtures/plans/builder.ts';
import { readNdjson, runPlan, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { createTopic, kafkaEnv, produce, unique } from './helpers.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const BASE = Date.UTC(2024, 0, 1, 10, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function plan(topic: string, group: string) {
  // Checkpoints every 10 minutes: any checkpoint seen during the test comes from the rebalance.
  const b = new PlanBuilder('rebalance_pipe', 10 * MIN);
  b.source({
    name: 'ev',
    connector: 'kafka',
    format: 'json',
    columns: [column('k', T.string(false)), column('ts', T.timestamp(3, false))],
    watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: null },
    options: { topic, startup: 'earliest', group_id: group },
  });
  const scan = b.scan('ev', 'scan');
  const w = b.windowAgg(scan, { window: { kind: 'tumble', sizeMs: MIN, offsetMs: 0 }, time: 'ts', keys: ['k'], aggregates: () => [agg.countStar('n')] });
  b.sink({ name: 'out', connector: 'file', input: w, options: { path: 'out.ndjson', format: 'ndjson' }, file: { path: 'out.ndjson', format: 'ndjson' } });
  return b.build();
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('a rebalance checkpoints before partitions move, and a revoked lagging partition no longer holds the watermark', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(2, 'rebal');
  const group = unique('g');
  // Both partitions start at 10:00:40 (key 'a' on partition 0, 'b' on partition 1).
  const ev = (k: string, offsetMs: number): string => JSON.stringify({ k, ts: iso(BASE + offsetMs) });
  await produce(topic, 0, [ev('a', 10_000), ev('a', 40_000)]);
  await produce(topic, 1, [ev('b', 10_000), ev('b', 40_000)]);

  const dir = tempDir();
  const ckDir = path.join(dir, 'ck');
  const out = path.join(dir, 'out.ndjson');
  const port = 21000 + Math.floor(Math.random() * 2000);
  const ac = new AbortController();
  const run = runPlan(plan(topic, group), { dir, checkpointDir: ckDir, env: { PIPEC_KAFKA_BROKERS: brokers }, signal: ac.signal, metricsPort: port });
  const recordsIn = async (): Promise<number> => {
    try {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/pipec_records_in_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  const other = new Kafka({ clientId: 'zz-member', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).consumer({ groupId: group });
  let kept = -1;
  try {
    await waitFor('the pipeline to read the first 4 records', async () => (await recordsIn()) === 4);
    assert.equal(existsSync(path.join(ckDir, 'checkpoint.json')), false, 'no interval checkpoint yet');

    // A second member joins the group and takes one partition; the pipeline keeps the other.
    let otherParts: number[] | null = null;
    other.on(other.events.GROUP_JOIN, (e) => {
      otherParts = e.payload.memberAssignment[topic] ?? [];
    });
    await other.connect();
    await other.subscribe({ topics: [topic] });
    await other.run({ eachMessage: async () => {} });
    await waitFor('the second member to get its assignment', () => otherParts !== null);
    assert.equal(otherParts!.length, 1, `the other member owns one partition, got ${JSON.stringify(otherParts)}`);
    kept = 1 - otherParts![0]!;

    await waitFor('the rebalance checkpoint', () => existsSync(path.join(ckDir, 'checkpoint.json')));
    const ck = JSON.parse(readFileSync(path.join(ckDir, 'checkpoint.json'), 'utf8')) as { seq: number };
    assert.ok(ck.seq >= 1);

    // The kept partition moves on to 10:05:30. Were the revoked partition still counted, the
    // watermark would stay at 10:00:40 and nothing would close.
    const k = kept === 0 ? 'a' : 'b';
    await produce(topic, kept, Array.from({ length: 10 }, (_, i) => ev(k, MIN + i * 30_000)));
    await waitFor('the pipeline to read the kept partition', async () => (await recordsIn()) === 14);
    await waitFor('the windows the revoked partition was delaying', () => readNdjson(out).length >= 6);
  } finally {
    ac.abort();
    await other.disconnect();
  }
  const r = await run;
  assert.equal(r.exitCode, 0, r.stderr);
  // Not scaled out: the user is told that the moved partition's open windows are now split.
  assert.match(r.stderr, /moved to another member of the consumer group; this pipeline does not scale out/);
  const [kk, kr] = kept === 0 ? ['a', 'b'] : ['b', 'a'];
  const rows = r.out.map((x) => `${x.k} ${String(x.window_start).slice(11, 16)} ${x.n}`).sort();
  assert.deepEqual(rows, [`${kk} 10:00 2`, `${kk} 10:01 2`, `${kk} 10:02 2`, `${kk} 10:03 2`, `${kk} 10:04 2`, `${kr} 10:00 2`].sort());
});
