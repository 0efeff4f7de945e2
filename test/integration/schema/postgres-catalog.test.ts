// The PostgreSQL catalog as a schema source, against a real PostgreSQL: every mapped type,
// domains, enums, arrays, NOT NULL, a composite primary key in key order, the search_path,
// and the errors for a missing table, a refused connection and a missing database.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { LoadedSchema } from '../../../src/schema/schema-loader.ts';
import { closedPort } from '../../fixtures/schemas/confluent-registry-protocol-fixture.ts';
import { ensureServices } from '../../support/services.ts';
import { codes, columns, loaderFor, optionSpan, specsDir } from '../../unit/schema/helpers.ts';

const SETUP = `
DROP SCHEMA IF EXISTS pipec_schema_test CASCADE;
DROP TABLE IF EXISTS public.pipec_schema_orders;
CREATE SCHEMA pipec_schema_test;
CREATE TYPE pipec_schema_test.mood AS ENUM ('ok', 'sad');
CREATE DOMAIN pipec_schema_test.positive_int AS int4 CHECK (VALUE > 0);
CREATE DOMAIN pipec_schema_test.amount AS numeric(5, 1);
CREATE TABLE pipec_schema_test.all_types (
  tenant   int2 NOT NULL,
  id       int8 NOT NULL,
  n4       int4,
  price    numeric(12, 2) NOT NULL,
  ratio    numeric,
  name     text,
  code     varchar(10),
  flag     char(1),
  active   boolean,
  f4       real,
  f8       double precision,
  created  timestamp,
  created3 timestamp(3),
  seen     timestamptz NOT NULL,
  day      date,
  blob     bytea,
  doc      jsonb,
  raw      json,
  uid      uuid,
  tags     text[],
  scores   int4[] NOT NULL,
  mood     pipec_schema_test.mood,
  qty      pipec_schema_test.positive_int,
  amt      pipec_schema_test.amount,
  wait     interval,
  PRIMARY KEY (id, tenant)
);
CREATE TABLE public.pipec_schema_orders (order_id text PRIMARY KEY, total numeric(10, 2));
`;

let url: string;
before(async () => {
  const env = await ensureServices(['postgres']);
  url = env.PIPEC_PG_URL!;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(SETUP);
  await c.end();
});
after(async () => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('DROP SCHEMA IF EXISTS pipec_schema_test CASCADE; DROP TABLE IF EXISTS public.pipec_schema_orders;');
  await c.end();
});

async function loadTable(dsn: string, table: string): Promise<{ schema: LoadedSchema | null; bag: DiagnosticBag }> {
  const bag = new DiagnosticBag();
  const schema = await loaderFor(specsDir, {}, 3000).loadPostgresTable({ dsn, table, span: optionSpan }, bag);
  return { schema, bag };
}

test('every PostgreSQL type maps through the table; NOT NULL and the primary key are read', async () => {
  const { schema, bag } = await loadTable(url, 'pipec_schema_test.all_types');
  assert.deepEqual(columns(schema), [
    'tenant INT NOT NULL',
    'id BIGINT NOT NULL',
    'n4 INT',
    'price DECIMAL(12, 2) NOT NULL',
    'ratio DECIMAL(38, 18)',
    'name STRING',
    'code STRING',
    'flag STRING',
    'active BOOLEAN',
    'f4 FLOAT',
    'f8 DOUBLE',
    'created TIMESTAMP(6)',
    'created3 TIMESTAMP(3)',
    'seen TIMESTAMP_LTZ(6) NOT NULL',
    'day DATE',
    'blob BYTES',
    'doc STRING',
    'raw STRING',
    'uid STRING',
    'tags ARRAY<STRING>',
    'scores ARRAY<INT> NOT NULL',
    'mood STRING',
    'qty INT',
    'amt DECIMAL(5, 1)',
    'wait STRING',
  ]);
  // Key order, not column order.
  assert.deepEqual(schema!.primaryKey, ['id', 'tenant']);
  assert.equal(schema!.description, 'postgres:pipec_schema_test.all_types');
  assert.equal(schema!.kind, 'postgres');
  assert.deepEqual(
    bag.items.map((d) => [d.code, d.message]),
    [
      ['postgres-numeric-unbounded', "column 'ratio' is NUMERIC without precision and scale; read as DECIMAL(38, 18)"],
      ['postgres-type-as-string', "column 'wait' has type interval, which has no SQL type in pipec; it is read as its text form (STRING)"],
    ],
  );
  assert.ok(bag.items.every((d) => d.severity === 'warning'));
});

test('an unqualified table follows the search_path', async () => {
  const { schema, bag } = await loadTable(url, 'pipec_schema_orders');
  assert.deepEqual(bag.items, []);
  assert.deepEqual(columns(schema), ['order_id STRING NOT NULL', 'total DECIMAL(10, 2)']);
  assert.deepEqual(schema!.primaryKey, ['order_id']);
  assert.deepEqual(JSON.parse(schema!.canonicalText), {
    table: 'public.pipec_schema_orders',
    columns: [
      { name: 'order_id', type: 'text', notNull: true },
      { name: 'total', type: 'numeric(10,2)', notNull: false },
    ],
    primaryKey: ['order_id'],
  });
});

test('one loader reads a table once per build and reports its diagnostics for every request', async () => {
  const loader = loaderFor(specsDir, {}, 3000);
  const req = { dsn: url, table: 'pipec_schema_test.all_types', span: optionSpan };
  const first = new DiagnosticBag();
  const a = await loader.loadPostgresTable(req, first);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('ALTER TABLE pipec_schema_test.all_types ADD COLUMN added_later int4');
    const second = new DiagnosticBag();
    const b = await loader.loadPostgresTable(req, second);
    assert.deepEqual(b, a, 'the same build sees the catalog as first read');
    assert.deepEqual(codes(second), codes(first));
    assert.equal(codes(second).length, 2);
    const fresh = await loaderFor(specsDir, {}, 3000).loadPostgresTable(req, new DiagnosticBag());
    assert.equal(columns(fresh).at(-1), 'added_later INT', 'a new build reads the catalog again');
  } finally {
    await c.query('ALTER TABLE pipec_schema_test.all_types DROP COLUMN IF EXISTS added_later');
    await c.end();
  }
});

test('a missing table is reported with a suggestion', async () => {
  const { schema, bag } = await loadTable(url, 'pipec_schema_test.all_typse');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['postgres-table-not-found']);
  assert.equal(bag.items[0]!.params.suggestion, 'pipec_schema_test.all_types');
  assert.deepEqual(bag.items[0]!.span, optionSpan);
});

test('malformed and cross-database names are missing tables too, not crashes', async () => {
  for (const table of ['a.b.c.d', 'otherdb.public.orders', 'nosuchschema.orders']) {
    const { schema, bag } = await loadTable(url, table);
    assert.equal(schema, null);
    assert.deepEqual(codes(bag), ['postgres-table-not-found'], table);
  }
});

test('a refused connection is postgres-unreachable, with the password hidden', async () => {
  const port = await closedPort();
  const dsn = `postgres://pipec:hunter2@127.0.0.1:${port}/pipec`;
  const { schema, bag } = await loadTable(dsn, 'orders');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['postgres-unreachable']);
  assert.match(bag.items[0]!.message, new RegExp(`^cannot read the catalog of postgres://pipec:\\*\\*\\*@127\\.0\\.0\\.1:${port}/pipec: `));
  assert.ok(!JSON.stringify(bag.items).includes('hunter2'));
});

test('a database that does not exist is postgres-unreachable naming the reason, not the password', async () => {
  const u = new URL(url);
  u.pathname = '/pipec_schema_no_such_db';
  const { bag } = await loadTable(u.toString(), 'pipec_schema_orders');
  assert.deepEqual(codes(bag), ['postgres-unreachable']);
  assert.match(bag.items[0]!.message, /database "pipec_schema_no_such_db" does not exist/);
  if (u.password) assert.ok(!JSON.stringify(bag.items).includes(u.password));
});
