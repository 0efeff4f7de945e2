// Smoke tests of the Iceberg readers: pyiceberg writes a partitioned table into a SQL catalog (SQLite file or the
// PostgreSQL service), pyiceberg reads it back (by catalog and by metadata file), DuckDB reads the Parquet files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readIcebergTable, writeIcebergTable, type IcebergSqlCatalog } from '../../support/pyiceberg.ts';
import { queryDuckDb } from '../../support/duckdb.ts';
import { ensureServices } from '../../support/services.ts';
import pg from 'pg';

const schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', type: 'long', required: true },
    { id: 2, name: 'country', type: 'string', required: false },
    { id: 3, name: 'amount', type: 'decimal(10, 2)', required: false },
    { id: 4, name: 'at', type: 'timestamptz', required: false },
  ],
};
const partitionSpec = { 'spec-id': 0, fields: [{ 'source-id': 2, 'field-id': 1000, name: 'country', transform: 'identity' }] };
const sortOrder = { 'order-id': 1, fields: [{ 'source-id': 1, transform: 'identity', direction: 'asc', 'null-order': 'nulls-first' }] };

test('pyiceberg round trip through a SQLite SQL catalog, a StaticTable and DuckDB', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pipec-iceberg-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const catalog: IcebergSqlCatalog = { uri: `sqlite:///${dir}/catalog.db`, warehouse: `file://${dir}/warehouse` };

  const { metadataLocation } = await writeIcebergTable({
    catalog,
    table: 'shop.orders',
    schema,
    partitionSpec,
    sortOrder,
    appends: [
      [
        { id: 1, country: 'DE', amount: '10.50', at: '2024-03-01T10:00:00Z' },
        { id: 2, country: 'FR', amount: '3.25', at: '2024-03-01T11:00:00Z' },
      ],
      [{ id: 3, country: 'DE', amount: '0.75', at: '2024-03-02T09:30:00Z' }],
    ],
  });

  const viaCatalog = await readIcebergTable({ catalog, table: 'shop.orders' });
  assert.equal(viaCatalog.formatVersion, 2);
  assert.equal(viaCatalog.metadataLocation, metadataLocation);
  assert.deepEqual(
    viaCatalog.schema.fields.map((f) => [f['id'], f['name'], f['type'], f['required']]),
    [[1, 'id', 'long', true], [2, 'country', 'string', false], [3, 'amount', 'decimal(10, 2)', false], [4, 'at', 'timestamptz', false]],
  );
  assert.deepEqual(viaCatalog.partitionSpec.fields, [{ 'source-id': 2, 'field-id': 1000, name: 'country', transform: 'identity' }]);
  assert.deepEqual(viaCatalog.sortOrder.fields, sortOrder.fields);
  // Two appends → two snapshots; the first wrote 2 rows into 2 partitions, the second 1 row into 1.
  assert.deepEqual(
    viaCatalog.snapshots.map((s) => [s.summary?.['operation'], s.summary?.['added-records'], s.summary?.['added-data-files'], s.summary?.['total-records']]),
    [['append', '2', '2', '2'], ['append', '1', '1', '3']],
  );
  assert.equal(viaCatalog.currentSnapshotId, viaCatalog.snapshots[1]!['snapshot-id']);
  const byId = [...viaCatalog.rows].sort((a, b) => Number(a['id']) - Number(b['id']));
  assert.deepEqual(byId, [
    { id: 1, country: 'DE', amount: '10.50', at: '2024-03-01T10:00:00+00:00' },
    { id: 2, country: 'FR', amount: '3.25', at: '2024-03-01T11:00:00+00:00' },
    { id: 3, country: 'DE', amount: '0.75', at: '2024-03-02T09:30:00+00:00' },
  ]);

  const viaMetadata = await readIcebergTable({ metadata: metadataLocation });
  assert.deepEqual(viaMetadata.snapshots, viaCatalog.snapshots);
  assert.equal(viaMetadata.rows.length, 3);

  // The first snapshot, read by id, holds only the first append.
  const first = await readIcebergTable({ catalog, table: 'shop.orders' }, { snapshotId: viaCatalog.snapshots[0]!['snapshot-id'] as string });
  assert.deepEqual(first.rows.map((r) => r['id']).sort(), [1, 2]);

  // DuckDB reads pyiceberg's Parquet files independently; identity partitioning puts them under country=XX/.
  const parquet = `${dir}/warehouse/shop/orders/data/**/*.parquet`;
  const totals = await queryDuckDb(
    `SELECT country, count(*) AS n, sum(amount)::VARCHAR AS total FROM read_parquet('${parquet}') GROUP BY country ORDER BY country`,
  );
  assert.deepEqual(totals, [
    { country: 'DE', n: 2, total: '11.25' },
    { country: 'FR', n: 1, total: '3.25' },
  ]);
});

test('reading a table that does not exist rejects with pyiceberg\'s error', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pipec-iceberg-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await assert.rejects(
    readIcebergTable({ catalog: { uri: `sqlite:///${dir}/catalog.db` }, table: 'nope.missing' }),
    /NoSuchTableError/,
  );
});

test('pyiceberg SQL catalog on the PostgreSQL test service', async (t) => {
  const env = await ensureServices(['postgres']);
  const dir = await mkdtemp(path.join(tmpdir(), 'pipec-iceberg-pg-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // A catalog name of its own keeps runs apart inside the shared iceberg_tables catalog table.
  const name = `smoke_${process.pid}_${Date.now()}`;
  const catalog: IcebergSqlCatalog = {
    uri: `postgresql+psycopg2://${env['PIPEC_PG_USER']}@${env['PIPEC_PG_HOST']}:${env['PIPEC_PG_PORT']}/${env['PIPEC_PG_DATABASE']}`,
    warehouse: `file://${dir}/warehouse`,
    name,
  };
  await writeIcebergTable({
    catalog,
    table: 'cdc.users',
    schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'int', required: true }, { id: 2, name: 'email', type: 'string', required: false }] },
    appends: [[{ id: 7, email: 'a@example.org' }]],
  });
  const table = await readIcebergTable({ catalog, table: 'cdc.users' });
  assert.deepEqual(table.rows, [{ id: 7, email: 'a@example.org' }]);
  assert.deepEqual(table.partitionSpec.fields, []);
  assert.equal(table.snapshots.length, 1);

  // The catalog really lives in PostgreSQL: pyiceberg's iceberg_tables row points at the metadata file.
  const pgClient = new pg.Client({ connectionString: env['PIPEC_PG_URL']! });
  await pgClient.connect();
  try {
    const res = await pgClient.query<{ metadata_location: string }>(
      'SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3',
      [name, 'cdc', 'users'],
    );
    assert.deepEqual(res.rows, [{ metadata_location: table.metadataLocation }]);
  } finally {
    await pgClient.end();
  }
});
