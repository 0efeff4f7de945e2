// Exactly-once delivery against the Debian ClickHouse 18.16 server, which has no
// insert_deduplication_token: the protocol works end to end (rows land once the checkpoint is
// durable, every row once in a crash-free run of a real pipeline) and the sink says clearly at
// start that the guarantee degrades to at-least-once; without a checkpoint dir it falls back to
// at-least-once delivery and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ensureServices } from '../../support/services.ts';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { runSpec } from '../runtime-iceberg/helpers.ts';
import { ClickHouseSink } from '../../../targets/runtime/lib/clickhouse/clickhouse-sink.ts';
import { chCommand, chQuery, col, sinkDef, unique } from './harness.ts';

const cols = [col('id', 'bigint'), col('amount', 'decimal', { precision: 18, scale: 2 })];

async function counts(url: string, table: string): Promise<{ n: number; s: number }> {
  const [r] = await chQuery<Record<string, string>>(url, `SELECT count() AS n, sum(id) AS s FROM default.${table}`);
  return { n: Number(r!.n), s: Number(r!.s) };
}

test('18.16: exactly-once rows land after the checkpoint, with a warning that the guarantee is at-least-once here', { timeout: 60_000 }, async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_eos18');
  await chCommand(url, `CREATE TABLE default.${table} (id UInt64, amount Decimal(18, 2)) ENGINE = MergeTree ORDER BY id`);
  t.after(() => chCommand(url, `DROP TABLE IF EXISTS default.${table}`));
  const warnings: string[] = [];
  const sink = new ClickHouseSink(sinkDef('eos18', { url, table: `default.${table}`, delivery: 'exactly-once', batch_size: '400', flush_interval: '10 ms' }, cols), {
    env: {},
    pipeline: 'p',
    checkpointDir: path.join(tempDir('pipec-ch-eos18-'), 'ck'),
    warn: (m) => warnings.push(m),
  });
  sink.open(null);
  for (let i = 1; i <= 1000; i++) sink.write([i, i]);
  await new Promise((r) => setTimeout(r, 100));
  await sink.commit();
  assert.deepEqual(await counts(url, table), { n: 0, s: 0 }, 'nothing before the checkpoint is durable');
  await sink.afterCheckpoint();
  assert.deepEqual(await counts(url, table), { n: 1000, s: 500_500 });
  assert.equal(sink.stats.inserts, 3, 'batches of 400, 400, 200');
  for (let i = 1001; i <= 1200; i++) sink.write([i, i]);
  // Rows no durable checkpoint names are not inserted at close: a resumed run recomputes them.
  await sink.close();
  assert.deepEqual(await counts(url, table), { n: 1000, s: 500_500 });
  assert.equal(sink.dedupActive, false);
  assert.deepEqual(warnings, [
    `clickhouse sink 'eos18' (${url}, table default.${table}): delivery = 'exactly-once' degrades to at-least-once: ClickHouse 18.16.1 has no insert_deduplication_token (added in 22.2), so a batch whose insert a crash cut short is inserted again on restart (at most one batch of up to 400 rows per crash)`,
  ]);
});

test('18.16: a pipeline with delivery = exactly-once writes every row once and prints the degradation warning', { timeout: 60_000 }, async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_eos18p');
  await chCommand(url, `CREATE TABLE default.${table} (id Int64, ts DateTime) ENGINE = MergeTree ORDER BY id`);
  t.after(() => chCommand(url, `DROP TABLE IF EXISTS default.${table}`));
  const dir = tempDir('pipec-ch-eos18p-');
  const spec = `
PIPELINE ch_eos18 WITH (checkpoint_interval = '100 ms');
CREATE SOURCE ticks (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts) WITH (
  connector = 'datagen', total_rows = 1000, rows_per_second = 2000,
  fields.id.kind = 'sequence', fields.ts.kind = 'sequence', fields.ts.min = '2024-01-01 00:00:00', fields.ts.step = '1 s'
);
CREATE SINK out FROM ticks WITH (connector = 'clickhouse', url = '\${PIPEC_CLICKHOUSE_URL}', table = 'default.${table}', delivery = 'exactly-once', batch_size = '100');
`;
  const run = await runSpec(dir, spec, { PIPEC_CLICKHOUSE_URL: url }, path.join(dir, 'ck'));
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stderr, /pipec: clickhouse sink 'out' \(.*\): delivery = 'exactly-once' degrades to at-least-once: ClickHouse 18\.16\.1 has no insert_deduplication_token/);
  // Ids 0..999 once each; ts = 2024-01-01 + id seconds.
  const [r] = await chQuery<Record<string, string>>(url, `SELECT count() AS n, uniqExact(id) AS u, sum(id) AS s, toString(max(ts)) AS t FROM default.${table}`);
  assert.deepEqual({ ...r }, { n: '1000', u: '1000', s: '499500', t: '2024-01-01 00:16:39' });
});

test('18.16: exactly-once without a checkpoint dir falls back to at-least-once and says why', { timeout: 30_000 }, async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_eos18n');
  await chCommand(url, `CREATE TABLE default.${table} (id UInt64, amount Decimal(18, 2)) ENGINE = MergeTree ORDER BY id`);
  t.after(() => chCommand(url, `DROP TABLE IF EXISTS default.${table}`));
  const warnings: string[] = [];
  const sink = new ClickHouseSink(sinkDef('nock', { url, table: `default.${table}`, delivery: 'exactly-once' }, cols), { env: {}, checkpointDir: null, warn: (m) => warnings.push(m) });
  sink.open(null);
  for (let i = 1; i <= 10; i++) sink.write([i, i]);
  await sink.commit();
  await sink.close();
  assert.equal(sink.exactlyOnce, false);
  assert.deepEqual(await counts(url, table), { n: 10, s: 55 });
  assert.match(warnings[0]!, /^clickhouse sink 'nock' \(.*\): delivery = 'exactly-once' needs a checkpoint directory \(pipec run --checkpoint-dir DIR\)/);
});

test("options: delivery must be one of the two; exactly-once refuses dedup = 'off'", () => {
  const make = (o: Record<string, string>): ClickHouseSink => new ClickHouseSink(sinkDef('o', { url: 'http://h:1', table: 't', ...o }, cols), { env: {} });
  assert.throws(() => make({ delivery: 'once' }), /^Error: sink 'o': delivery must be at-least-once or exactly-once, not 'once'$/);
  assert.throws(() => make({ delivery: 'exactly-once', dedup: 'off' }), /sink 'o': delivery = 'exactly-once' needs the deduplication token that dedup = 'off' turns off/);
  assert.equal(make({}).config.delivery, 'at-least-once');
});
