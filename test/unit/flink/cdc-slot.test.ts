// The Flink script's postgres-cdc table never reads through the runtime's replication slot (two
// readers of one slot each lose the changes the other acknowledged): the runtime's default slot
// becomes a Flink slot of its own, a slot named in the spec is kept; a publication is passed only
// when the spec names one (the runtime creates its default one itself). A name the spec gives is
// kept even when it is the runtime's default name: the spec's author named it on purpose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../../../src/api.ts';

const spec = (extra: string): string => `
PIPELINE shop;
CREATE SOURCE customers (
  id BIGINT NOT NULL, tier STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_PG_URL}', table = 'public.customers', heartbeat = '1 min'${extra});
CREATE SINK out FROM customers WITH (connector = 'kafka', topic = 'out', format = 'json');
`;

async function withOf(extra: string): Promise<string> {
  const r = await build({ sources: { 'p.pipe.sql': spec(extra) }, targets: ['flink'], env: { PIPEC_PG_URL: 'postgres://u@h/db' } });
  const file = Object.entries(r.outputs).find(([p]) => p.endsWith('flink/pipeline.sql'));
  assert.ok(file, r.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
  return String(file[1]);
}

test('the default slot is a Flink slot of its own, and no publication is named', async () => {
  const sql = await withOf('');
  assert.match(sql, /'slot\.name' = 'pipec_shop_customers_flink'/);
  assert.doesNotMatch(sql, /publication/);
});

test('a slot and a publication named in the spec are kept (lower-cased, as the runtime resolves them)', async () => {
  const sql = await withOf(", slot = 'Shop_Slot', publication = 'shop_pub'");
  assert.match(sql, /'slot\.name' = 'shop_slot'/);
  assert.match(sql, /'debezium\.publication\.name' = 'shop_pub'/);
});

test("a slot named in the spec is kept even when it is the runtime's default name", async () => {
  const sql = await withOf(", slot = 'pipec_customers', publication = 'pipec_customers_pub'");
  assert.match(sql, /'slot\.name' = 'pipec_customers'/);
  assert.match(sql, /'debezium\.publication\.name' = 'pipec_customers_pub'/);
});
