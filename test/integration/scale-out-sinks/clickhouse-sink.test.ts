// Scale-out of the ClickHouse sink (modern ClickHouse: chdb behind its HTTP endpoint,
// ../clickhouse-sink/chdb_http.py, through the sink's real HTTP transport): two members of one
// pipeline insert batches with the same sequence number, the same source positions and the
// same rows into one deduplicating table. The member id in the deduplication token keeps the
// table from dropping one member's batch as the other's duplicate — at-least-once batch
// tokens and exactly-once interval tokens alike — while a replay by the same member is still
// dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { clickhouseModule } from '../../../targets/runtime/lib/modules/clickhouse.ts';
import type { ClickHouseSink } from '../../../targets/runtime/lib/clickhouse/clickhouse-sink.ts';
import type { ClickHouseIntervalProgress } from '../../../targets/runtime/lib/clickhouse/exactly-once.ts';
import { chCommand, chQuery, col, sinkDef, startChdbServer, type ChdbServer } from '../clickhouse-sink/harness.ts';
import { memberContext } from './context.ts';

const cols = [col('id', 'bigint'), col('note', 'string')];
/** A deduplicating plain MergeTree (the window makes it remember the last 100 tokens). */
const DDL = (table: string): string => `CREATE TABLE default.${table} (id UInt64, note String) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`;
/** Both members write exactly these rows. */
const ROWS = Array.from({ length: 300 }, (_, i) => [i + 1, 'same']);

function memberSink(srv: ChdbServer, table: string, dir: string, member: string | null, options: Record<string, string>): ClickHouseSink {
  // Equal positions for both members: the token cannot tell them apart by what they read.
  const ctx = memberContext({ pipeline: 'shop', member, checkpointDir: path.join(dir, 'ck', member ?? 'single'), positions: () => ({ orders: { offset: 300 } }) });
  const def = sinkDef('out', { url: srv.url, table: `default.${table}`, batch_size: '1000', flush_interval: '1 s', ...options }, cols);
  return clickhouseModule.sinks!.clickhouse!(def, ctx) as ClickHouseSink;
}

async function count(srv: ChdbServer, table: string): Promise<{ n: number; s: number }> {
  const [r] = await chQuery<Record<string, string | number>>(srv.url, `SELECT count() AS n, sum(id) AS s FROM default.${table}`);
  return { n: Number(r!.n), s: Number(r!.s) };
}

/** Sum of ids 1..300, by formula. */
const SUM = (300 * 301) / 2;

test('at-least-once: two members\' equal batches (seq 1, same positions, same rows) both land; the same member sending its batch again is dropped', { timeout: 90_000 }, async (t) => {
  const dir = tempDir('pipec-scale-ch-');
  const srv = await startChdbServer(path.join(dir, 'data'));
  t.after(() => srv.close());
  await chCommand(srv.url, DDL('alo'));
  for (const member of ['m0', 'm1']) {
    const s = memberSink(srv, 'alo', dir, member, {});
    s.open(null);
    for (const r of ROWS) s.write(r);
    await s.commit();
    await s.close();
    assert.equal(s.dedupActive, true, 'inserts carry a token');
  }
  assert.deepEqual(await count(srv, 'alo'), { n: 600, s: 2 * SUM }, "neither member's batch was taken for the other's");
  // Member m0 started again without a checkpoint: batch 1 again, the same token.
  const again = memberSink(srv, 'alo', dir, 'm0', {});
  again.open(null);
  for (const r of ROWS) again.write(r);
  await again.commit();
  await again.close();
  assert.equal(await srv.inserts(), 3, 'the batch was sent a third time');
  assert.deepEqual(await count(srv, 'alo'), { n: 600, s: 2 * SUM }, "and dropped: it was m0's own");
});

test('exactly-once: members restored from one checkpoint (same run, same seq) both land their equal interval; a member re-inserting its interval after a crash is dropped', { timeout: 90_000 }, async (t) => {
  const dir = tempDir('pipec-scale-ch-');
  const srv = await startChdbServer(path.join(dir, 'data'));
  t.after(() => srv.close());
  await chCommand(srv.url, DDL('eos'));
  // What both members resume from: one checkpoint's progress (its `run` is in every token).
  const restored: ClickHouseIntervalProgress = { delivery: 'exactly-once', run: 'restored-run', seq: 3, file: null, rows: 0, batchSize: 1000, positions: 'null' };
  const sinks = ['m0', 'm1'].map((m) => memberSink(srv, 'eos', dir, m, { delivery: 'exactly-once' }));
  const progress: ClickHouseIntervalProgress[] = [];
  for (const s of sinks) {
    s.open(restored);
    for (const r of ROWS) s.write(r);
    progress.push((await s.commit()) as ClickHouseIntervalProgress);
  }
  assert.deepEqual(progress.map((p) => [p.run, p.seq, p.rows, p.positions]), [
    ['restored-run', 4, 300, '{"orders":{"offset":300}}'],
    ['restored-run', 4, 300, '{"orders":{"offset":300}}'],
  ]);
  // Keep m0's lines: a crash after the insert but before it was recorded leaves them.
  const file = path.join(dir, 'ck', 'm0', progress[0]!.file!);
  copyFileSync(file, file + '.kept');
  await Promise.all(sinks.map((s) => s.afterCheckpoint!()));
  await Promise.all(sinks.map((s) => s.close()));
  assert.equal(await srv.inserts(), 2);
  assert.deepEqual(await count(srv, 'eos'), { n: 600, s: 2 * SUM }, 'both members\' intervals are in the table');

  copyFileSync(file + '.kept', file);
  rmSync(file + '.kept');
  rmSync(file.replace(/\.ndjson$/, '.done'));
  const again = memberSink(srv, 'eos', dir, 'm0', { delivery: 'exactly-once' });
  again.open(progress[0]);
  await again.commit(); // waits for the recovery
  await again.close();
  assert.equal(await srv.inserts(), 3, 'the recovery inserted the interval again');
  assert.deepEqual(await count(srv, 'eos'), { n: 600, s: 2 * SUM }, "under m0's token: dropped");
});
