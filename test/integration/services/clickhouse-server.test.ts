// Smoke test of the Debian clickhouse-server test service (18.16) through @clickhouse/client over HTTP: the path
// the runtime's ClickHouse HTTP sink uses (JSONEachRow inserts), plus reading results back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@clickhouse/client';
import { ensureServices } from '../../support/services.ts';

test('@clickhouse/client inserts JSONEachRow rows into the Debian server and reads aggregates back', async (t) => {
  const env = await ensureServices(['clickhouse']);
  const client = createClient({ url: env['PIPEC_CLICKHOUSE_URL']!, username: env['PIPEC_CLICKHOUSE_USER']! });
  t.after(() => client.close());
  assert.deepEqual(await client.ping(), { success: true });

  const version = await (await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json<{ v: string }>();
  assert.match(version[0]!.v, /^18\.16\./);

  const table = `smoke_sink_${process.pid}_${Date.now()}`;
  await client.command({
    query: `CREATE TABLE ${table} (id UInt32, user String, amount Decimal(10, 2), at DateTime, note Nullable(String))
            ENGINE = MergeTree ORDER BY id`,
  });
  t.after(() => client.command({ query: `DROP TABLE IF EXISTS ${table}` }));

  // 1,000 rows in two inserts; user u<i % 4>, amount (i % 10) + 0.25, note null for odd ids.
  const rows = Array.from({ length: 1000 }, (_, i) => ({
    id: i,
    user: `u${i % 4}`,
    amount: (i % 10) + 0.25,
    at: `2024-05-01 00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
    note: i % 2 === 0 ? `n${i}` : null,
  }));
  await client.insert({ table, values: rows.slice(0, 500), format: 'JSONEachRow' });
  await client.insert({ table, values: rows.slice(500), format: 'JSONEachRow' });

  const perUser = await (
    await client.query({
      query: `SELECT user, count() AS n, toString(sum(amount)) AS total, countIf(isNull(note)) AS nulls
              FROM ${table} GROUP BY user ORDER BY user`,
      format: 'JSONEachRow',
    })
  ).json<{ user: string; n: string; total: string; nulls: string }>();
  // Each user gets 250 ids; ids ≡ u (mod 4) cycle through amounts with period lcm(4,10)=20 → 5 distinct
  // (i % 10) values per user, each 50 times. u0: i%10 ∈ {0,4,8,2,6} → sum 20·50 = 1000, +250·0.25 = 1062.5.
  // u1: {1,5,9,3,7} → 25·50 = 1250 + 62.5 = 1312.5. Decimal sums keep scale 2 ('1062.50'). Even users have no
  // nulls; odd users are all null.
  // The server quotes UInt64 in JSON output (18.16's default), so counts arrive as strings.
  assert.deepEqual(perUser, [
    { user: 'u0', n: '250', total: '1062.50', nulls: '0' },
    { user: 'u1', n: '250', total: '1312.50', nulls: '250' },
    { user: 'u2', n: '250', total: '1062.50', nulls: '0' },
    { user: 'u3', n: '250', total: '1312.50', nulls: '250' },
  ]);

  const last = await (
    await client.query({ query: `SELECT id, toString(at) AS at, note FROM ${table} WHERE id = 998`, format: 'JSONEachRow' })
  ).json<{ id: number; at: string; note: string | null }>();
  assert.deepEqual(last, [{ id: 998, at: '2024-05-01 00:16:38', note: 'n998' }]);
});
