// Acknowledgement and recovery of the postgres-cdc source against the real PostgreSQL service:
// unacknowledged changes are redelivered, a server restart loses and repeats nothing, a
// heartbeat advances an idle slot, and failures name the DSN with the password hidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ensureServices } from '../../support/services.ts';
import { repoRoot } from '../../support/venv.ts';
import { PostgresCdcSource, type CdcPosition } from '../../../targets/runtime/lib/postgres-cdc/cdc-source.ts';
import { cleanup, col, collector, confirmedFlush, opCol, pgClient, pollFor, pollUntil, sourceDef, unique } from './harness.ts';

async function setup(url: string, prefix: string) {
  const names = { table: unique(prefix), slot: unique('slot'), pub: unique('pub') };
  const c = await pgClient(url);
  await c.query(`CREATE TABLE ${names.table} (id int PRIMARY KEY, v text)`);
  return { ...names, c };
}

const ids = (rows: unknown[][]): number[] => rows.map((r) => r[0] as number);
const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('changes after the committed position are redelivered to a restarted source; committed ones are not', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const { table, slot, pub, c } = await setup(url, 'cdc_ack');
  t.after(async () => {
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  const opts = { dsn: url, table, slot, publication: pub, snapshot: 'never' };
  const cols = [col('id', 'int'), opCol()];
  const a = collector();
  const src1 = new PostgresCdcSource(sourceDef('acks', opts, cols), a.out, { env: {} });
  await src1.poll(10); // creates the slot
  for (let i = 1; i <= 10; i++) await c.query(`INSERT INTO ${table} VALUES ($1, 'x')`, [i]);
  // Stop half-way through the 7th transaction: position = 6 transactions done.
  await pollUntil(src1, () => a.got.rows.length === 6, 30_000, 1);
  const pos = src1.position();
  assert.equal(pos.skip, 0);
  await src1.commit(pos);
  await pollUntil(src1, () => a.got.rows.length === 10);
  assert.deepEqual(ids(a.got.rows), range(1, 10));
  // Let the acknowledgement reach the server (sent on the stream), then stop without committing more.
  const want = BigInt('0x' + pos.lsn.split('/')[0]!) << 32n | BigInt('0x' + pos.lsn.split('/')[1]!);
  for (let i = 0; i < 100 && (await confirmedFlush(c, slot)) < want; i++) await new Promise((r) => setTimeout(r, 50));
  await src1.close();

  // No checkpoint given: the slot's confirmed position decides, so 7..10 come again.
  const b = collector();
  const src2 = new PostgresCdcSource(sourceDef('acks', opts, cols), b.out, { env: {} });
  await pollUntil(src2, () => b.got.rows.length === 4);
  await pollFor(src2, 300);
  assert.deepEqual(ids(b.got.rows), range(7, 10));
  await src2.close();

  // Resuming from a checkpoint mid-transaction skips exactly the changes already emitted.
  await c.query('BEGIN');
  for (let i = 11; i <= 15; i++) await c.query(`INSERT INTO ${table} VALUES ($1, 'x')`, [i]);
  await c.query('COMMIT');
  const d = collector();
  const src3 = new PostgresCdcSource(sourceDef('acks', opts, cols), d.out, { env: {} });
  await pollUntil(src3, () => d.got.rows.some((r) => r[0] === 12), 30_000, 1);
  const mid: CdcPosition = src3.position();
  await src3.close();
  assert.ok(mid.skip > 0, 'position taken inside the 5-row transaction');
  const e = collector();
  const src4 = new PostgresCdcSource(sourceDef('acks', opts, cols), e.out, { env: {} });
  src4.seek(mid);
  await pollUntil(src4, () => e.got.rows.some((r) => r[0] === 15));
  await pollFor(src4, 300);
  assert.deepEqual(ids(e.got.rows), range(13, 15));
  await src4.close();
});

test('a PostgreSQL restart mid-stream: the source reconnects and continues without gap or duplicate', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  let { table, slot, pub, c } = await setup(url, 'cdc_restart');
  const { out, got } = collector();
  const src = new PostgresCdcSource(sourceDef('restart', { dsn: url, table, slot, publication: pub, snapshot: 'never' }, [col('id', 'int'), opCol()]), out, { env: {} });
  t.after(async () => {
    await src.close();
    await c.end().catch(() => {});
    await cleanup(url, table, slot, pub);
  });
  await src.poll(10);
  await c.query(`INSERT INTO ${table} SELECT g, 'a' FROM generate_series(1, 100) g`);
  for (let i = 101; i <= 150; i++) await c.query(`INSERT INTO ${table} VALUES ($1, 'b')`, [i]);
  await pollUntil(src, () => got.rows.length === 150);
  // Nothing acknowledged: after the restart the server resends all 150, which the source must drop.
  const services = path.join(repoRoot, 'test', 'services', 'services');
  execFileSync('bash', [services, 'down', 'postgres'], { stdio: 'ignore' });
  execFileSync('bash', [services, 'up', 'postgres'], { stdio: 'ignore' });
  await c.end().catch(() => {});
  c = await pgClient(url);
  for (let i = 151; i <= 200; i++) await c.query(`INSERT INTO ${table} VALUES ($1, 'c')`, [i]);
  await pollUntil(src, () => got.rows.length >= 200, 60_000);
  await pollFor(src, 500);
  assert.deepEqual(ids(got.rows), range(1, 200));
  assert.ok(src.reconnects >= 1, 'the stream was re-established');
});

test('heartbeat keeps an idle slot advancing once checkpoints commit; slot lag is measured', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const { table, slot, pub, c } = await setup(url, 'cdc_hb');
  const { out } = collector();
  const src = new PostgresCdcSource(sourceDef('hb', { dsn: url, table, slot, publication: pub, snapshot: 'never', heartbeat: '100 ms' }, [col('id', 'int')]), out, { env: {} });
  t.after(async () => {
    await src.close();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  // First the same source without heartbeat, alone: its position cannot pass an idle table.
  // (Any logical message in the WAL moves it, a heartbeat of another source included.)
  const quietSlot = unique('slot');
  const quiet = new PostgresCdcSource(sourceDef('quiet', { dsn: url, table, slot: quietSlot, publication: pub, snapshot: 'never' }, [col('id', 'int')]), collector().out, { env: {} });
  await quiet.poll(10);
  const quietStart = await confirmedFlush(c, quietSlot);
  await c.query(`CREATE TABLE ${table}_q (x int)`);
  await c.query(`INSERT INTO ${table}_q SELECT generate_series(1, 1000)`);
  await c.query(`DROP TABLE ${table}_q`);
  for (let i = 0; i < 10; i++) {
    await quiet.poll(100);
    await quiet.afterCheckpoint();
    await new Promise((r) => setTimeout(r, 100));
  }
  const quietEnd = await confirmedFlush(c, quietSlot);
  await quiet.close();
  // The walsender ends shortly after the client disconnects.
  for (let i = 0; i < 50; i++) {
    const r = await c.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active', [quietSlot]);
    if (r.rowCount === 1) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(quietEnd, quietStart, 'without heartbeat the idle slot stays put');

  await src.poll(10);
  const before = await confirmedFlush(c, slot);
  // Unrelated WAL (another table) on an otherwise idle source table.
  await c.query(`CREATE TABLE ${table}_other (x int)`);
  await c.query(`INSERT INTO ${table}_other SELECT generate_series(1, 1000)`);
  await c.query(`DROP TABLE ${table}_other`);
  const cur = (await c.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l as string;
  const target = (BigInt('0x' + cur.split('/')[0]) << 32n) | BigInt('0x' + cur.split('/')[1]);
  let now = before;
  const t0 = Date.now();
  while (Date.now() - t0 < 15_000) {
    await src.poll(100);
    await src.afterCheckpoint(); // what the runner does after each checkpoint
    now = await confirmedFlush(c, slot);
    if (now > target) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(now > target, `confirmed_flush_lsn moved past the unrelated WAL (${before} → ${now})`);
  await new Promise((r) => setTimeout(r, 5200));
  assert.equal(typeof src.slotLagBytes, 'number');
  assert.ok(src.slotLagBytes! >= 0 && src.slotLagBytes! < 1 << 20, `slot lag ${src.slotLagBytes} bytes stays small`);
});

test('without commit the slot does not advance', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const { table, slot, pub, c } = await setup(url, 'cdc_noack');
  const { out, got } = collector();
  const src = new PostgresCdcSource(sourceDef('noack', { dsn: url, table, slot, publication: pub, snapshot: 'never', heartbeat: '100 ms' }, [col('id', 'int')]), out, { env: {} });
  t.after(async () => {
    await src.close();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  await src.poll(10);
  const start = await confirmedFlush(c, slot);
  await c.query(`INSERT INTO ${table} SELECT generate_series(1, 50), 'x'`);
  await pollUntil(src, () => got.rows.length === 50);
  await pollFor(src, 1500);
  assert.equal(await confirmedFlush(c, slot), start);
});

test('errors name the DSN with the password redacted', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const { table, slot, pub, c } = await setup(url, 'cdc_err');
  t.after(async () => {
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  const run = async (options: Record<string, string>): Promise<string> => {
    const src = new PostgresCdcSource(sourceDef('err', { slot, publication: pub, snapshot: 'never', ...options }, [col('id', 'int')]), collector().out, { env: {} });
    try {
      await src.poll(10);
      return 'no error';
    } catch (e) {
      return (e as Error).message;
    } finally {
      await src.close();
    }
  };
  const secretUrl = `postgres://postgres:s3cr3t@127.0.0.1:1/postgres`;
  const unreachable = await run({ dsn: secretUrl, table });
  assert.match(unreachable, /postgres-cdc postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/postgres: cannot connect/);
  assert.doesNotMatch(unreachable, /s3cr3t/);
  const u = new URL(url);
  u.password = 'hunter2';
  const missing = await run({ dsn: u.toString(), table: 'no_such_table_here' });
  assert.match(missing, /table 'public\.no_such_table_here' does not exist/);
  assert.match(missing, /:\*\*\*@/);
  assert.doesNotMatch(missing, /hunter2/);
  // A slot another reader holds.
  const first = new PostgresCdcSource(sourceDef('err', { dsn: url, table, slot, publication: pub, snapshot: 'never' }, [col('id', 'int')]), collector().out, { env: {} });
  await first.poll(10);
  const inUse = await run({ dsn: url, table });
  await first.close();
  assert.match(inUse, new RegExp(`replication slot '${slot}' is in use by another connection`));
});

test('a full queue pauses the stream; draining it delivers every change once', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const { table, slot, pub, c } = await setup(url, 'cdc_bp');
  const { out, got } = collector();
  const src = new PostgresCdcSource(sourceDef('bp', { dsn: url, table, slot, publication: pub, snapshot: 'never' }, [col('id', 'int')]), out, { env: {}, maxQueued: 1000 });
  t.after(async () => {
    await src.close();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  await src.poll(10);
  for (let b = 0; b < 20; b++) await c.query(`INSERT INTO ${table} SELECT g, 'x' FROM generate_series($1::int, $2::int) g`, [b * 500 + 1, b * 500 + 500]);
  await new Promise((r) => setTimeout(r, 1500));
  // Paused once 1,000 changes are queued. Pausing the socket stops further reads, but the
  // read already in hand (libuv reads up to 64 KiB, ~1,200 of these ~53-byte insert
  // messages) is still parsed and delivered: two more 500-row transactions can complete
  // after the one that crossed the bound (CI saw 2,000). The bound leaves room for a third.
  // Unpaused, all 10,000 would be queued by now.
  const paused = src.lag().records;
  assert.ok(paused >= 1000 && paused <= 2500, `queued ${paused}`);
  // And it stays paused: nothing more arrives while nobody polls.
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(src.lag().records, paused, 'the queue grew while paused');
  await pollUntil(src, () => got.rows.length >= 10_000, 30_000, 300);
  await pollFor(src, 300);
  assert.deepEqual(ids(got.rows), range(1, 10_000));
});
