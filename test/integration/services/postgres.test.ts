// Smoke test of the PostgreSQL test service: a publication + logical slot, changes read with pg-logical-replication
// through the pgoutput plugin, exactly as the CDC source will consume them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import { ensureServices } from '../../support/services.ts';

test('logical replication with pgoutput delivers inserts, updates and deletes in commit order', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env['PIPEC_PG_URL']!;
  const suffix = `${process.pid}_${Date.now()}`;
  const table = `smoke_orders_${suffix}`;
  const pub = `smoke_pub_${suffix}`;
  const slot = `smoke_slot_${suffix}`;

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.after(async () => {
    await client.query('SELECT pg_drop_replication_slot($1) FROM pg_replication_slots WHERE slot_name = $1', [slot]).catch(() => undefined);
    await client.query(`DROP PUBLICATION IF EXISTS ${pub}`);
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.end();
  });

  const settings = await client.query<{ name: string; setting: string }>(
    "SELECT name, setting FROM pg_settings WHERE name IN ('wal_level', 'listen_addresses') ORDER BY name",
  );
  assert.deepEqual(settings.rows, [
    { name: 'listen_addresses', setting: '127.0.0.1' },
    { name: 'wal_level', setting: 'logical' },
  ]);

  await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, item text NOT NULL, qty int NOT NULL)`);
  await client.query(`ALTER TABLE ${table} REPLICA IDENTITY FULL`);
  await client.query(`CREATE PUBLICATION ${pub} FOR TABLE ${table}`);
  await client.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);

  // Changes made after the slot exists; two transactions.
  await client.query('BEGIN');
  await client.query(`INSERT INTO ${table} VALUES (1, 'apple', 3), (2, 'pear', 5)`);
  await client.query('COMMIT');
  await client.query('BEGIN');
  await client.query(`UPDATE ${table} SET qty = 4 WHERE id = 1`);
  await client.query(`DELETE FROM ${table} WHERE id = 2`);
  await client.query('COMMIT');

  const service = new LogicalReplicationService({ connectionString: url }, { acknowledge: { auto: true, timeoutSeconds: 10 } });
  t.after(() => service.destroy());
  const seen: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    service.on('error', reject);
    service.on('data', (_lsn: string, msg: Pgoutput.Message) => {
      switch (msg.tag) {
        case 'insert':
          seen.push(`insert ${JSON.stringify(msg.new)}`);
          break;
        case 'update':
          seen.push(`update ${JSON.stringify(msg.old)} -> ${JSON.stringify(msg.new)}`);
          break;
        case 'delete':
          seen.push(`delete ${JSON.stringify(msg.old)}`);
          break;
        case 'begin':
        case 'commit':
          seen.push(msg.tag);
          break;
        default:
          break;
      }
      if (seen.filter((s) => s === 'commit').length === 2) resolve();
    });
  });
  void service.subscribe(new PgoutputPlugin({ protoVersion: 1, publicationNames: [pub] }), slot).catch(() => undefined);
  await Promise.race([
    done,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out; saw ${JSON.stringify(seen)}`)), 30_000).unref()),
  ]);

  assert.deepEqual(seen, [
    'begin',
    'insert {"id":1,"item":"apple","qty":3}',
    'insert {"id":2,"item":"pear","qty":5}',
    'commit',
    'begin',
    'update {"id":1,"item":"apple","qty":3} -> {"id":1,"item":"apple","qty":4}',
    'delete {"id":2,"item":"pear","qty":5}',
    'commit',
  ]);
});
