// The broker stops and starts again while a whole pipeline runs (test/services/services
// down|up kafka, as the source-level test in test/integration/kafka/ does): Kafka topic →
// TUMBLE SUM/COUNT by key → an exactly-once Kafka sink, plus every raw record to a file.
// Half the events are in before the outage, half after; the run must end with every record
// in the file once and every window row once for a read_committed consumer. This restarts
// the shared test broker: Kafka tests running at the same moment see a short outage too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { repoRoot } from '../../support/venv.ts';
import { readServicesEnv } from '../../support/services.ts';
import { createTopic, kafkaEnv, readTopic, unique } from '../kafka/helpers.ts';
import { caughtUp, expectedWindows, makeEvents, produceEvents, readCheckpointView, sentinels, sleep, tsText, waitFor, windowRow } from './harness.ts';

const services = path.join(repoRoot, 'test', 'services', 'services');
const PARTITIONS = 3;

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

test('broker stop/start mid-run: no record lost or doubled in the file, every window row once in the exactly-once topic', { timeout: 300_000 }, async (t) => {
  const { brokers } = await kafkaEnv();
  const input = await createTopic(PARTITIONS, 'bounce-in');
  const output = await createTopic(1, 'bounce-out');
  const events = makeEvents(2000, 9, PARTITIONS, 1000, 3);
  const tail = sentinels(events, PARTITIONS);
  const want = expectedWindows(events);
  const half = events.length / 2;
  await produceEvents(input, events.slice(0, half), 250);

  const dir = tempDir('pipec-bounce-');
  const ck = path.join(dir, 'ck');
  const pipeline = `bounce_${process.pid}_${Date.now()}`;
  writeFileSync(
    path.join(dir, 'spec.pipe.sql'),
    `
PIPELINE ${pipeline} WITH (checkpoint_interval = '500 ms');
CREATE SOURCE events (
  k      STRING NOT NULL,
  amount BIGINT NOT NULL,
  ts     TIMESTAMP(3) NOT NULL,
  p      INT METADATA FROM 'partition',
  o      BIGINT METADATA FROM 'offset',
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (connector = 'kafka', topic = '${input}', brokers = '\${PIPEC_KAFKA_BROKERS}', group_id = '${unique('g')}', format = 'json', key = 'k', startup = 'earliest');
CREATE VIEW per_minute AS
SELECT k, window_start, window_end, SUM(amount) AS total, COUNT(*) AS n
FROM TUMBLE(events, ts, INTERVAL '1' MINUTE)
GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;
CREATE SINK out FROM per_minute WITH (connector = 'kafka', topic = '${output}', brokers = '\${PIPEC_KAFKA_BROKERS}', format = 'json', key = 'k', delivery = 'exactly-once');
CREATE SINK raw AS SELECT k, amount, ts, p, o FROM events WITH (connector = 'file', path = 'raw.ndjson', format = 'ndjson');
`,
  );
  const compiled = await compileFile('spec.pipe.sql', { cwd: dir, env: { get: (n) => (n === 'PIPEC_KAFKA_BROKERS' ? brokers : process.env[n]) } });
  assert.deepEqual(
    compiled.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message),
    [],
  );
  const ac = new AbortController();
  let stderr = '';
  const run = runPipeline(compiled.plan!, {
    baseDir: dir,
    checkpointDir: ck,
    env: { PIPEC_KAFKA_BROKERS: brokers },
    signal: ac.signal,
    handleSignals: false,
    stdout: () => {},
    stderr: (t) => (stderr += t),
  });
  // A run that fails ends the waiting early; its stderr is in the exit-code assertion.
  let ended = false;
  void run.then(() => (ended = true));
  let brokerDown = false;
  try {
    await waitFor('the first half to be checkpointed', async () => ended || (await caughtUp(ck, input)), 60_000, 200);
    execFileSync('bash', [services, 'down', 'kafka'], { stdio: 'pipe' });
    brokerDown = true;
    // The run keeps going (checkpoints, transactions, fetches all retrying) without a broker.
    const seqDown = readCheckpointView(ck)!.seq;
    await sleep(4000);
    execFileSync('bash', [services, 'up', 'kafka'], { stdio: 'pipe' });
    brokerDown = false;
    assert.equal(readServicesEnv().PIPEC_KAFKA_BROKERS, brokers, 'the broker came back on the same address');
    await produceEvents(input, [...events.slice(half), ...tail], 250);
    await waitFor('the whole topic to be checkpointed', async () => ended || ((readCheckpointView(ck)?.seq ?? 0) > seqDown && (await caughtUp(ck, input))), 180_000, 250);
  } finally {
    if (brokerDown) execFileSync('bash', [services, 'up', 'kafka'], { stdio: 'pipe' });
    ac.abort();
  }
  assert.equal((await run).exitCode, 0, stderr);
  t.diagnostic(`the run said: ${stderr.trim() || '(nothing)'}`);

  // Every record once, by its coordinates (offsets follow production order per partition).
  const next = new Array<number>(PARTITIONS).fill(0);
  const wantRaw = [...events, ...tail].map((e) => `${e.k}|${e.amount}|${tsText(e.ts)}|${e.partition}|${next[e.partition]!++}`).sort();
  const raw = readNdjson(path.join(dir, 'raw.ndjson')).map((r) => `${r.k}|${r.amount}|${r.ts}|${r.p}|${r.o}`).sort();
  assert.equal(raw.length, wantRaw.length, `${raw.length} raw rows for ${wantRaw.length} records`);
  assert.deepEqual(raw, wantRaw);

  const got = await readTopic(output, 'read_committed', { expect: want.length, settleMs: 3000 });
  const rows = got.map((m) => windowRow(JSON.parse(m.value!) as Record<string, unknown>)).sort();
  assert.equal(rows.length, want.length, `${rows.length} window rows for ${want.length} windows`);
  assert.deepEqual(rows, want);
});
