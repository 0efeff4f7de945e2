// A Kafka topic where 1% of the records are garbage — not JSON, JSON that is not an object,
// a wrong type, a NULL watermark column, poison (a 20,000-deep array, 1e17 and February 30
// for a timestamp) — run through a whole pipeline (spec compiled by the
// real front end, run by the runtime): every garbage record must end in the dead-letter file
// once, with its topic/partition/offset, and every good record must reach the output once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { createTopic, kafkaEnv, unique } from '../kafka/helpers.ts';
import { makeEvents, produceEvents, seeded, tsText, waitFor, type Event } from './harness.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const PARTITIONS = 3;
const N = 3000;

/** What a garbage record looks like, and the dead-letter reason it must get. */
const GARBAGE: { raw: (e: Event) => string; reason: RegExp }[] = [
  { raw: (e) => `{"k": "${e.k}", "amount": ${e.amount}, "ts": "${tsText(e.ts)}"`, reason: /json|unexpected|unterminated|end/i },
  { raw: (e) => `[${JSON.stringify(e.k)}, ${e.amount}]`, reason: /object/i },
  { raw: (e) => JSON.stringify({ k: e.k, amount: 'lots', ts: tsText(e.ts) }), reason: /amount/ },
  { raw: (e) => JSON.stringify({ k: e.k, amount: e.amount, ts: null }), reason: /watermark column ts is NULL/ },
  // Poison records (issue 12): each used to stop the run, so the consumer crash-looped at its offset.
  { raw: (e) => `{"k": "${e.k}", "amount": ${'['.repeat(20000)}${']'.repeat(20000)}, "ts": "${tsText(e.ts)}"}`, reason: /^column amount: expected BIGINT.*nested too deeply/ },
  { raw: (e) => JSON.stringify({ k: e.k, amount: e.amount, ts: 1e17 }), reason: /^column ts: expected TIMESTAMP.*got 100000000000000000$/ },
  { raw: (e) => JSON.stringify({ k: e.k, amount: e.amount, ts: '2026-02-30 00:00:00' }), reason: /^column ts: expected TIMESTAMP.*got "2026-02-30 00:00:00"$/ },
];

test('1% garbage records: each one dead-lettered once with topic/partition/offset, every good record processed once', { timeout: 120_000 }, async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(PARTITIONS, 'garbage');
  const events = makeEvents(N, 10, PARTITIONS, 200, 5);
  // 1%: 30 distinct positions, seeded; kinds in turn.
  const rnd = seeded(99);
  const bad = new Map<number, number>();
  while (bad.size < N / 100) bad.set(Math.floor(rnd() * N), bad.size % GARBAGE.length);
  await produceEvents(topic, events, 500, 0, (e, i) => (bad.has(i) ? GARBAGE[bad.get(i)!]!.raw(e) : JSON.stringify({ k: e.k, amount: e.amount, ts: tsText(e.ts) })));

  // Offsets per partition follow production order in a fresh topic.
  const next = new Array<number>(PARTITIONS).fill(0);
  const coords = events.map((e) => ({ partition: e.partition, offset: next[e.partition]!++ }));
  const wantRows = events.flatMap((e, i) => (bad.has(i) ? [] : [`${e.k}|${e.amount}|${tsText(e.ts)}|${coords[i]!.partition}|${coords[i]!.offset}`])).sort();
  const wantDead = [...bad].map(([i, kind]) => ({ at: `${coords[i]!.partition}|${coords[i]!.offset}`, kind })).sort((a, b) => a.at.localeCompare(b.at));

  const dir = tempDir('pipec-garbage-');
  const pipeline = `garbage_${process.pid}_${Date.now()}`;
  writeFileSync(
    path.join(dir, 'spec.pipe.sql'),
    `
PIPELINE ${pipeline} WITH (checkpoint_interval = '500 ms');
CREATE SOURCE events (
  k      STRING NOT NULL,
  amount BIGINT NOT NULL,
  ts     TIMESTAMP(3),
  p      INT METADATA FROM 'partition',
  o      BIGINT METADATA FROM 'offset',
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (connector = 'kafka', topic = '${topic}', brokers = '\${PIPEC_KAFKA_BROKERS}', group_id = '${unique('g')}', format = 'json', startup = 'earliest');
CREATE SINK out AS SELECT k, amount, ts, p, o FROM events
WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`,
  );
  const compiled = await compileFile('spec.pipe.sql', { cwd: dir, env: { get: (n) => (n === 'PIPEC_KAFKA_BROKERS' ? brokers : process.env[n]) } });
  assert.deepEqual(
    compiled.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message),
    [],
  );
  const out = path.join(dir, 'out.ndjson');
  const deadFile = path.join(dir, `${pipeline}.dead-letters.ndjson`);
  const ac = new AbortController();
  let stderr = '';
  const run = runPipeline(compiled.plan!, {
    baseDir: dir,
    checkpointDir: path.join(dir, 'ck'),
    env: { PIPEC_KAFKA_BROKERS: brokers },
    signal: ac.signal,
    handleSignals: false,
    stdout: () => {},
    stderr: (t) => (stderr += t),
  });
  try {
    await waitFor('every record to come out', () => readNdjson(out).length >= wantRows.length && readNdjson(deadFile).length >= wantDead.length, 60_000, 200);
    // Anything extra would arrive in this time.
    await new Promise((r) => setTimeout(r, 1500));
  } finally {
    ac.abort();
  }
  assert.equal((await run).exitCode, 0, stderr);

  const rows = readNdjson(out).map((r) => `${r.k}|${r.amount}|${r.ts}|${r.p}|${r.o}`).sort();
  assert.equal(rows.length, wantRows.length);
  assert.deepEqual(rows, wantRows);

  assert.ok(existsSync(deadFile));
  const dead = readNdjson(deadFile).sort((a, b) => `${a.partition}|${a.offset}`.localeCompare(`${b.partition}|${b.offset}`));
  assert.equal(dead.length, wantDead.length, `${dead.length} dead letters for ${wantDead.length} garbage records`);
  dead.forEach((d, i) => {
    const w = wantDead[i]!;
    assert.equal(`${d.partition}|${d.offset}`, w.at, `dead letter ${i}: coordinates`);
    assert.equal(d.source, 'events');
    assert.equal(d.topic, topic);
    assert.match(String(d.reason), GARBAGE[w.kind]!.reason, `dead letter at ${w.at}: ${String(d.reason)}`);
  });
});
