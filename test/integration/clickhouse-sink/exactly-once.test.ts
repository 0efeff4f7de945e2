// The ClickHouse sink's exactly-once delivery against modern ClickHouse (chdb behind its HTTP
// endpoint, chdb_http.py, through the sink's real HTTP transport): rows land only once the
// checkpoint naming their interval is durable; re-opening a sink with the same checkpoint
// progress re-inserts the interval under the same tokens and the table still holds each row
// once (and without a deduplication window it would not — the check can fail); a lost insert
// response is retried under the same token. Crashes of a real pipeline process are in
// exactly-once-crash.test.ts, the Debian 18.16 server in exactly-once-18.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { ClickHouseSink } from '../../../targets/runtime/lib/clickhouse/clickhouse-sink.ts';
import type { ClickHouseIntervalProgress } from '../../../targets/runtime/lib/clickhouse/exactly-once.ts';
import { chCommand, chQuery, col, sinkDef, startChdbServer, type ChdbServer } from './harness.ts';

const cols = [col('id', 'bigint'), col('amount', 'decimal', { precision: 18, scale: 2 }), col('ts', 'timestamp')];
/** Row i: amount = i cents, ts = 2024-01-01 + i seconds + 7 ms. */
const row = (i: number): unknown[] => [i, i, Date.UTC(2024, 0, 1) + i * 1000 + 7];
const DDL = (table: string, window: boolean): string =>
  `CREATE TABLE default.${table} (id UInt64, amount Decimal(18, 2), ts DateTime64(3)) ENGINE = MergeTree ORDER BY id${window ? ' SETTINGS non_replicated_deduplication_window = 100' : ''}`;

async function agg(srv: ChdbServer, table: string): Promise<{ n: number; u: number; s: number; cents: number }> {
  const [r] = await chQuery<Record<string, string | number>>(srv.url, `SELECT count() AS n, uniqExact(id) AS u, sum(id) AS s, toInt64(sum(amount) * 100) AS cents FROM default.${table}`);
  return { n: Number(r!.n), u: Number(r!.u), s: Number(r!.s), cents: Number(r!.cents) };
}

/** Sum of 1..n, by formula. */
const tri = (n: number): number => (n * (n + 1)) / 2;

function eosSink(srv: ChdbServer, table: string, ck: string, warnings: string[], offset: { v: number }, extra: Record<string, string> = {}): ClickHouseSink {
  const def = sinkDef('eos', { url: srv.url, table: `default.${table}`, delivery: 'exactly-once', batch_size: '1000', flush_interval: '50 ms', ...extra }, cols);
  return new ClickHouseSink(def, { env: {}, pipeline: 'p', checkpointDir: ck, positions: () => ({ orders: { offset: offset.v } }), warn: (m) => warnings.push(m) });
}

test('exactly-once (chdb 26.x): rows land after the checkpoint; re-inserting the interval with the same progress stores each row once', { timeout: 90_000 }, async (t) => {
  const dir = tempDir('pipec-ch-eos-');
  const srv = await startChdbServer(path.join(dir, 'data'));
  t.after(() => srv.close());
  const ck = path.join(dir, 'ck');
  await chCommand(srv.url, DDL('t', true));
  const warnings: string[] = [];
  const offset = { v: 0 };
  const first = eosSink(srv, 't', ck, warnings, offset);
  first.open(null);
  for (let i = 1; i <= 2500; i++) {
    offset.v = i;
    first.write(row(i));
  }
  // Longer than flush_interval: exactly-once does not cut batches by time.
  await new Promise((r) => setTimeout(r, 200));
  const p1 = (await first.commit()) as ClickHouseIntervalProgress;
  assert.equal(p1.delivery, 'exactly-once');
  assert.deepEqual({ seq: p1.seq, rows: p1.rows, batchSize: p1.batchSize, positions: p1.positions }, { seq: 1, rows: 2500, batchSize: 1000, positions: '{"orders":{"offset":2500}}' });
  assert.equal((await agg(srv, 't')).n, 0, 'nothing is inserted before the checkpoint is durable');
  assert.equal(await srv.inserts(), 0);
  // Keep the interval's lines: a crash after the inserts but before they were recorded leaves them.
  const file = path.join(ck, p1.file!);
  copyFileSync(file, file + '.kept');
  await first.afterCheckpoint();
  assert.deepEqual(await agg(srv, 't'), { n: 2500, u: 2500, s: tri(2500), cents: tri(2500) });
  assert.equal(await srv.inserts(), 3, 'batches of 1000, 1000, 500');
  assert.ok(!existsSync(file), 'an inserted interval drops its lines');
  assert.deepEqual(warnings, [], 'a deduplicating table on a modern server: no warning');
  await first.close();

  // Restart with the checkpoint's progress as if none of the three inserts had been recorded.
  copyFileSync(file + '.kept', file);
  rmSync(file + '.kept');
  rmSync(file.replace(/\.ndjson$/, '.done'));
  const again = eosSink(srv, 't', ck, warnings, offset);
  again.open(p1);
  // The rows after the checkpoint are produced again and form interval 2.
  for (let i = 2501; i <= 3000; i++) {
    offset.v = i;
    again.write(row(i));
  }
  const p2 = (await again.commit()) as ClickHouseIntervalProgress;
  assert.equal(await srv.inserts(), 6, 'the recovery sent all three batches again');
  assert.deepEqual(await agg(srv, 't'), { n: 2500, u: 2500, s: tri(2500), cents: tri(2500) }, 'their tokens were known: dropped');
  assert.deepEqual({ seq: p2.seq, rows: p2.rows, run: p2.run }, { seq: 2, rows: 500, run: p1.run });
  await again.afterCheckpoint();
  assert.deepEqual(await agg(srv, 't'), { n: 3000, u: 3000, s: tri(3000), cents: tri(3000) });
  // Only interval 2's done log is left: interval 1 is no longer named by a checkpoint.
  assert.deepEqual(readdirSync(path.join(ck, 'clickhouse-sink-eos')), ['interval-00000002.done']);
  await again.close();

  // The same re-insert into a table without a deduplication window stores the rows twice, and
  // the sink says at start that exactly-once degrades there.
  await chCommand(srv.url, DDL('plain', false));
  const ck2 = path.join(dir, 'ck2');
  const w2: string[] = [];
  const a = eosSink(srv, 'plain', ck2, w2, offset);
  a.open(null);
  for (let i = 1; i <= 1500; i++) a.write(row(i));
  const q = (await a.commit()) as ClickHouseIntervalProgress;
  const f2 = path.join(ck2, q.file!);
  copyFileSync(f2, f2 + '.kept');
  await a.afterCheckpoint();
  await a.close();
  copyFileSync(f2 + '.kept', f2);
  rmSync(f2.replace(/\.ndjson$/, '.done'));
  const b = eosSink(srv, 'plain', ck2, w2, offset);
  b.open(q);
  await b.close();
  assert.equal((await agg(srv, 'plain')).n, 3000, 'no window: the tokens are ignored');
  assert.equal(w2.length, 2);
  assert.match(
    w2[0]!,
    /^clickhouse sink 'eos' \(http:\/\/127\.0\.0\.1:\d+, table default\.plain\): delivery = 'exactly-once' degrades to at-least-once: default\.plain is a MergeTree without non_replicated_deduplication_window, which ignores insert_deduplication_token: ALTER TABLE default\.plain MODIFY SETTING non_replicated_deduplication_window = 100 \(or use a Replicated\* engine\); until then a batch whose insert a crash cut short is inserted again on restart \(at most one batch of up to 1000 rows per crash\)$/,
  );
});

test("exactly-once (chdb 26.x): a lost insert response is retried under the same token; dedup = 'token' refuses a table that does not deduplicate", { timeout: 60_000 }, async (t) => {
  const dir = tempDir('pipec-ch-eos-retry-');
  const srv = await startChdbServer(path.join(dir, 'data'));
  t.after(() => srv.close());
  await chCommand(srv.url, DDL('r', true));
  const warnings: string[] = [];
  const sink = eosSink(srv, 'r', path.join(dir, 'ck'), warnings, { v: 0 }, { retry_backoff: '10 ms' });
  sink.open(null);
  for (let i = 1; i <= 2000; i++) sink.write(row(i));
  await sink.commit();
  // The server stores batch 1, then the answer is lost: the sink retries.
  await srv.loseInsertResponses(1);
  await sink.afterCheckpoint();
  await sink.close();
  assert.equal(sink.stats.retries, 1);
  assert.equal(await srv.inserts(), 3, 'two batches, one of them sent twice');
  assert.deepEqual(await agg(srv, 'r'), { n: 2000, u: 2000, s: tri(2000), cents: tri(2000) });

  await chCommand(srv.url, DDL('nodedup', false));
  const strict = eosSink(srv, 'nodedup', path.join(dir, 'ck3'), warnings, { v: 0 }, { dedup: 'token' });
  strict.open(null);
  strict.write(row(1));
  await assert.rejects(strict.commit(), /clickhouse sink 'eos' \(.*\): dedup = 'token' but default\.nodedup is a MergeTree without non_replicated_deduplication_window/);
  await strict.close().catch(() => undefined);
  assert.deepEqual(warnings, []);
});
