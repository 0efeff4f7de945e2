// The postgres-cdc source against the real PostgreSQL service: the initial snapshot hands over
// to the change stream with no gap and no duplicate, and changes arrive with their operations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ensureServices } from '../../support/services.ts';
import { PostgresCdcSource } from '../../../targets/runtime/lib/postgres-cdc/cdc-source.ts';
import { BAD, readBigint, readDecimal, readTimestamp } from '../../../targets/runtime/lib/values.ts';
import { meta } from '../../../targets/runtime/lib/io/source-types.ts';
import { isTruncate, rowKind } from '../../../targets/runtime/lib/ops/types.ts';
import { cleanup, col, collector, opCol, pgClient, pollFor, pollUntil, sourceDef, unique } from './harness.ts';

test('snapshot with concurrent inserts hands over to the stream with no gap and no duplicate', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const table = unique('cdc_snap');
  const slot = unique('slot');
  const pub = unique('pub');
  const c = await pgClient(url);
  t.after(async () => {
    await src.close();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v text)`);
  await c.query(`INSERT INTO ${table} SELECT g, 'pre' FROM generate_series(1, 20000) g`);
  const { out, got } = collector();
  const src = new PostgresCdcSource(sourceDef('orders', { dsn: url, table, slot, publication: pub, 'snapshot.fetch_size': '200' }, [col('id', 'int'), opCol()]), out, { env: {} });

  // Writers run while the snapshot is read in small fetches: some of their rows are in the
  // snapshot, the rest must come from the stream — each exactly once.
  let stop = false;
  let next = 20001;
  const writer = (async () => {
    const w = await pgClient(url);
    while (!stop) {
      await w.query(`INSERT INTO ${table} VALUES ($1, 'during'), ($2, 'during')`, [next, next + 1]);
      next += 2;
      if (next % 50 === 1) await w.query(`DELETE FROM ${table} WHERE id = $1`, [next - 20000]);
    }
    await w.end();
  })();
  // Read the snapshot slowly enough that the writers overlap it.
  while (src.position().snapshot !== undefined || got.rows.length === 0) {
    await src.poll(200);
    await new Promise((r) => setTimeout(r, 2));
  }
  stop = true;
  await writer;
  assert.ok(next > 20101, `writers ran during the snapshot (${next - 20001} rows)`);

  const expected = (await c.query(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id as number);
  const live = new Map<number, number>();
  const apply = (): void => {
    live.clear();
    for (const [id, op] of got.rows as [number, string][]) {
      if (op === 'insert') live.set(id, (live.get(id) ?? 0) + 1);
      else if (op === 'delete') live.delete(id);
    }
  };
  await pollUntil(src, () => (apply(), live.size === expected.length), 60_000);
  await pollFor(src, 500);
  apply();
  const dupes = [...live].filter(([, n]) => n > 1);
  assert.deepEqual(dupes, [], 'no row delivered twice');
  assert.deepEqual([...live.keys()].sort((a, b) => a - b), expected);
});

test('types follow the catalog; under REPLICA IDENTITY FULL an update is -U (full old row) then +U; deletes carry the row; truncate warns without a normalize', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const table = unique('cdc_types');
  const slot = unique('slot');
  const pub = unique('pub');
  const c = await pgClient(url);
  t.after(async () => {
    await src.close();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  await c.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, amount numeric(20,2), price numeric(12,4), ts timestamp(6), tz timestamptz, d date, ok boolean, bin bytea, note text, f float8)`);
  await c.query(`ALTER TABLE ${table} REPLICA IDENTITY FULL`);
  // A snapshot row: decoded the same way as streamed rows.
  await c.query(`INSERT INTO ${table} VALUES (9007199254740993, 123456789012345678.91, 0.0001, '2024-02-29 23:59:59.987654', '2024-03-01 01:00:00+02', '1999-12-31', true, '\\xdeadbeef', NULL, 0.1)`);
  const cols = [col('id', 'bigint'), col('amount', 'decimal', { precision: 20, scale: 2 }), col('price', 'decimal', { precision: 12, scale: 4 }), col('ts', 'timestamp'), col('tz', 'timestamp'), col('d', 'date'), col('ok', 'boolean'), col('bin', 'bytes'), col('note', 'string'), col('f', 'double'), opCol(), col('before', 'string', { meta: 'before' }), col('commit_ts', 'timestamp', { meta: 'commit_ts' })];
  const { out, got } = collector();
  const src = new PostgresCdcSource(sourceDef('typed', { dsn: url, table, slot, publication: pub }, cols), out, { env: {} });
  await pollUntil(src, () => got.rows.length === 1);
  const r0 = got.rows[0]!;
  assert.equal(r0[0], 9007199254740993n, 'BIGINT beyond 2^53 is a BigInt');
  assert.equal(r0[1], 12345678901234567891n, 'DECIMAL(20,2) is the exact scaled integer');
  assert.equal(r0[2], 1, 'DECIMAL(12,4) 0.0001 → 1');
  assert.equal(r0[3], Date.UTC(2024, 1, 29, 23, 59, 59, 987), 'TIMESTAMP as UTC epoch ms (µs truncated)');
  assert.equal(r0[4], Date.UTC(2024, 2, 1, 1, 0, 0) - 2 * 3600_000, 'TIMESTAMPTZ to the instant');
  assert.equal(r0[5], Date.UTC(1999, 11, 31) / 86400000, 'DATE as epoch days');
  assert.equal(r0[6], true);
  assert.deepEqual([...(r0[7] as Buffer)], [0xde, 0xad, 0xbe, 0xef]);
  assert.equal(r0[8], null);
  assert.equal(r0[9], 0.1);
  assert.equal(r0[10], 'insert');
  assert.equal(rowKind(r0), '+I');
  assert.equal(r0[12], null, 'a snapshot row has no commit time');
  const beforeUpdate = Date.now();

  await c.query(`UPDATE ${table} SET amount = amount + 0.09, note = 'x' WHERE id = 9007199254740993`);
  await c.query('BEGIN');
  await c.query(`INSERT INTO ${table} (id, amount) VALUES (1, -5.5), (2, 7)`);
  await c.query(`DELETE FROM ${table} WHERE id = 1`);
  await c.query('COMMIT');
  await c.query(`TRUNCATE ${table}`);
  await pollUntil(src, () => got.rows.length === 6 && got.warnings.length === 1);
  await pollFor(src, 300);
  const ops = got.rows.map((r) => [r[0], r[10], rowKind(r)]);
  assert.deepEqual(ops.slice(1), [
    [9007199254740993n, 'update', '-U'],
    [9007199254740993n, 'update', '+U'],
    [1, 'insert', '+I'],
    [2, 'insert', '+I'],
    [1, 'delete', '-D'],
  ]);
  const [old, upd] = [got.rows[1]!, got.rows[2]!];
  assert.equal(old[1], 12345678901234567891n, 'the -U row is the full old row: amount 123456789012345678.91');
  assert.equal(old[8], null, 'old note');
  assert.equal(upd[1], 12345678901234567900n, 'new amount 123456789012345678.91 + 0.09 = 123456789012345679.00');
  assert.equal(upd[8], 'x');
  const commitTs = upd[12] as number;
  assert.ok(Number.isInteger(commitTs) && commitTs >= beforeUpdate - 1000 && commitTs <= Date.now() + 1000, `commit_ts is the commit's epoch ms, got ${commitTs}`);
  const before = upd[11] as Record<string, unknown>;
  assert.equal(before.amount, '123456789012345678.91', "METADATA 'before' keeps the old values");
  assert.equal(before.note, null);
  const del = got.rows[5]!;
  assert.equal(del[1], -550, 'a delete carries the deleted row (amount -5.50)');
  assert.equal((del[11] as Record<string, unknown>).id, 1);
  // No normalize follows this source (nothing keeps the rows), so a TRUNCATE cannot be retracted: a warning, no row.
  assert.match(got.warnings[0]!, /TRUNCATE of .* rows already sent downstream are not deleted/);
});

test('default REPLICA IDENTITY: -U holds the key only, a key change is -D old key + +I new key, a delete carries the key; with a normalize a TRUNCATE is a marker row', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const table = unique('cdc_kinds');
  const slot = unique('slot');
  const pub = unique('pub');
  const c = await pgClient(url);
  t.after(async () => {
    await src.close();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v text NOT NULL)`);
  const { out, got } = collector();
  const def = sourceDef('kinds', { dsn: url, table, slot, publication: pub, snapshot: 'never' }, [col('id', 'int'), col('v', 'string'), opCol()]);
  def.normalized = true;
  const src = new PostgresCdcSource(def, out, { env: {} });
  await src.poll(10);
  await c.query(`INSERT INTO ${table} VALUES (1, 'a'), (2, 'b')`);
  await c.query(`UPDATE ${table} SET v = 'a2' WHERE id = 1`);
  await c.query(`UPDATE ${table} SET id = 3 WHERE id = 2`);
  await c.query(`DELETE FROM ${table} WHERE id = 1`);
  await c.query(`TRUNCATE ${table}`);
  await pollUntil(src, () => got.rows.length === 8);
  await pollFor(src, 300);
  assert.deepEqual(
    got.rows.map((r) => [rowKind(r), ...r]),
    [
      ['+I', 1, 'a', 'insert'],
      ['+I', 2, 'b', 'insert'],
      ['-U', 1, null, 'update'], // PostgreSQL sends no old row: the key, from the new row
      ['+U', 1, 'a2', 'update'],
      ['-D', 2, null, 'update'], // the old key
      ['+I', 3, 'b', 'update'],
      ['-D', 1, null, 'delete'],
      ['-D', null, null, null], // the TRUNCATE marker (every column NULL) for the normalize
    ],
  );
  assert.ok(isTruncate(got.rows[7]!));
  assert.deepEqual(got.warnings, []);
});

test('raw records feed a generated-style decoder (values.ts readers); an undecodable change is a dead letter', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const table = unique('cdc_decode');
  const slot = unique('slot');
  const pub = unique('pub');
  const c = await pgClient(url);
  t.after(async () => {
    await src.close();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  await c.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, amount numeric, ts timestamptz)`);
  const { out, got } = collector();
  const def = sourceDef('decoded', { dsn: url, table, slot, publication: pub, snapshot: 'never' }, [col('id', 'bigint'), col('amount', 'decimal', { precision: 10, scale: 2 }), col('ts', 'timestamp')]);
  // What the code generator emits: one reader per used column, BAD → dead letter.
  def.decode = (raw, err) => {
    const id = readBigint(raw.id);
    const amount = readDecimal(raw.amount, 10, 2);
    const ts = readTimestamp(raw.ts);
    if (amount === BAD) {
      err.column = 'amount';
      err.reason = 'does not fit DECIMAL(10, 2)';
      return null;
    }
    return [id, amount, ts, meta(raw, 'op')];
  };
  const src = new PostgresCdcSource(def, out, { env: {} });
  await src.poll(10);
  await c.query(`INSERT INTO ${table} VALUES (1, 12.345, '2024-05-05 10:00:00.123+00'), (2, 123456789012.5, NULL)`);
  await c.query(`UPDATE ${table} SET amount = 0.1 WHERE id = 1`);
  await pollUntil(src, () => got.rows.length + got.dead.length === 4);
  // 12.345 rounds half away from zero to 12.35 (1235 cents); 123456789012.5 has 12 integer digits.
  // The update is -U (key only: PostgreSQL sends no old row by default) then +U.
  assert.deepEqual(
    got.rows.map((r) => [rowKind(r), ...r]),
    [
      ['+I', 1, 1235, Date.UTC(2024, 4, 5, 10, 0, 0, 123), 'insert'],
      ['-U', 1, null, null, 'update'],
      ['+U', 1, 10, Date.UTC(2024, 4, 5, 10, 0, 0, 123), 'update'],
    ],
  );
  assert.deepEqual(got.dead, ['column amount: does not fit DECIMAL(10, 2)']);
});
