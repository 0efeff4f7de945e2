// The ClickHouse sink against the real Debian ClickHouse 18.16 server (batches, encoding,
// retries while the server is down) and, for the insert_deduplication_token that 18.16 lacks,
// against a modern ClickHouse engine (chdb) replaying the sink's exact inserts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ensureServices } from '../../support/services.ts';
import { repoRoot } from '../../support/venv.ts';
import { runChdb } from '../../support/chdb.ts';
import { ClickHouseSink } from '../../../targets/runtime/lib/clickhouse/clickhouse-sink.ts';
import { ChdbTransport, chCommand, chQuery, col, sinkDef, unique } from './harness.ts';

const cols = [col('id', 'bigint'), col('amount', 'decimal', { precision: 18, scale: 2 }), col('ts', 'timestamp'), col('day', 'date'), col('name', 'string')];
/** Row i: amount = i cents, ts = 2024-01-01 + i seconds + 7 ms, day = epoch day 19723 + i % 3. */
const row = (i: number): unknown[] => [i, i, Date.UTC(2024, 0, 1) + i * 1000 + 7, 19723 + (i % 3), `n"${i}`];

test('25,000 rows land exactly, in batches of 10,000, values encoded for 18.16 types', async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_sink');
  await chCommand(url, `CREATE TABLE default.${table} (id UInt64, amount Decimal(18, 2), ts DateTime, day Date, name String) ENGINE = MergeTree ORDER BY id`);
  t.after(() => chCommand(url, `DROP TABLE IF EXISTS default.${table}`));
  const warnings: string[] = [];
  const sink = new ClickHouseSink(sinkDef('orders_ch', { url, table: `default.${table}`, flush_interval: '1 h' }, cols), { env: {}, warn: (m) => warnings.push(m) });
  sink.open(null);
  for (let i = 1; i <= 25_000; i++) sink.write(row(i));
  const progress = await sink.commit();
  await sink.close();
  assert.deepEqual(progress, { seq: 3, rows: 25_000 });
  assert.equal(sink.stats.inserts, 3, 'two full batches and the rest at the checkpoint');
  const [agg] = await chQuery<Record<string, string>>(url, `SELECT count() AS n, sum(id) AS s, toString(sum(amount)) AS a, toString(min(ts)) AS t0, toString(max(day)) AS d FROM default.${table}`);
  // sum 1..25000 = 25000·25001/2; amounts are the same in cents.
  assert.deepEqual({ ...agg }, { n: '25000', s: '312512500', a: '3125125.00', t0: '2024-01-01 00:00:01', d: '2024-01-03' });
  const [one] = await chQuery<Record<string, string>>(url, `SELECT toString(amount) AS a, name FROM default.${table} WHERE id = 12345`);
  assert.deepEqual({ ...one }, { a: '123.45', name: 'n"12345' });
  // 18.16 has no insert_deduplication_token: the sink says so instead of pretending.
  assert.equal(sink.dedupActive, false);
  assert.match(warnings.join('\n'), /ClickHouse 18\.16\.1 has no insert_deduplication_token; a batch replayed after a failure may be inserted twice/);
});

test('a partial batch is sent after flush_interval, before any checkpoint', async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_flush');
  await chCommand(url, `CREATE TABLE default.${table} (id UInt64, amount Decimal(18, 2), ts DateTime, day Date, name String) ENGINE = MergeTree ORDER BY id`);
  t.after(() => chCommand(url, `DROP TABLE IF EXISTS default.${table}`));
  const sink = new ClickHouseSink(sinkDef('flush', { url, table: `default.${table}`, flush_interval: '300 ms' }, cols), { env: {} });
  sink.open(null);
  for (let i = 1; i <= 7; i++) sink.write(row(i));
  const count = async (): Promise<number> => Number((await chQuery<{ n: string }>(url, `SELECT count() AS n FROM default.${table}`))[0]!.n);
  assert.equal(await count(), 0, 'nothing sent at once');
  let n = 0;
  for (let i = 0; i < 50 && n === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    n = await count();
  }
  assert.equal(n, 7);
  assert.deepEqual(await sink.commit(), { seq: 1, rows: 7 });
  await sink.close();
  assert.equal(await count(), 7);
});

test("dedup = 'token' on 18.16 fails with a clear error", async () => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_tok');
  await chCommand(url, `CREATE TABLE default.${table} (id UInt64) ENGINE = MergeTree ORDER BY id`);
  try {
    const sink = new ClickHouseSink(sinkDef('s', { url, table: `default.${table}`, dedup: 'token' }, [col('id', 'bigint')]), { env: {} });
    sink.open(null);
    sink.write([1]);
    await assert.rejects(sink.commit(), /dedup = 'token' but ClickHouse 18\.16\.1 has no insert_deduplication_token/);
  } finally {
    await chCommand(url, `DROP TABLE IF EXISTS default.${table}`);
  }
});

test('server down: retries with backoff, then a clear error; no row is lost once it is back', async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_down');
  await chCommand(url, `CREATE TABLE default.${table} (id UInt64, amount Decimal(18, 2), ts DateTime, day Date, name String) ENGINE = MergeTree ORDER BY id`);
  const services = path.join(repoRoot, 'test', 'services', 'services');
  t.after(async () => {
    execFileSync('bash', [services, 'up', 'clickhouse'], { stdio: 'ignore' });
    await chCommand(url, `DROP TABLE IF EXISTS default.${table}`);
  });
  const sink = new ClickHouseSink(sinkDef('down', { url, table: `default.${table}`, max_attempts: '4', retry_backoff: '100 ms', flush_interval: '1 h' }, cols), { env: {} });
  sink.open(null);
  for (let i = 1; i <= 1000; i++) sink.write(row(i));
  await sink.commit();
  execFileSync('bash', [services, 'down', 'clickhouse'], { stdio: 'ignore' });
  for (let i = 1001; i <= 3000; i++) sink.write(row(i));
  const t0 = Date.now();
  await assert.rejects(sink.commit(), (e: Error) => {
    assert.match(e.message, new RegExp(`clickhouse sink 'down' \\(${url.replace(/\./g, '\\.')}, table default\\.${table}\\): insert of 2000 rows \\(batch 2\\) failed after 4 attempts`));
    return true;
  });
  // Backoff 100 + 200 + 400 ms between the four attempts.
  assert.ok(Date.now() - t0 >= 700, `backed off (${Date.now() - t0} ms)`);
  assert.equal(sink.pendingRows(), 2000, 'the failed batch is kept');
  execFileSync('bash', [services, 'up', 'clickhouse'], { stdio: 'ignore' });
  for (let i = 3001; i <= 3500; i++) sink.write(row(i));
  const p = await sink.commit();
  await sink.close();
  assert.deepEqual(p, { seq: 3, rows: 3500 });
  const [agg] = await chQuery<Record<string, string>>(url, `SELECT count() AS n, uniqExact(id) AS u, sum(id) AS s FROM default.${table}`);
  assert.deepEqual({ ...agg }, { n: '3500', u: '3500', s: String((3500 * 3501) / 2) });
});

test('insert_deduplication_token (modern ClickHouse via chdb): a replayed batch is not inserted twice', async () => {
  const chCols = [
    { name: 'id', type: 'UInt64' },
    { name: 'amount', type: 'Decimal(38, 2)' },
    { name: 'ts', type: 'DateTime64(3)' },
    { name: 'day', type: 'Date' },
    { name: 'name', type: 'String' },
  ];
  const transport = new ChdbTransport(chCols);
  // Positions of a source partition: the offset of the last row written.
  let offset = 0;
  const positions = (): unknown => ({ orders: { offset } });
  const def = sinkDef('replay', { table: 'default.t', url: 'http://unused:1', flush_interval: '1 h' }, cols);
  const first = new ClickHouseSink(def, { env: {}, transport, positions });
  first.open(null);
  let checkpoint: unknown = null;
  for (let i = 1; i <= 25_000; i++) {
    offset = i;
    first.write(row(i));
    if (i === 10_000) checkpoint = await first.commit();
  }
  await first.commit();
  // Crash after the inserts but before the next checkpoint: the runtime restores the
  // checkpoint (sink progress + source offset 10,000) and replays rows 10,001..25,000.
  const again = new ClickHouseSink(def, { env: {}, transport, positions });
  again.open(checkpoint);
  for (let i = 10_001; i <= 25_000; i++) {
    offset = i;
    again.write(row(i));
  }
  await again.commit();
  assert.equal(transport.statements.length, 5, '3 inserts, then the 2 replayed ones');
  assert.deepEqual(transport.tokens.slice(3), transport.tokens.slice(1, 3), 'the replayed batches carry the same tokens');
  assert.equal(new Set(transport.tokens.slice(0, 3)).size, 3);
  const ddl = `CREATE TABLE default.t (${chCols.map((c) => `${c.name} ${c.type}`).join(', ')}) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`;
  const res = await runChdb(['SET max_query_size = 100000000', ddl, ...transport.statements, `SELECT count() AS n, sum(id) AS s, toInt64(sum(amount) * 100) AS cents, toString(min(ts)) AS t0 FROM default.t`].join(';\n') + ';');
  const agg = res.at(-1)!.rows[0]!;
  assert.deepEqual({ ...agg, n: Number(agg.n), s: Number(agg.s), cents: Number(agg.cents) }, { n: 25_000, s: 312_512_500, cents: 312_512_500, t0: '2024-01-01 00:00:01.007' });
  // Without the token the same replay doubles the replayed rows (the check can fail).
  const plain = transport.statements.map((s) => s.replace(/SETTINGS insert_deduplication_token = '[^']*' /, ''));
  const res2 = await runChdb(['SET max_query_size = 100000000', ddl, ...plain, 'SELECT count() AS n FROM default.t'].join(';\n') + ';');
  assert.equal(Number(res2.at(-1)!.rows[0]!.n), 40_000);
});
