// PostgreSQL CDC through the runtime end to end (real PostgreSQL and ClickHouse 18.16): a
// pass-through into an NDJSON file shows every change with its kind, and a GROUP BY over the
// changelog into a ReplacingMergeTree ends equal to PostgreSQL's own GROUP BY of the table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ensureServices } from '../../support/services.ts';
import { cleanup, pgClient, unique } from '../postgres-cdc/harness.ts';
import { chCommand, chQuery } from '../clickhouse-sink/harness.ts';
import { ndjson, startPipeline, until } from './harness.ts';

const sourceDdl = (table: string, slot: string, pub: string): string => `
CREATE SOURCE orders (
  id INT NOT NULL,
  customer STRING NOT NULL,
  amount DECIMAL(10, 2),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_PG_URL}', table = 'public.${table}', slot = '${slot}', publication = '${pub}', heartbeat = '1 s');`;

test('CDC → NDJSON file: snapshot +I, update -U (key only) / +U, key change -D / +I, delete -D', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const [table, slot, pub] = [unique('cdc_rt_nd'), unique('slot'), unique('pub')];
  const c = await pgClient(url);
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2))`);
  await c.query(`INSERT INTO ${table} VALUES (1, 'ann', 10), (2, 'bob', 20.5)`);
  const p = await startPipeline(`PIPELINE cdc_nd WITH (checkpoint_interval = '1 s');\n${sourceDdl(table, slot, pub)}\nCREATE SINK out FROM orders WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');\n`, env);
  t.after(async () => {
    await p.stop();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  const out = (): Record<string, unknown>[] => ndjson(path.join(p.dir, 'out.ndjson'));
  await until(() => out().length === 2, out);
  await c.query(`INSERT INTO ${table} VALUES (3, 'cy', 5)`);
  await c.query(`UPDATE ${table} SET amount = 11 WHERE id = 1`);
  await c.query(`UPDATE ${table} SET id = 4 WHERE id = 2`);
  await c.query(`DELETE FROM ${table} WHERE id = 3`);
  await until(() => out().length >= 8, out);
  await new Promise((r) => setTimeout(r, 500)); // nothing more may come
  assert.equal(await p.stop(), 0, p.stderr());
  assert.deepEqual(out(), [
    { op: '+I', id: 1, customer: 'ann', amount: '10.00' },
    { op: '+I', id: 2, customer: 'bob', amount: '20.50' },
    { op: '+I', id: 3, customer: 'cy', amount: '5.00' },
    // Default REPLICA IDENTITY: PostgreSQL sends no old row, so the -U holds the key only.
    { op: '-U', id: 1, customer: null, amount: null },
    { op: '+U', id: 1, customer: 'ann', amount: '11.00' },
    // A new primary key is another row: the old one is deleted (its key), the new one inserted.
    { op: '-D', id: 2, customer: null, amount: null },
    { op: '+I', id: 4, customer: 'bob', amount: '20.50' },
    { op: '-D', id: 3, customer: null, amount: null },
  ]);
});

test('GROUP BY over CDC into a ClickHouse 18.16 ReplacingMergeTree equals PostgreSQL’s own GROUP BY', async (t) => {
  const env = await ensureServices(['postgres', 'clickhouse']);
  const url = env.PIPEC_PG_URL!;
  const ch = env.PIPEC_CLICKHOUSE_URL!;
  const [table, slot, pub] = [unique('cdc_rt_ch'), unique('slot'), unique('pub')];
  const chTable = unique('cdc_per_customer');
  const c = await pgClient(url);
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2))`);
  await c.query(`INSERT INTO ${table} VALUES (1, 'ann', 10), (2, 'ann', 20), (3, 'bob', 5), (4, 'cy', 7)`);
  // 18.16 has no is_deleted engine parameter: the flag is a column the reader filters after FINAL.
  await chCommand(
    ch,
    `CREATE TABLE default.${chTable} (customer String, n UInt64, total Nullable(Decimal(38, 2)), lo Nullable(Decimal(10, 2)), hi Nullable(Decimal(10, 2)), _version UInt64, _is_deleted UInt8) ENGINE = ReplacingMergeTree(_version) ORDER BY customer`,
  );
  const spec = `PIPELINE cdc_ch WITH (checkpoint_interval = '1 s');
${sourceDdl(table, slot, pub)}
CREATE VIEW per_customer WITH (state_ttl = '1 d') AS
SELECT customer, COUNT(*) AS n, SUM(amount) AS total, MIN(amount) AS lo, MAX(amount) AS hi
FROM orders
GROUP BY customer
EMIT CHANGES;
CREATE SINK ch FROM per_customer WITH (connector = 'clickhouse', url = '\${PIPEC_CLICKHOUSE_URL}', table = 'default.${chTable}', flush_interval = '200 ms');
`;
  const p = await startPipeline(spec, env);
  t.after(async () => {
    await p.stop();
    await c.end();
    await cleanup(url, table, slot, pub);
    await chCommand(ch, `DROP TABLE IF EXISTS default.${chTable}`);
  });
  const dec = (v: unknown): string | null => (v === null ? null : Number(v).toFixed(2));
  const fromPg = async (): Promise<unknown[][]> =>
    (await c.query(`SELECT customer, count(*) AS n, sum(amount) AS total, min(amount) AS lo, max(amount) AS hi FROM ${table} GROUP BY customer ORDER BY customer`)).rows.map((r) => [r.customer, Number(r.n), dec(r.total), dec(r.lo), dec(r.hi)]);
  const fromCh = async (): Promise<unknown[][]> =>
    (
      await chQuery<Record<string, unknown>>(
        ch,
        `SELECT customer, n, toString(total) AS total, toString(lo) AS lo, toString(hi) AS hi FROM (SELECT * FROM default.${chTable} FINAL) WHERE _is_deleted = 0 ORDER BY customer`,
      )
    ).map((r) => [r.customer, Number(r.n), dec(r.total), dec(r.lo), dec(r.hi)]);
  let last: unknown = null;
  const same = async (): Promise<boolean> => {
    const [a, b] = [await fromPg(), await fromCh()];
    last = { postgres: a, clickhouse: b };
    return JSON.stringify(a) === JSON.stringify(b);
  };
  await until(same, () => last);

  await c.query(`INSERT INTO ${table} VALUES (5, 'bob', 1.25), (6, 'dan', NULL)`);
  await c.query(`UPDATE ${table} SET amount = 30 WHERE id = 1`); // ann: 30, 20
  await c.query(`UPDATE ${table} SET customer = 'bob' WHERE id = 2`); // a row moves from ann to bob
  await c.query(`DELETE FROM ${table} WHERE id = 5`); // bob's current MIN (1.25) goes
  await c.query(`DELETE FROM ${table} WHERE id = 4`); // cy's only row: the group is deleted
  await c.query(`UPDATE ${table} SET amount = 2.5 WHERE id = 6`); // dan's SUM from NULL to 2.50
  await c.query('BEGIN');
  await c.query(`INSERT INTO ${table} VALUES (7, 'eve', 3), (8, 'ann', 1)`);
  await c.query(`DELETE FROM ${table} WHERE id = 7`);
  await c.query('COMMIT');
  await until(same, () => last);
  const final = await fromCh();
  // Independent of both implementations, by hand: ann {30, 1}, bob {5, 20}, dan {2.5}.
  assert.deepEqual(final, [
    ['ann', 2, '31.00', '1.00', '30.00'],
    ['bob', 2, '25.00', '5.00', '20.00'],
    ['dan', 1, '2.50', '2.50', '2.50'],
  ]);
  // cy was deleted: its last version is flagged, not missing.
  const cy = await chQuery<{ d: number }>(ch, `SELECT _is_deleted AS d FROM default.${chTable} FINAL WHERE customer = 'cy'`);
  assert.deepEqual(cy.map((r) => Number(r.d)), [1]);
  assert.equal(await p.stop(), 0, p.stderr());
});
