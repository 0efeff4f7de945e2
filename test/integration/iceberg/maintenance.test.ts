// `pipec compact`'s actions against real tables, checked by pyiceberg: rewrites keep exactly the
// same rows, expiry keeps the last N snapshots, orphan removal deletes only unreachable files,
// and a writer killed mid-commit leaves the table readable at its previous snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, utimesSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { icebergTarget } from '../../../targets/iceberg/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { runCompactionAction } from '../../../targets/iceberg/writer/maintenance.ts';
import { readLiveFiles } from '../../../targets/runtime/lib/iceberg/writer/live-files.ts';
import { parseMetadataJson } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { applyTransform } from '../../../targets/runtime/lib/iceberg/writer/transforms.ts';
import { icebergPlan } from '../../fixtures/iceberg/sink-plan.ts';

async function freshTable(dir: string): Promise<{ writer: IcebergTableWriter; catalog: FilesystemCatalog }> {
  const files = await icebergTarget.emit(icebergPlan({ partitionBy: [{ column: 'customer_id', transform: 'bucket', param: 2 }] }), { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  const catalog = new FilesystemCatalog('lake', pathToFileURL(join(dir, 'wh')).href);
  const writer = new IcebergTableWriter(catalog, identFromName('analytics.revenue'));
  await writer.ensureTable(parseMetadataJson(String(files.find((f) => f.path.endsWith('metadata.json'))!.contents)));
  return { writer, catalog };
}

const row = (i: number) => ({ customer_id: i % 10, window_start: Date.UTC(2026, 0, 1, i % 24), revenue: `${i}.50`, orders: i, region: i % 4 ? 'us' : null });
const sortRows = (rs: Record<string, unknown>[]) => [...rs].sort((a, b) => Number(a.orders) - Number(b.orders));

test('rewrite_data_files bin-packs small files and rewrite_delete_files applies deletes; rows never change', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-compact-'));
  try {
    const { writer } = await freshTable(dir);
    for (let b = 0; b < 8; b++) await writer.append(Array.from({ length: 20 }, (_, i) => row(b * 20 + i)));
    await writer.replaceRows((r) => Number(r.orders) % 3 === 0, []);
    const before = await writer.load();
    const rowsBefore = sortRows((await readIcebergTable({ metadata: before.metadataLocation })).rows);
    const filesBefore = (await readLiveFiles(before.metadata)).entries.filter((e) => e.entry.dataFile.content === 0).length;
    assert.equal(filesBefore, 16, '8 appends x 2 buckets');

    const r1 = await runCompactionAction(writer, { kind: 'rewrite_data_files', fileSizeBelowBytes: 1_000_000, targetBytes: 128_000_000, minInputFiles: 5 });
    assert.equal(r1.rewrittenFiles, 16);
    assert.equal(r1.addedFiles, 2, 'one file per bucket partition');
    const mid = await writer.load();
    assert.deepEqual(sortRows((await readIcebergTable({ metadata: mid.metadataLocation })).rows), rowsBefore);
    const live = await readLiveFiles(mid.metadata);
    assert.equal(live.entries.filter((e) => e.entry.dataFile.content === 1).length, 0, 'delete files that only targeted rewritten files are gone');

    // Delete customers 0 and 1, then rewrite the files whose delete ratio passes 30%. After the
    // bin-pack each bucket is one file, so the expected count follows from the rows per bucket.
    await writer.replaceRows((r) => Number(r.customer_id) <= 1, []);
    const withDeletes = sortRows((await readIcebergTable({ metadata: (await writer.load()).metadataLocation })).rows);
    const bucketOf = (id: unknown): unknown => applyTransform('bucket[2]', 'long', BigInt(Number(id)));
    const expectedFiles = [0, 1].filter((b) => {
      const inBucket = rowsBefore.filter((r) => bucketOf(r.customer_id) === b);
      const deleted = inBucket.filter((r) => Number(r.customer_id) <= 1).length;
      return deleted / inBucket.length > 0.3;
    }).length;
    assert.ok(expectedFiles > 0, "the deletes push at least one file past the threshold");
    const r2 = await runCompactionAction(writer, { kind: 'rewrite_delete_files', deleteRatioAbove: 0.3 });
    assert.equal(r2.rewrittenFiles, expectedFiles);
    const after = await writer.load();
    assert.deepEqual(sortRows((await readIcebergTable({ metadata: after.metadataLocation })).rows), withDeletes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a rewrite keeps decimals beyond 2^53 exact (the rows are read back losslessly)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-compact-exact-'));
  try {
    const { writer } = await freshTable(dir);
    const big = (i: number) => ({ ...row(i), revenue: `90071992547409${String(i).padStart(2, '0')}.57` });
    for (let b = 0; b < 5; b++) await writer.append(Array.from({ length: 4 }, (_, i) => big(b * 4 + i)));
    const r = await runCompactionAction(writer, { kind: 'rewrite_data_files', fileSizeBelowBytes: 1_000_000, targetBytes: 128_000_000, minInputFiles: 2 });
    assert.ok((r.rewrittenFiles ?? 0) >= 5);
    const after = sortRows((await readIcebergTable({ metadata: (await writer.load()).metadataLocation })).rows);
    assert.deepEqual(
      after.map((x) => x.revenue),
      Array.from({ length: 20 }, (_, i) => `90071992547409${String(i).padStart(2, '0')}.57`),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('expire_snapshots keeps the last N and deletes files only expired snapshots reached', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-expire-'));
  try {
    const { writer } = await freshTable(dir);
    for (let b = 0; b < 5; b++) await writer.append(Array.from({ length: 10 }, (_, i) => row(b * 10 + i)));
    await runCompactionAction(writer, { kind: 'rewrite_data_files', fileSizeBelowBytes: 1_000_000, targetBytes: 128_000_000, minInputFiles: 2 });
    const before = await writer.load();
    const oldFiles = (await readLiveFiles(parseMetadataJson(JSON.stringify(before.metadata)))).entries.map((e) => e.entry.dataFile.filePath);
    const report = await runCompactionAction(writer, { kind: 'expire_snapshots', olderThanMs: 0, retainLast: 2 }, Date.now() + 1000);
    assert.equal(report.expiredSnapshots, 4);
    const after = await writer.load();
    const dump = await readIcebergTable({ metadata: after.metadataLocation });
    assert.equal(dump.snapshots.length, 2);
    assert.equal(dump.rows.length, 50);
    assert.ok((report.deletedFiles ?? 0) > 0, 'files of the small appends were deleted');
    for (const f of oldFiles) assert.ok(existsSync(fileURLToPath(f)), 'files of retained snapshots stay');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a writer killed mid-run leaves the table readable; orphan files are removable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-kill-'));
  try {
    const { writer, catalog } = await freshTable(dir);
    const wh = pathToFileURL(join(dir, 'wh')).href;
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'kill-writer.ts'), wh, String(round * 100_000)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let commits = 0;
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (b: Buffer) => {
          commits += (b.toString().match(/committed/g) ?? []).length;
          // Kill at a varying point after a few commits, usually in the middle of writing files.
          if (commits >= 2 + round) child.kill('SIGKILL');
        });
        child.on('exit', () => resolve());
      });
      const t = await catalog.load(identFromName('analytics.revenue'));
      const dump = await readIcebergTable({ metadata: t!.metadataLocation });
      assert.equal(dump.rows.length % 50, 0, 'only whole batches are visible');
      assert.equal(new Set(dump.rows.map((r) => r.orders)).size, dump.rows.length, 'no row appears twice');
    }
    // A stray file the killed writer could have left; old enough to be an orphan.
    const current = await writer.load();
    const stray = join(fileURLToPath(current.metadata.location), 'data', 'stray.parquet');
    writeFileSync(stray, 'half a file');
    utimesSync(stray, new Date(0), new Date(0));
    const rowsBefore = (await readIcebergTable({ metadata: current.metadataLocation })).rows.length;
    const report = await runCompactionAction(writer, { kind: 'remove_orphan_files', olderThanMs: 0 }, Date.now() + 60_000);
    assert.ok((report.deletedFiles ?? 0) >= 1);
    assert.ok(!existsSync(stray));
    assert.equal((await readIcebergTable({ metadata: (await writer.load()).metadataLocation })).rows.length, rowsBefore);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
