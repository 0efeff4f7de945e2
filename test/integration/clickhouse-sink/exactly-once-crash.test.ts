// Exactly-once into modern ClickHouse (chdb 26.x behind chdb_http.py) across real crashes: a
// pipeline (datagen → clickhouse sink, delivery = 'exactly-once', many checkpoints) runs in a
// child process that the sink's test hook SIGKILLs while it publishes its second interval —
// before any insert, after the first batch landed but before it was recorded, after every batch
// landed — and is then run again from its checkpoint. The table must hold every id exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { runSpecChild } from '../runtime-iceberg/helpers.ts';
import { chCommand, chQuery, startChdbServer } from './harness.ts';

const ROWS = 2000;
/** Rows per insert: the control below checks that at most this many are stored twice. */
const BATCH = 50;

/** Datagen ids 0..ROWS-1, throttled so the run spans many 100 ms checkpoints. */
const spec = `
PIPELINE ch_eos WITH (checkpoint_interval = '100 ms');
CREATE SOURCE ticks (
  id BIGINT NOT NULL,
  ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  connector = 'datagen', total_rows = ${ROWS}, rows_per_second = 1000,
  fields.id.kind = 'sequence', fields.ts.kind = 'sequence', fields.ts.min = '2024-01-01 00:00:00', fields.ts.step = '10 ms'
);
CREATE SINK out FROM ticks WITH (connector = 'clickhouse', url = '\${CH_URL}', table = 'default.ticks', delivery = 'exactly-once', batch_size = '${BATCH}');
`;

/** `serverRestart`: ClickHouse restarts too (its deduplication log must survive on disk). */
async function crashAndRestart(point: 'before-inserts' | 'after-insert' | 'after-inserts', serverRestart = false): Promise<void> {
  const dir = tempDir('pipec-ch-crash-');
  let srv = await startChdbServer(path.join(dir, 'data'));
  try {
    await chCommand(srv.url, 'CREATE TABLE default.ticks (id Int64, ts DateTime64(3)) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 1000');
    const ck = path.join(dir, 'ck');
    const first = await runSpecChild(dir, spec, { CH_URL: srv.url, PIPEC_TEST_CLICKHOUSE_CRASH: `${point}@2` }, ck);
    assert.equal(first.signal, 'SIGKILL', `the crash hook fired (exit ${first.exitCode}): ${first.stderr}`);
    assert.ok(existsSync(path.join(ck, 'checkpoint.json')), 'a checkpoint was durable before the crash');
    const count = async (): Promise<{ n: number; u: number; s: number; min: number; max: number }> => {
      const [r] = await chQuery<Record<string, number | string>>(srv.url, 'SELECT count() AS n, uniqExact(id) AS u, sum(id) AS s, min(id) AS min, max(id) AS max FROM default.ticks');
      return { n: Number(r!.n), u: Number(r!.u), s: Number(r!.s), min: Number(r!.min), max: Number(r!.max) };
    };
    const atCrash = await count();
    assert.equal(atCrash.n, atCrash.u, `no duplicate before the restart: ${JSON.stringify(atCrash)}`);
    assert.ok(atCrash.n > 0 && atCrash.n < ROWS, `the crash left a partial table (${atCrash.n} rows)`);
    if (serverRestart) {
      await srv.close();
      srv = await startChdbServer(path.join(dir, 'data'), srv.port);
    }
    const restart = await runSpecChild(dir, spec, { CH_URL: srv.url }, ck);
    assert.equal(restart.exitCode, 0, restart.stderr);
    assert.doesNotMatch(restart.stderr, /degrades|cannot check/, 'a deduplicating table on a modern server');
    // Ids 0..ROWS-1 once each: sum by formula.
    assert.deepEqual(await count(), { n: ROWS, u: ROWS, s: (ROWS * (ROWS - 1)) / 2, min: 0, max: ROWS - 1 });
  } finally {
    await srv.close();
  }
}

test('crash after the checkpoint, before the inserts: the restart inserts the interval once', { timeout: 60_000 }, async () => {
  await crashAndRestart('before-inserts');
});

test('crash after the first insert landed, before it was recorded (ClickHouse restarted too): its token drops the re-insert', { timeout: 60_000 }, async () => {
  await crashAndRestart('after-insert', true);
});

test('crash after every insert landed, before the next checkpoint: the restart stores nothing twice', { timeout: 60_000 }, async () => {
  await crashAndRestart('after-inserts');
});

test('control: the same crash into a table without a deduplication window stores that one batch twice, and the restart says so', { timeout: 60_000 }, async () => {
  const dir = tempDir('pipec-ch-crash-ctl-');
  const srv = await startChdbServer(path.join(dir, 'data'));
  try {
    await chCommand(srv.url, 'CREATE TABLE default.ticks (id Int64, ts DateTime64(3)) ENGINE = MergeTree ORDER BY id');
    const ck = path.join(dir, 'ck');
    const first = await runSpecChild(dir, spec, { CH_URL: srv.url, PIPEC_TEST_CLICKHOUSE_CRASH: 'after-insert@2' }, ck);
    assert.equal(first.signal, 'SIGKILL', first.stderr);
    const restart = await runSpecChild(dir, spec, { CH_URL: srv.url }, ck);
    assert.equal(restart.exitCode, 0, restart.stderr);
    assert.match(restart.stderr, /delivery = 'exactly-once' degrades to at-least-once: default\.ticks is a MergeTree without non_replicated_deduplication_window/);
    const [r] = await chQuery<Record<string, number | string>>(srv.url, 'SELECT count() AS n, uniqExact(id) AS u FROM default.ticks');
    assert.equal(Number(r!.u), ROWS, 'no row lost');
    const twice = Number(r!.n) - ROWS;
    assert.ok(twice > 0 && twice <= BATCH, `only the batch in flight at the crash is stored twice (${twice} rows)`);
  } finally {
    await srv.close();
  }
});
