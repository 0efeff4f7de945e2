// Recovery of a CDC pipeline run by the runtime: a PostgreSQL restart mid-stream, then the
// pipeline itself stopped and resumed from its checkpoint while changes keep arriving — the
// NDJSON sink must end with every change exactly once, in commit order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { ensureServices } from '../../support/services.ts';
import { repoRoot } from '../../support/venv.ts';
import { cleanup, pgClient, unique } from '../postgres-cdc/harness.ts';
import { ndjson, startPipeline, until } from './harness.ts';

const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('PostgreSQL restart mid-CDC and a pipeline resume from its checkpoint: no gap, no duplicate', async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const [table, slot, pub] = [unique('cdc_rt_restart'), unique('slot'), unique('pub')];
  let c = await pgClient(url);
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v text NOT NULL)`);
  const spec = `PIPELINE cdc_restart WITH (checkpoint_interval = '500 ms');
CREATE SOURCE items (id INT NOT NULL, v STRING NOT NULL, PRIMARY KEY (id) NOT ENFORCED)
WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_PG_URL}', table = 'public.${table}', slot = '${slot}', publication = '${pub}', snapshot = 'never', heartbeat = '1 s');
CREATE SINK out FROM items WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;
  let p = await startPipeline(spec, env);
  t.after(async () => {
    await p.stop();
    await c.end().catch(() => {});
    await cleanup(url, table, slot, pub);
  });
  const out = (): Record<string, unknown>[] => ndjson(path.join(p.dir, 'out.ndjson'));
  const ids = (): number[] => out().map((r) => r.id as number);
  // The slot exists once the source has started: only then do inserts reach it.
  await until(async () => (await c.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [slot])).rowCount === 1, () => 'slot not active');
  await c.query(`INSERT INTO ${table} SELECT g, 'a' FROM generate_series(1, 100) g`);
  for (let i = 101; i <= 150; i++) await c.query(`INSERT INTO ${table} VALUES ($1, 'b')`, [i]);
  await until(() => out().length >= 150, ids);

  // The server goes away under the running pipeline and comes back.
  const services = path.join(repoRoot, 'test', 'services', 'services');
  execFileSync('bash', [services, 'down', 'postgres'], { stdio: 'ignore' });
  execFileSync('bash', [services, 'up', 'postgres'], { stdio: 'ignore' });
  await c.end().catch(() => {});
  c = await pgClient(url);
  for (let i = 151; i <= 200; i++) await c.query(`INSERT INTO ${table} VALUES ($1, 'c')`, [i]);
  await until(() => out().length >= 200, ids, 120_000);

  // The pipeline stops (final checkpoint), changes arrive meanwhile, and it resumes.
  assert.equal(await p.stop(), 0, p.stderr());
  await c.query(`INSERT INTO ${table} SELECT g, 'd' FROM generate_series(201, 220) g`);
  await c.query(`UPDATE ${table} SET v = 'e' WHERE id = 1`);
  p = await startPipeline(spec, env, p.dir);
  await until(() => out().length >= 222, ids);
  await new Promise((r) => setTimeout(r, 1000)); // nothing more may come
  assert.equal(await p.stop(), 0, p.stderr());

  const rows = out();
  assert.deepEqual(rows.slice(0, 220).map((r) => [r.op, r.id]), range(1, 220).map((i) => ['+I', i]), 'every insert once, in commit order');
  assert.deepEqual(rows.slice(220), [
    { op: '-U', id: 1, v: null },
    { op: '+U', id: 1, v: 'e' },
  ]);
});
