// Scale-out (`scale_out = 'partitions'`): two members of one pipeline share a consumer group and
// a checkpoint store. A window open while its partition moves to the other member is finished
// by that member with the state the first one built (not emitted in parts by both): when a
// second member joins, and when a member stops and the other takes its partitions back.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { PlanBuilder, agg, column, opts, MIN, T } from '../../fixtures/plans/builder.ts';
import { readNdjson, runPlan, tempDir, type RunResult } from '../../fixtures/runtime/run-helpers.ts';
import { createTopic, kafkaEnv, produce, unique } from './helpers.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const BASE = Date.UTC(2024, 0, 1, 10, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const PARTITIONS = 4;
/** Partition p carries key `k<p>` only: the grouping key is the message key's function, as scale-out requires. */
const key = (p: number): string => `k${p}`;

function plan(topic: string, group: string) {
  const b = new PlanBuilder('scale_out_pipe', 10 * MIN);
  b.source({
    name: 'ev',
    connector: 'kafka',
    format: 'json',
    columns: [column('k', T.string(false)), column('ts', T.timestamp(3, false)), column('v', T.bigint(false))],
    watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: null },
    options: { topic, startup: 'earliest', group_id: group },
  });
  const w = b.windowAgg(b.scan('ev', 'scan'), {
    window: { kind: 'tumble', sizeMs: MIN, offsetMs: 0 },
    time: 'ts',
    keys: ['k'],
    aggregates: (c) => [agg.countStar('n'), agg.sum('s', c('v'), T.bigint())],
  });
  b.sink({ name: 'out', connector: 'file', input: w, options: { path: 'out.ndjson', format: 'ndjson' }, file: { path: 'out.ndjson', format: 'ndjson' } });
  const doc = b.build();
  doc.pipeline.options = opts({ scale_out: 'partitions' });
  return doc;
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 90_000): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Partitions each member holds (open task entries) according to the shared store. */
function holders(ckDir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const root = path.join(ckDir, 'members');
  if (!existsSync(root)) return out;
  for (const m of readdirSync(root)) {
    const f = path.join(root, m, 'checkpoint.json');
    if (!existsSync(f)) continue;
    const doc = JSON.parse(readFileSync(f, 'utf8')) as { tasks?: Record<string, { released: boolean }> };
    out.set(m, Object.entries(doc.tasks ?? {}).filter(([, e]) => !e.released).map(([p]) => p).sort());
  }
  return out;
}

/** Rows as `key window-start-hh:mm n s`. */
const rowsOf = (file: string): string[] => readNdjson(file).map((x) => `${x.k} ${String(x.window_start).slice(11, 16)} ${x.n} ${x.s}`);

test('scale-out: window state moves with its partition when a member joins and when one leaves', { timeout: 240_000 }, async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(PARTITIONS, 'scale');
  const group = unique('g');
  const ev = (p: number, offsetMs: number, v: number): string => JSON.stringify({ k: key(p), ts: iso(BASE + offsetMs), v });
  const produceAll = async (events: [number, number][]): Promise<void> => {
    for (let p = 0; p < PARTITIONS; p++) await produce(topic, p, events.map(([t, v]) => ev(p, t, v)), key(p));
  };
  const dir = tempDir('pipec-scale-out-');
  const ckDir = path.join(dir, 'store');
  const env = { PIPEC_KAFKA_BROKERS: brokers };
  const port = 23000 + Math.floor(Math.random() * 2000);
  const member = (id: string) => {
    const ac = new AbortController();
    const base = path.join(dir, id);
    const run = runPlan(plan(topic, group), { dir: base, checkpointDir: ckDir, env, signal: ac.signal, memberId: id, metricsPort: port });
    return { ac, run, out: path.join(base, 'out.ndjson') };
  };
  let recordsA = 0;
  const pollRecordsA = async (): Promise<void> => {
    try {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      recordsA = Number(/pipec_records_in_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    } catch {
      recordsA = 0;
    }
  };
  const mkdirs = async () => {
    const fs = await import('node:fs');
    for (const id of ['a', 'b']) fs.mkdirSync(path.join(dir, id), { recursive: true });
  };
  await mkdirs();

  // 1. Member a alone reads the first half of window 10:00 on every partition.
  await produceAll([[5_000, 1], [10_000, 2], [15_000, 3]]);
  const a = member('a');
  let aDone: RunResult | null = null;
  let bDone: RunResult | null = null;
  const b = { ac: new AbortController(), run: null as Promise<RunResult> | null, out: path.join(dir, 'b', 'out.ndjson') };
  try {
    await waitFor('member a to hold every partition', () => (holders(ckDir).get('a') ?? []).length === PARTITIONS);
    await waitFor('member a to read the first 12 records', async () => {
      await pollRecordsA();
      return recordsA === 3 * PARTITIONS;
    });

    // 2. Member b joins: the group splits the partitions, with their open windows.
    b.run = runPlan(plan(topic, group), { dir: path.join(dir, 'b'), checkpointDir: ckDir, env, signal: b.ac.signal, memberId: 'b' });
    await waitFor('both members to hold partitions', () => {
      const h = holders(ckDir);
      const ha = h.get('a') ?? [];
      const hb = h.get('b') ?? [];
      return ha.length > 0 && hb.length > 0 && ha.length + hb.length === PARTITIONS;
    });
    const moved = holders(ckDir).get('b')!;

    // 3. The second half of window 10:00, then 10:01:30 closes it on every partition.
    await produceAll([[40_000, 10], [50_000, 20], [90_000, 100]]);
    await waitFor('window 10:00 of every key', () => [...rowsOf(a.out), ...rowsOf(b.out)].filter((r) => r.includes(' 10:00 ')).length >= PARTITIONS);
    const bFirst = rowsOf(b.out).filter((r) => r.includes(' 10:00 '));
    assert.equal(bFirst.length, moved.length, `member b finished the windows of the partitions it took (${moved.join(', ')})`);

    // 4. Member a stops: b takes its partitions with their open windows (10:01 holds a's 10:01:30 event).
    a.ac.abort();
    aDone = await a.run;
    assert.equal(aDone.exitCode, 0, aDone.stderr);
    await waitFor('member b to hold every partition', () => (holders(ckDir).get('b') ?? []).length === PARTITIONS);
    await produceAll([[100_000, 1000], [150_000, 1]]);
    await waitFor('window 10:01 of every key', () => [...rowsOf(a.out), ...rowsOf(b.out)].filter((r) => r.includes(' 10:01 ')).length >= PARTITIONS);
  } finally {
    a.ac.abort();
    b.ac.abort();
    aDone ??= await a.run;
    if (b.run) bDone = await b.run;
  }
  assert.equal(bDone!.exitCode, 0, bDone!.stderr);

  // Every key's windows once, whole: 10:00 holds 1+2+3+10+20 over 5 events, 10:01 holds 100+1000.
  const expected = Array.from({ length: PARTITIONS }, (_, p) => [`${key(p)} 10:00 5 36`, `${key(p)} 10:01 2 1100`]).flat().sort();
  const all = [...rowsOf(a.out), ...rowsOf(b.out)].sort();
  assert.deepEqual(all, expected);
  // After a left, only b emitted.
  assert.equal(rowsOf(a.out).filter((r) => r.includes(' 10:01 ')).length, 0);
});
