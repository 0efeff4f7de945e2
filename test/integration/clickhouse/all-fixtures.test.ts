// Every fixture plan's DDL runs in chdb (insertable variant) and its teardown removes what it created;
// plus semantic checks for the temporal join, UNION ALL and the non-windowed aggregate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { fixturePlans, groupAggPlan, temporalJoinPlan, unionPlan } from '../../fixtures/clickhouse/plans.ts';
import { runChdb } from '../../support/chdb.ts';
import { bids, insert, normalize } from './support.ts';

const countObjects = "SELECT count() AS n FROM system.tables WHERE database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema', 'default');";

for (const [name, p] of Object.entries(fixturePlans())) {
  test(`fixture ${name}: DDL runs in ClickHouse and the teardown drops every object`, async () => {
    const out = emitClickHouse(p, { sourceMode: 'insertable' });
    assert.equal(out.diagnostics.hasErrors, name.endsWith('-error'));
    const res = await runChdb([out.sql, countObjects, out.teardown, countObjects].join('\n'));
    const counts = res.filter((r) => r.statement.startsWith('SELECT count()')).map((r) => r.rows[0]!['n']);
    assert.equal(counts[0], out.statements.filter((s) => s.sql.startsWith('CREATE TABLE') || s.sql.includes(' VIEW ')).length);
    assert.equal(counts[1], 0);
  });
}

test('temporal join: each order gets the customer version current when the order is inserted', async () => {
  const out = emitClickHouse(temporalJoinPlan(), { sourceMode: 'insertable' });
  const ev = (op: string, lsn: number, after: object | null, before: object | null = null) => ({ raw: JSON.stringify({ before, after, op, source: { lsn } }) });
  const res = await runChdb(
    [
      out.sql,
      insert('`crm`.`customers__debezium`', ['raw'], [ev('c', 1, { id: 7, name: 'Ada', balance: '0', updated_at: 0 }), ev('c', 2, { id: 8, name: 'Bob', balance: '0', updated_at: 0 })]),
      insert('`crm`.`orders`', ['id', 'customer_id', 'ts'], [{ id: 1, customer_id: 7, ts: '2020-04-15 08:00:00.000' }]),
      insert('`crm`.`customers__debezium`', ['raw'], [ev('u', 3, { id: 7, name: 'Ada L.', balance: '0', updated_at: 0 }), ev('d', 4, null, { id: 8, name: 'Bob', balance: '0', updated_at: 0 })]),
      insert('`crm`.`orders`', ['id', 'customer_id', 'ts'], [{ id: 2, customer_id: 7, ts: '2020-04-15 08:05:00.000' }, { id: 3, customer_id: 8, ts: '2020-04-15 08:06:00.000' }]),
      'SELECT * FROM `crm`.`enriched` ORDER BY id;',
    ].join('\n'),
  );
  // Order 1 saw 'Ada'; order 2 the update; order 3's customer was deleted (LEFT JOIN: no name).
  assert.deepEqual(res.at(-1)!.rows, [
    { id: 1, customer: 'Ada' },
    { id: 2, customer: 'Ada L.' },
    { id: 3, customer: null },
  ]);
});

test('UNION ALL of two topics feeds one window count', async () => {
  const out = emitClickHouse(unionPlan(), { sourceMode: 'insertable' });
  const res = await runChdb(
    [
      out.sql,
      insert('`web`.`clicks_web`', ['who', 'at'], [{ who: 'a', at: '2020-04-15 08:01:00.000' }, { who: 'b', at: '2020-04-15 08:12:00.000' }]),
      insert('`web`.`clicks_app`', ['who', 'at'], [{ who: 'c', at: '2020-04-15 08:02:00.000' }]),
      'SELECT * FROM `web`.`clicks_10m` ORDER BY window_start;',
    ].join('\n'),
  );
  assert.deepEqual(normalize(res.at(-1)!.rows), [
    { window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', clicks: '2' },
    { window_start: '2020-04-15 08:10:00.000', window_end: '2020-04-15 08:20:00.000', clicks: '1' },
  ]);
});

test('non-windowed aggregate per item over the Bid rows', async () => {
  const out = emitClickHouse(groupAggPlan(), { sourceMode: 'insertable' });
  const res = await runChdb([out.sql, insert('`bids`.`bid`', ['bidtime', 'price', 'item'], [...bids, { bidtime: '2020-04-15 08:20:00.000', price: '0.50', item: 'C' }]), 'SELECT * FROM `bids`.`totals` ORDER BY item;'].join('\n'));
  // By hand: C 4.00 + 0.50 = 4.50 (2 bids); the others one bid each.
  assert.deepEqual(normalize(res.at(-1)!.rows), [
    { item: 'A', total: '2', n: '1' },
    { item: 'B', total: '3', n: '1' },
    { item: 'C', total: '4.5', n: '2' },
    { item: 'D', total: '5', n: '1' },
    { item: 'E', total: '1', n: '1' },
    { item: 'F', total: '6', n: '1' },
  ]);
});
