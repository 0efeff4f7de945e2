// GROUP BY ... HAVING ... EMIT CHANGES into the keyed sinks, end to end (real front end,
// generated module, runner): when a group stops passing HAVING, GROUP BY emits '-U' (the old
// row, which passes) and '+U' (the new row, which the filter drops). The sink must then delete
// the key — a Kafka tombstone, a ClickHouse `_is_deleted = 1` version — as Flink's upsert
// sinks and our Iceberg sink do, while groups still passing keep their latest row. One group
// leaves mid-stream (its '-U' is followed by another key's update), one with the very last
// input row (its '-U' is still held when the final checkpoint commits the sink).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { createTopic, kafkaEnv, readTopic } from '../kafka/helpers.ts';
import { chCommand, chQuery, startChdbServer, unique } from '../clickhouse-sink/harness.ts';

/**
 * The input, with what GROUP BY k HAVING COUNT(*) < 3 emits for it (n = COUNT(*), s = SUM(v)),
 * worked by hand:
 *   a,1  +I a(1,1)
 *   b,2  +I b(1,2)
 *   a,3  -U a(1,1)  +U a(2,4)
 *   c,5  +I c(1,5)
 *   a,4  -U a(2,4)  [+U a(3,8) filtered]          → a leaves the result
 *   b,5  -U b(1,2)  +U b(2,7)
 *   a,6  [-U a(3,8) +U a(4,14) both filtered]
 *   c,1  -U c(1,5)  +U c(2,6)
 *   d,9  +I d(1,9)
 *   c,2  -U c(2,6)  [+U c(3,8) filtered]          → c leaves, with the last row
 * End state: a and c deleted; b(2,7), d(1,9).
 */
const EVENTS: [string, number][] = [
  ['a', 1],
  ['b', 2],
  ['a', 3],
  ['c', 5],
  ['a', 4],
  ['b', 5],
  ['a', 6],
  ['c', 1],
  ['d', 9],
  ['c', 2],
];

const spec = (sink: string): string => `PIPELINE having_upsert WITH (checkpoint_interval = '1 s');
CREATE SOURCE t (k STRING NOT NULL, v INT) WITH (connector = 'file', path = 'events.ndjson');
CREATE VIEW g WITH (state_ttl = '1 d') AS
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY k HAVING COUNT(*) < 3 EMIT CHANGES;
CREATE SINK out FROM g WITH (${sink});
`;

/** Compiles and runs the pipeline to the end of its bounded input (with a checkpoint dir). */
async function run(sink: string, env: Record<string, string>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-having-'));
  writeFileSync(path.join(dir, 'events.ndjson'), EVENTS.map(([k, v]) => JSON.stringify({ k, v })).join('\n') + '\n');
  writeFileSync(path.join(dir, 'p.pipe.sql'), spec(sink));
  const c = await compileFile('p.pipe.sql', { cwd: dir, env: { get: (n) => env[n] } });
  const errors = c.diagnostics.items.filter((d) => d.severity === 'error' || d.code === 'runtime-unsupported');
  assert.deepEqual(errors.map((d) => d.message), []);
  assert.ok(c.plan);
  // What this test is about: the sink is keyed by the group key and receives the '-U' rows.
  assert.deepEqual(
    c.plan.sinks.map((s) => [s.changelog, s.upsertKey]),
    [['upsert', ['k']]],
  );
  let err = '';
  const r = await runPipeline(c.plan, { baseDir: dir, checkpointDir: path.join(dir, 'ck'), env, handleSignals: false, stdout: () => {}, stderr: (t) => (err += t) });
  assert.equal(r.exitCode, 0, err);
}

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

for (const delivery of ['at-least-once', 'exactly-once'] as const) {
  test(`HAVING over EMIT CHANGES → Kafka (${delivery}): a group that stops passing gets a tombstone`, async () => {
    const { brokers } = await kafkaEnv();
    // One partition: the whole topic in write order.
    const topic = await createTopic(1, 'having');
    await run(`connector = 'kafka', topic = '${topic}', brokers = '\${PIPEC_KAFKA_BROKERS}', format = 'json', delivery = '${delivery}'`, { PIPEC_KAFKA_BROKERS: brokers });
    const got = await readTopic(topic, 'read_committed', { expect: 9 });
    const msg = (key: string, value: { n: number; s: number } | null): [string, unknown] => [key, value === null ? null : { k: key, ...value }];
    assert.deepEqual(
      got.map((m) => [m.key, m.value === null ? null : JSON.parse(m.value)]),
      [
        msg('a', { n: 1, s: 1 }),
        msg('b', { n: 1, s: 2 }),
        msg('a', { n: 2, s: 4 }),
        msg('c', { n: 1, s: 5 }),
        // a's '-U' is followed by b's: a's key is deleted, then b's update is written.
        msg('a', null),
        msg('b', { n: 2, s: 7 }),
        msg('c', { n: 2, s: 6 }),
        msg('d', { n: 1, s: 9 }),
        // c's '-U' came last: the final checkpoint's commit turned it into a tombstone.
        msg('c', null),
      ],
    );
    // What a compacted topic (or an upsert-kafka reader) ends with.
    const latest = new Map<string, unknown>();
    for (const m of got) latest.set(m.key!, m.value === null ? null : JSON.parse(m.value));
    assert.deepEqual(Object.fromEntries(latest), { a: null, b: { k: 'b', n: 2, s: 7 }, c: null, d: { k: 'd', n: 1, s: 9 } });
  });
}

test('HAVING over EMIT CHANGES → ClickHouse (chdb 26.x, both deliveries): a group that stops passing is flagged _is_deleted', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-having-ch-'));
  const srv = await startChdbServer(path.join(dir, 'data'));
  try {
    for (const delivery of ['at-least-once', 'exactly-once']) {
      const table = unique('having');
      await chCommand(
        srv.url,
        `CREATE TABLE default.${table} (k String, n UInt64, s Nullable(Int64), _version UInt64, _is_deleted UInt8) ENGINE = ReplacingMergeTree(_version) ORDER BY k SETTINGS non_replicated_deduplication_window = 100`,
      );
      await run(`connector = 'clickhouse', url = '\${CH_URL}', table = 'default.${table}', delivery = '${delivery}'`, { CH_URL: srv.url });
      const rows = await chQuery<Record<string, unknown>>(srv.url, `SELECT k, n, s, _is_deleted AS d FROM default.${table} FINAL ORDER BY k`);
      // Each key's last version: a and c are their last passing rows, flagged deleted.
      assert.deepEqual(
        rows.map((r) => [r.k, Number(r.n), Number(r.s), Number(r.d)]),
        [
          ['a', 2, 4, 1],
          ['b', 2, 7, 0],
          ['c', 2, 6, 1],
          ['d', 1, 9, 0],
        ],
        delivery,
      );
      const live = await chQuery<Record<string, unknown>>(srv.url, `SELECT k, n, s FROM (SELECT * FROM default.${table} FINAL) WHERE _is_deleted = 0 ORDER BY k`);
      assert.deepEqual(
        live.map((r) => [r.k, Number(r.n), Number(r.s)]),
        [
          ['b', 2, 7],
          ['d', 1, 9],
        ],
        delivery,
      );
    }
  } finally {
    await srv.close();
  }
});
