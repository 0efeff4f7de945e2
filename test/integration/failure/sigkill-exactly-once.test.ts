// Exactly-once through crashes, end to end: a live Kafka topic (4 partitions, 12 keys, event
// times over ~40 one-minute windows) → TUMBLE SUM/COUNT by key → an exactly-once Kafka sink
// and an Iceberg table. The bundled pipeline runs as a child process with a 300 ms checkpoint
// interval and is SIGKILLed at seeded random moments — right after a checkpoint file appears
// (before the transaction that publishes its interval), right after the output topic grew
// (after it), or anywhere — and restarted from its checkpoint each time; a last incarnation
// runs until its checkpoint covers the whole topic and is stopped with SIGTERM. A
// read_committed consumer, and pyiceberg reading the table, must then see every expected
// window row exactly once (expected rows computed here from the produced events).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { createTopic, kafkaEnv, readTopic } from '../kafka/helpers.ts';
import { readFsTable } from '../runtime-iceberg/helpers.ts';
import {
  bundleSpec,
  caughtUp,
  endOffsets,
  expectedWindows,
  makeEvents,
  produceEvents,
  readCheckpointView,
  seeded,
  sentinels,
  sleep,
  startPipeline,
  waitFor,
  windowRow,
} from './harness.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const PARTITIONS = 4;

function spec(name: string, input: string, output: string): string {
  return `
PIPELINE ${name} WITH (checkpoint_interval = '300 ms');

CREATE SOURCE events (
  k      STRING NOT NULL,
  amount BIGINT NOT NULL,
  ts     TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  connector = 'kafka', topic = '${input}', brokers = '\${PIPEC_KAFKA_BROKERS}',
  -- Each incarnation joins a group of its own: a SIGKILLed member would hold the shared
  -- group's partitions until its 30 s session expires. Positions come from the checkpoint.
  group_id = '\${FAIL_GROUP}',
  format = 'json', key = 'k', startup = 'earliest'
);

CREATE VIEW per_minute AS
SELECT k, window_start, window_end, SUM(amount) AS total, COUNT(*) AS n
FROM TUMBLE(events, ts, INTERVAL '1' MINUTE)
GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK out FROM per_minute WITH (
  connector = 'kafka', topic = '${output}', brokers = '\${PIPEC_KAFKA_BROKERS}',
  format = 'json', key = 'k', delivery = 'exactly-once'
);

CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '\${WH}');
CREATE SINK lake_out FROM per_minute WITH (connector = 'iceberg', catalog = 'lake', table = 'failure.per_minute');
`;
}

/** The interval the checkpoint recorded for the Kafka sink, and the last one the marker says was published. */
async function intervalState(ck: string, pipeline: string, output: string): Promise<{ recorded: number; published: number }> {
  const { admin } = await kafkaEnv();
  const v = readCheckpointView(ck);
  const progress = Object.values(v?.sinks ?? {}).find((s): s is { seq: number } => typeof (s as { seq?: unknown } | null)?.seq === 'number');
  const got = await admin.fetchOffsets({ groupId: `pipec-${pipeline}-out-commits`, topics: [output] });
  return { recorded: progress?.seq ?? 0, published: Number(got[0]?.partitions.find((p) => p.partition === 0)?.offset ?? -1) };
}

for (const seed of [11, 29]) {
  test(`SIGKILL at seeded random moments (seed ${seed}), restart from the checkpoint: every window row once for read_committed and in the Iceberg table`, { timeout: 170_000 }, async (t) => {
    const { brokers } = await kafkaEnv();
    const rnd = seeded(seed);
    const input = await createTopic(PARTITIONS, 'kill-in');
    const output = await createTopic(2, 'kill-out');
    const pipeline = `kill_${seed}_${process.pid}_${Date.now()}`;
    const dir = tempDir('pipec-kill-');
    const ck = path.join(dir, 'ck');
    const wh = path.join(dir, 'warehouse');
    const { bundle } = await bundleSpec(dir, spec(pipeline, input, output), { PIPEC_KAFKA_BROKERS: brokers, FAIL_GROUP: 'compile-time', WH: wh });

    const events = makeEvents(3000, 12, PARTITIONS, 800, seed);
    const want = expectedWindows(events);
    // A live topic: 60 events every 200 ms (~10 s), so the kills land while rows flow.
    const feeding = produceEvents(input, [...events, ...sentinels(events, PARTITIONS)], 60, 200);

    let incarnation = 0;
    const env = (): Record<string, string> => ({ PIPEC_KAFKA_BROKERS: brokers, WH: wh, FAIL_GROUP: `${pipeline}-g${incarnation++}` });
    let kills = 0;
    let betweenCheckpointAndPublish = 0;
    const published = async (): Promise<number> => Object.values(await endOffsets(output)).reduce((a, b) => a + b, 0);
    for (let attempt = 0; attempt < 6; attempt++) {
      const seqAtStart = readCheckpointView(ck)?.seq ?? 0;
      const child = startPipeline(bundle, dir, ck, env());
      // Kill once this incarnation wrote a checkpoint of its own, at one of three moments:
      // - at once: between the checkpoint and the transaction that publishes its interval;
      // - as soon as the output topic grows: just after a transaction committed (a sink that
      //   committed BEFORE its checkpoint would be caught here, before the checkpoint file);
      // - a random moment up to 1.5 checkpoint intervals later.
      await waitFor('a checkpoint of this incarnation', () => child.exited() || (readCheckpointView(ck)?.seq ?? 0) > seqAtStart, 60_000, 5);
      const mode = Math.floor(rnd() * 3);
      if (mode === 1) {
        const before = await published();
        await waitFor('a transaction of this incarnation', async () => child.exited() || (await published()) > before, 30_000, 2);
      } else if (mode === 2) await sleep(Math.floor(rnd() * 450));
      child.kill('SIGKILL');
      const exit = await child.done;
      assert.equal(exit.signal, 'SIGKILL', `incarnation ${attempt} ended by itself: ${exit.stderr}`);
      kills++;
      const s = await intervalState(ck, pipeline, output);
      if (s.recorded > s.published) betweenCheckpointAndPublish++;
    }
    await feeding;

    const seqBefore = readCheckpointView(ck)?.seq ?? 0;
    const last = startPipeline(bundle, dir, ck, env());
    // Its own checkpoint first: by then it has finished any interval the last kill left open
    // and handles SIGTERM (a signal before start-up would just end the process).
    await waitFor('the checkpoint to cover the whole input topic', async () => last.exited() || ((readCheckpointView(ck)?.seq ?? 0) > seqBefore && (await caughtUp(ck, input))), 90_000, 200);
    last.kill('SIGTERM');
    const exit = await last.done;
    assert.deepEqual([exit.code, exit.signal], [143, null], `the last incarnation (128 + SIGTERM after a clean stop): ${exit.stderr}`);
    t.diagnostic(`${kills} kills, ${betweenCheckpointAndPublish} between a checkpoint and its transaction`);

    const got = await readTopic(output, 'read_committed', { expect: want.length, settleMs: 3000 });
    const rows = got.map((m) => windowRow(JSON.parse(m.value!) as Record<string, unknown>)).sort();
    assert.equal(rows.length, want.length, `${rows.length} rows for ${want.length} windows`);
    assert.deepEqual(rows, want);
    assert.ok(
      got.every((m) => m.key === (JSON.parse(m.value!) as { k: string }).k),
      'the message key is the k column',
    );

    const table = await readFsTable(wh, 'failure.per_minute');
    assert.ok(table, 'the Iceberg table exists');
    const iceRows = table.rows.map(windowRow).sort();
    assert.equal(iceRows.length, want.length, `${iceRows.length} Iceberg rows for ${want.length} windows`);
    assert.deepEqual(iceRows, want);
  });
}
