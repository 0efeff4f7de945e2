// Format v3 tables through the filesystem and SQL (SQLite) catalogs: row lineage and deletion
// vectors over appends, deletes, a partition overwrite and a compaction (v3-scenario.ts),
// read back by pyiceberg; and the deletion-vector bytes checked both ways against pyiceberg's
// Puffin reader and pyroaring. (The REST catalog run is in rest-catalog.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { SqlCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/sql-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { encodeDeletionVectorFile, decodeDeletionVector } from '../../../targets/runtime/lib/iceberg/writer/deletion-vectors.ts';
import { deserializeRoaring64 } from '../../../targets/runtime/lib/iceberg/writer/roaring-portable.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { runV3Scenario, v3Metadata } from './v3-scenario.ts';
import { probe } from './probe.ts';

function tempWarehouse(): { dir: string; wh: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-v3-'));
  return { dir, wh: pathToFileURL(join(dir, 'warehouse')).href };
}

test('v3, filesystem catalog: row lineage and deletion vectors over append, delete, overwrite, compaction (pyiceberg)', { timeout: 120_000 }, async () => {
  const { dir, wh } = tempWarehouse();
  try {
    const writer = new IcebergTableWriter(new FilesystemCatalog('lake', wh), identFromName('analytics.revenue'));
    await writer.ensureTable(await v3Metadata());
    await runV3Scenario(writer);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('v3, SQL catalog (SQLite): the same commits; pyiceberg SqlCatalog loads the v3 table', { timeout: 120_000 }, async () => {
  const { dir, wh } = tempWarehouse();
  const uri = `sqlite:///${join(dir, 'catalog.db')}`;
  const catalog = await SqlCatalog.open('lake', uri, wh);
  try {
    const writer = new IcebergTableWriter(catalog, identFromName('analytics.revenue'));
    await writer.ensureTable(await v3Metadata());
    await runV3Scenario(writer);
    const dump = await readIcebergTable({ catalog: { uri, name: 'lake' }, table: 'analytics.revenue' });
    assert.equal(dump.formatVersion, 3);
    assert.deepEqual(dump.rows.map((r) => Number(r.orders)).sort((a, b) => a - b), [2, 4, 8, 14, 16, 100, 201, 203]);
  } finally {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deletion vectors: pyiceberg decodes ours (array and bitmap containers, positions past 2^32); we decode pyroaring run containers', { timeout: 60_000 }, async () => {
  // 5000 positions in one 65536-block → a bitmap container; a few sparse ones → arrays; one
  // past 2^32 → a second 32-bit bitmap under key 1.
  const positions = [...Array.from({ length: 5000 }, (_, i) => 70_000 + 2 * i), 3, 7, 65_535, 2 ** 32 + 12];
  const dv = encodeDeletionVectorFile('file:///wh/t/data/a.parquet', positions);
  const theirs = await probe<{ vectors: { referenced_data_file: string; positions: number[] }[] }>({ op: 'dv', puffin: dv.bytes.toString('base64') });
  assert.deepEqual(theirs.vectors, [{ referenced_data_file: 'file:///wh/t/data/a.parquet', positions: [...positions].sort((a, b) => a - b) }]);
  assert.deepEqual(decodeDeletionVector(dv.bytes, dv.offset, dv.length, 'test'), [...positions].sort((a, b) => a - b));
  assert.equal(dv.cardinality, positions.length);

  // Runs (pyroaring's run_optimize) in the 32-bit portable layout, under the 64-bit framing.
  const runs = [...Array.from({ length: 3000 }, (_, i) => 100 + i), ...Array.from({ length: 10 }, (_, i) => 200_000 + 5 * i), 131_072];
  for (const set of [runs, [1, 2, 3, 4, 5], Array.from({ length: 8 }, (_, i) => i * 70_000 + 1)]) {
    const { bytes } = await probe<{ bytes: string }>({ op: 'roaring', positions: set });
    const framing = Buffer.alloc(12);
    framing.writeBigUInt64LE(1n, 0);
    framing.writeUInt32LE(0, 8);
    assert.deepEqual(deserializeRoaring64(Buffer.concat([framing, Buffer.from(bytes, 'base64')])), [...set].sort((a, b) => a - b));
  }
});
