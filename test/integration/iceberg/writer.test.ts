// The Iceberg writer, checked by an independent implementation: pyiceberg loads every table
// written here (filesystem and SQL catalogs) and must return exactly the rows written, with
// the schema, partition spec and snapshot summaries the writer committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { icebergTarget } from '../../../targets/iceberg/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { SqlCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/sql-catalog.ts';
import { identFromName, type Catalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { parseMetadataJson, type TableMetadata } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { icebergPlan } from '../../fixtures/iceberg/sink-plan.ts';
import type { IrPartitionField } from '../../../src/plan/ir.ts';
import { probe } from './probe.ts';
import { applyTransform } from '../../../targets/runtime/lib/iceberg/writer/transforms.ts';

const PARTITIONED: IrPartitionField[] = [
  { column: 'window_start', transform: 'day', param: null },
  { column: 'customer_id', transform: 'bucket', param: 4 },
];

async function generatedMetadata(partitionBy: IrPartitionField[] = PARTITIONED): Promise<TableMetadata> {
  const files = await icebergTarget.emit(icebergPlan({ partitionBy }), { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  return parseMetadataJson(String(files.find((f) => f.path.endsWith('metadata.json'))!.contents));
}

/** Rows over 3 days and 20 customers; revenue exact decimals, some regions null. */
function rows(n: number, offset = 0): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    return {
      customer_id: i % 20,
      window_start: Date.UTC(2026, 0, 1 + (i % 3), i % 24, 0, 0),
      revenue: `${(i * 7) % 1000}.${String(i % 100).padStart(2, '0')}`,
      orders: i,
      region: i % 5 === 0 ? null : ['eu', 'us', 'apac'][i % 3],
    };
  });
}

/** The row as pyiceberg's helper prints it (ISO timestamps, decimal strings). */
function expected(r: Record<string, unknown>): Record<string, unknown> {
  return {
    customer_id: r.customer_id,
    window_start: new Date(r.window_start as number).toISOString().replace('Z', '').replace('.000', ''),
    revenue: r.revenue,
    orders: r.orders,
    region: r.region,
  };
}

const byOrders = (a: Record<string, unknown>, b: Record<string, unknown>): number => Number(a.orders) - Number(b.orders);

function tempWarehouse(): { dir: string; wh: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-ice-'));
  return { dir, wh: pathToFileURL(join(dir, 'warehouse')).href };
}

async function writeAndCheck(catalog: Catalog, read: (loc: string) => Parameters<typeof readIcebergTable>[0]): Promise<void> {
  const ident = identFromName('analytics.revenue');
  const writer = new IcebergTableWriter(catalog, ident);
  await writer.ensureTable(await generatedMetadata());
  const first = rows(300);
  const r1 = await writer.append(first, { 'pipec.source-offsets': '{"orders":{"0":299}}' });
  const second = rows(200, 300);
  const r2 = await writer.append(second, { 'pipec.source-offsets': '{"orders":{"0":499}}' });
  const dump = await readIcebergTable(read(r2.metadataLocation));
  assert.deepEqual(dump.rows.map((r) => ({ ...r })).sort(byOrders), [...first, ...second].map(expected));
  assert.equal(dump.snapshots.length, 2);
  assert.equal(dump.snapshots[1]!.summary?.['pipec.source-offsets'], '{"orders":{"0":499}}');
  assert.equal(dump.snapshots[1]!.summary?.['total-records'], '500');
  assert.equal(dump.snapshots[0]!.summary?.operation, 'append');
  assert.deepEqual(
    (dump.partitionSpec.fields as { name: string; transform: string }[]).map((f) => [f.name, f.transform]),
    [['window_start_day', 'day'], ['customer_id_bucket_4', 'bucket[4]']],
  );
  assert.deepEqual((dump.schema.fields as { id: number; name: string }[]).map((f) => [f.id, f.name]), [[1, 'customer_id'], [2, 'window_start'], [3, 'revenue'], [4, 'orders'], [5, 'region']]);
  assert.ok(r1.dataFiles.length > 1, 'partitioned rows land in several files');
}

test('filesystem catalog: appends read back exactly by pyiceberg, with summaries and spec', async () => {
  const { dir, wh } = tempWarehouse();
  try {
    await writeAndCheck(new FilesystemCatalog('lake', wh), (loc) => ({ metadata: loc }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQL catalog (SQLite): pyiceberg SqlCatalog loads the table the writer committed', async () => {
  const { dir, wh } = tempWarehouse();
  const uri = `sqlite:///${join(dir, 'catalog.db')}`;
  const catalog = await SqlCatalog.open('lake', uri, wh);
  try {
    await writeAndCheck(catalog, () => ({ catalog: { uri: `sqlite:///${join(dir, 'catalog.db')}`, name: 'lake' }, table: 'analytics.revenue' }));
  } finally {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('partition values and bounds agree with pyiceberg: filtered scans prune nothing they need', async () => {
  const { dir, wh } = tempWarehouse();
  try {
    const writer = new IcebergTableWriter(new FilesystemCatalog('lake', wh), identFromName('analytics.revenue'));
    await writer.ensureTable(await generatedMetadata());
    const all = rows(400);
    const res = await writer.append(all);
    for (const filter of ['customer_id == 7', "window_start >= '2026-01-02T00:00:00'", "region == 'eu'", 'orders > 390']) {
      const got = await probe<{ rows: Record<string, unknown>[] }>({ op: 'scan', metadata: res.metadataLocation, filter });
      const want = all.filter((r) =>
        filter.startsWith('customer_id') ? r.customer_id === 7
        : filter.startsWith('window_start') ? (r.window_start as number) >= Date.UTC(2026, 0, 2)
        : filter.startsWith('region') ? r.region === 'eu'
        : (r.orders as number) > 390,
      );
      assert.equal(got.rows.length, want.length, `rows for ${filter}`);
    }
    // Our transforms against pyiceberg's, value by value.
    const items = [
      { transform: 'bucket[16]', type: 'long', value: 34 }, { transform: 'bucket[16]', type: 'string', value: 'iceberg' },
      { transform: 'bucket[7]', type: 'decimal(9, 2)', value: '14.20' }, { transform: 'truncate[10]', type: 'long', value: -7 },
      { transform: 'truncate[3]', type: 'string', value: 'iceberg' }, { transform: 'day', type: 'timestamp', value: Date.UTC(1969, 11, 31, 23) },
      { transform: 'hour', type: 'timestamp', value: Date.UTC(2026, 5, 1, 13, 30) }, { transform: 'month', type: 'timestamp', value: Date.UTC(2026, 5, 1) },
      { transform: 'year', type: 'timestamp', value: Date.UTC(1969, 0, 1) }, { transform: 'month', type: 'date', value: -1 },
    ];
    const theirs = await probe<{ results: unknown[] }>({ op: 'transforms', items });
    const ours = items.map((i) => {
      const v = applyTransform(i.transform, i.type, i.type === 'long' ? BigInt(i.value) : i.value);
      return typeof v === 'bigint' ? Number(v) : v;
    });
    assert.deepEqual(ours.map(String), theirs.results.map(String));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('overwritePartitions replaces exactly the partitions it writes', async () => {
  const { dir, wh } = tempWarehouse();
  try {
    const writer = new IcebergTableWriter(new FilesystemCatalog('lake', wh), identFromName('analytics.revenue'));
    await writer.ensureTable(await generatedMetadata([{ column: 'window_start', transform: 'day', param: null }]));
    const base = rows(90);
    await writer.append(base);
    // Re-state day 2 (Jan 2) only.
    const day2 = rows(9, 1000).map((r) => ({ ...r, window_start: Date.UTC(2026, 0, 2, 5) }));
    const res = await writer.overwritePartitions(day2);
    const dump = await readIcebergTable({ metadata: res.metadataLocation });
    const want = [...base.filter((r) => new Date(r.window_start as number).getUTCDate() !== 2), ...day2].map(expected).sort(byOrders);
    assert.deepEqual(dump.rows.sort(byOrders), want);
    assert.equal(dump.snapshots[1]!.summary?.operation, 'overwrite');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('replaceRows writes position deletes (merge-on-read) that pyiceberg applies', async () => {
  const { dir, wh } = tempWarehouse();
  try {
    const writer = new IcebergTableWriter(new FilesystemCatalog('lake', wh), identFromName('analytics.revenue'));
    await writer.ensureTable(await generatedMetadata());
    const base = rows(100);
    await writer.append(base);
    // Upsert customers 3 and 4: delete their rows, add one new row each.
    const fresh = [3, 4].map((c) => ({ customer_id: c, window_start: Date.UTC(2026, 0, 5), revenue: '1.00', orders: 5000 + c, region: 'eu' }));
    const res = await writer.replaceRows((r) => r.customer_id === 3n || r.customer_id === 4n || r.customer_id === 3 || r.customer_id === 4, fresh);
    const dump = await readIcebergTable({ metadata: res.metadataLocation });
    const want = [...base.filter((r) => r.customer_id !== 3 && r.customer_id !== 4), ...fresh].map(expected).sort(byOrders);
    assert.deepEqual(dump.rows.sort(byOrders), want);
    assert.equal(Number(dump.snapshots[1]!.summary?.['added-position-deletes']), 10);
    // A second delete on top of the first still leaves exactly the right rows.
    const res2 = await writer.replaceRows((r) => Number(r.customer_id) === 5, []);
    const dump2 = await readIcebergTable({ metadata: res2.metadataLocation });
    assert.deepEqual(dump2.rows.sort(byOrders), want.filter((r) => r.customer_id !== 5));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two writers committing concurrently lose no rows (optimistic retries)', async () => {
  const { dir, wh } = tempWarehouse();
  try {
    const catalog = new FilesystemCatalog('lake', wh);
    const ident = identFromName('analytics.revenue');
    await new IcebergTableWriter(catalog, ident).ensureTable(await generatedMetadata());
    const retry = { maxRetries: 50, minWaitMs: 1, maxWaitMs: 20 };
    const a = new IcebergTableWriter(catalog, ident, { retry });
    const b = new IcebergTableWriter(catalog, ident, { retry });
    const batches = 6;
    const results = await Promise.all([
      ...Array.from({ length: batches }, (_, i) => a.append(rows(10, i * 10))),
      ...Array.from({ length: batches }, (_, i) => b.append(rows(10, 1000 + i * 10))),
    ]);
    assert.ok(results.some((r) => r.attempts > 1), 'the test really produced conflicts');
    const latest = await catalog.load(ident);
    const dump = await readIcebergTable({ metadata: latest!.metadataLocation });
    assert.equal(dump.rows.length, 2 * batches * 10);
    assert.equal(new Set(dump.rows.map((r) => r.orders)).size, 2 * batches * 10);
    assert.equal(dump.snapshots.length, 2 * batches);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
