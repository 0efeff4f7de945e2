// The REST catalog client against Apache Iceberg's own reference REST server: create, append,
// concurrent commits resolved by HTTP 409 retries, snapshot expiry; pyiceberg reads the result.
// Format v3: the server (which checks row lineage on every added snapshot) accepts appends,
// deletion vectors, a partition overwrite and a compaction (v3-scenario.ts), and concurrent
// appends get disjoint row-id ranges however their retries interleave.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { icebergTarget } from '../../../targets/iceberg/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { RestCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/rest-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { runCompactionAction } from '../../../targets/iceberg/writer/maintenance.ts';
import { parseMetadataJson } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { icebergPlan } from '../../fixtures/iceberg/sink-plan.ts';
import { startRestCatalog, type RestServer } from './rest-server.ts';
import { lineageOf, rowLineage, runV3Scenario, v3Metadata, v3Row } from './v3-scenario.ts';

let server: RestServer;
before(async () => {
  server = await startRestCatalog();
});
after(() => server?.stop());

const row = (i: number) => ({ customer_id: i % 6, window_start: Date.UTC(2026, 0, 1 + (i % 2)), revenue: `${i}.25`, orders: i, region: 'eu' });

test('REST catalog: create, append and concurrent commits; pyiceberg reads every row once', { timeout: 300_000 }, async () => {
  const files = await icebergTarget.emit(icebergPlan({ partitionBy: [{ column: 'window_start', transform: 'day', param: null }] }), { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  const metadata = parseMetadataJson(String(files.find((f) => f.path.endsWith('metadata.json'))!.contents));
  const ident = identFromName('analytics.revenue');
  const retry = { maxRetries: 50, minWaitMs: 5, maxWaitMs: 50 };
  const a = new IcebergTableWriter(new RestCatalog('lake', server.uri), ident, { retry });
  const b = new IcebergTableWriter(new RestCatalog('lake', server.uri), ident, { retry });
  const created = await a.ensureTable(metadata);
  assert.equal(created.metadata['format-version'], 2);
  const results = await Promise.all([
    ...Array.from({ length: 4 }, (_, k) => a.append(Array.from({ length: 25 }, (_, i) => row(k * 25 + i)), { writer: 'a' })),
    ...Array.from({ length: 4 }, (_, k) => b.append(Array.from({ length: 25 }, (_, i) => row(1000 + k * 25 + i)), { writer: 'b' })),
  ]);
  assert.ok(results.some((r) => r.attempts > 1), 'concurrent commits really conflicted');
  const latest = await a.load();
  const dump = await readIcebergTable({ metadata: latest.metadataLocation });
  assert.equal(dump.rows.length, 200);
  assert.equal(new Set(dump.rows.map((r) => r.orders)).size, 200);
  assert.equal(dump.snapshots.length, 8);
  // Expiry through the REST protocol's remove-snapshots update.
  const report = await runCompactionAction(a, { kind: 'expire_snapshots', olderThanMs: 0, retainLast: 3 }, Date.now() + 1000);
  assert.equal(report.expiredSnapshots, 5);
  const after = await readIcebergTable({ metadata: (await a.load()).metadataLocation });
  assert.equal(after.snapshots.length, 3);
  assert.equal(after.rows.length, 200);
});

test('REST catalog, format v3: the server accepts appends, deletion vectors, overwrite and compaction with row lineage', { timeout: 300_000 }, async () => {
  const writer = new IcebergTableWriter(new RestCatalog('lake', server.uri), identFromName('lineage.scenario'));
  const created = await writer.ensureTable(await v3Metadata());
  assert.equal(created.metadata['format-version'], 3);
  assert.equal(created.metadata['next-row-id'], 0);
  await runV3Scenario(writer);
});

test('REST catalog, format v3: concurrent appends retried on 409 get disjoint, gapless row-id ranges', { timeout: 300_000 }, async () => {
  const ident = identFromName('lineage.concurrent');
  const retry = { maxRetries: 50, minWaitMs: 5, maxWaitMs: 50 };
  const a = new IcebergTableWriter(new RestCatalog('lake', server.uri), ident, { retry });
  const b = new IcebergTableWriter(new RestCatalog('lake', server.uri), ident, { retry });
  await a.ensureTable(await v3Metadata());
  // Writer a appends 3 rows at a time, b 5: 4 appends each = 32 rows.
  const results = await Promise.all([
    ...Array.from({ length: 4 }, (_, k) => a.append(Array.from({ length: 3 }, (_, i) => v3Row(k * 3 + i)))),
    ...Array.from({ length: 4 }, (_, k) => b.append(Array.from({ length: 5 }, (_, i) => v3Row(100 + k * 5 + i)))),
  ]);
  assert.ok(results.some((r) => r.attempts > 1), 'concurrent commits really conflicted');
  const d = await lineageOf((await a.load()).metadataLocation);
  // In commit order each snapshot starts where the previous one ended: 0, then +3 or +5 each.
  const snaps = [...d.snapshots].sort((x, y) => x.sequence_number - y.sequence_number);
  let next = 0;
  for (const s of snaps) {
    assert.equal(s.first_row_id, next);
    assert.ok(s.added_rows === 3 || s.added_rows === 5);
    next += s.added_rows!;
  }
  assert.equal(next, 32);
  assert.equal(d.next_row_id, 32);
  assert.deepEqual([...rowLineage(d).values()].map((v) => v.id).sort((x, y) => x - y), Array.from({ length: 32 }, (_, i) => i));
});

test('REST catalog: an unreachable server is a clear error naming the catalog URL', async () => {
  const c = new RestCatalog('lake', 'http://user:secret@127.0.0.1:9/');
  await assert.rejects(c.load(identFromName('a.b')), (e: Error) => /unreachable/.test(e.message) && /127\.0\.0\.1:9/.test(e.message) && !/secret/.test(e.message));
});
