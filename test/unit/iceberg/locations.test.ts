// File locations and partition folders as Iceberg Java writes them (issue 20.2, 20.7): the
// location names the file as stored (never percent-decoded), folder names are URL-encoded
// once with Java's URLEncoder, values in Transform.toHumanString form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { toLocation, toPath } from '../../../targets/runtime/lib/iceberg/writer/file-io.ts';
import { humanDecimal, humanPartitionValue, partitionToPath, urlEncodeJava } from '../../../targets/runtime/lib/iceberg/writer/partition-path.ts';
import { decodeManifest, decodeManifestList } from '../../../targets/runtime/lib/iceberg/writer/manifests.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import type { TableMetadata } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';

test('locations name the file as stored: no percent-encoding, file:/, file:/// and localhost read the same', () => {
  assert.equal(toLocation('/tmp/my wh/t/data/city=Z%C3%BCrich/a.parquet'), 'file:///tmp/my wh/t/data/city=Z%C3%BCrich/a.parquet');
  assert.equal(toPath('file:///tmp/my wh/x'), '/tmp/my wh/x');
  assert.equal(toPath('file:/tmp/my wh/x'), '/tmp/my wh/x', 'what Iceberg Java (Hadoop Path) writes');
  assert.equal(toPath('file://localhost/tmp/a%20b'), '/tmp/a%20b', 'a % sequence is part of the name');
  assert.equal(toPath('/tmp/x'), '/tmp/x');
});

test("partition folders as Java's partitionToPath: URLEncoder on both sides, human values", () => {
  assert.equal(urlEncodeJava('Zürich'), 'Z%C3%BCrich');
  assert.equal(urlEncodeJava('New York/a+b&c*d.e_f-g~'), 'New+York%2Fa%2Bb%26c*d.e_f-g%7E');
  assert.equal(humanDecimal(-100000n, 2), '-1000.00');
  assert.equal(humanDecimal(5n, 2), '0.05');
  assert.equal(humanDecimal(7n, 0), '7');
  assert.equal(humanDecimal(123n, 9), '1.23E-7', 'BigDecimal.toString switches to E notation below 10^-6');
  assert.equal(humanPartitionValue('day', 'date', 19737), '2024-01-15');
  assert.equal(humanPartitionValue('month', 'int', 648), '2024-01');
  assert.equal(humanPartitionValue('year', 'int', 54), '2024');
  assert.equal(humanPartitionValue('hour', 'int', 473698), '2024-01-15-10');
  assert.equal(humanPartitionValue('identity', 'timestamp', 1705312800000000n), '2024-01-15T10:00');
  assert.equal(humanPartitionValue('identity', 'timestamptz', 1705312801500000n), '2024-01-15T10:00:01.500Z');
  assert.equal(humanPartitionValue('identity', 'binary', Uint8Array.of(0, 0, 0, 0xff)), 'AAAA/w==');
  assert.equal(humanPartitionValue('identity', 'double', 1), '1.0');
  assert.equal(humanPartitionValue('bucket[16]', 'int', 3), '3');
  assert.equal(humanPartitionValue('identity', 'string', null), 'null');
  assert.equal(
    partitionToPath(
      [
        { name: 'city', transform: 'identity', sourceType: 'string' },
        { name: 'amount_trunc_100', transform: 'truncate[100]', sourceType: 'decimal(12,2)' },
      ],
      { city: 'Zürich', amount_trunc_100: -100000n },
    ),
    'city=Z%C3%BCrich/amount_trunc_100=-1000.00',
  );
});

test('a table in a warehouse with a space and a non-ASCII partition value: manifests name the files on disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec ice '));
  try {
    const wh = toLocation(join(dir, 'my warehouse'));
    const writer = new IcebergTableWriter(new FilesystemCatalog('lake', wh), identFromName('db.t'));
    const meta = {
      'format-version': 2, 'table-uuid': '9c12d441-03fe-4693-9a96-a0705ddf69c1', location: '', 'last-sequence-number': 0, 'last-updated-ms': 0, 'last-column-id': 2,
      'current-schema-id': 0, schemas: [{ type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'city', required: false, type: 'string' }, { id: 2, name: 'n', required: false, type: 'int' }] }],
      'default-spec-id': 0, 'partition-specs': [{ 'spec-id': 0, fields: [{ 'source-id': 1, 'field-id': 1000, name: 'city', transform: 'identity' }] }], 'last-partition-id': 1000,
      'default-sort-order-id': 0, 'sort-orders': [{ 'order-id': 0, fields: [] }], properties: {}, 'current-snapshot-id': null, refs: {}, snapshots: [], 'snapshot-log': [], 'metadata-log': [],
    } as unknown as TableMetadata;
    await writer.ensureTable(meta);
    const res = await writer.append([{ city: 'Zürich', n: 1 }, { city: 'New York', n: 2 }]);
    // What the manifests say, read back from the committed metadata.
    const md = JSON.parse(readFileSync(toPath(res.metadataLocation), 'utf8')) as { snapshots: { 'manifest-list': string }[] };
    const list = await decodeManifestList(readFileSync(toPath(md.snapshots[0]!['manifest-list'])));
    const paths = (await Promise.all(list.map(async (m) => (await decodeManifest(readFileSync(toPath(m.manifest_path)))).entries.map((e) => e.dataFile.filePath)))).flat().sort();
    assert.deepEqual([...res.dataFiles].sort(), paths);
    assert.ok(paths[0]!.startsWith(`file://${dir}/my warehouse/db/t/data/city=New+York/`), paths[0]);
    assert.ok(paths[1]!.startsWith(`file://${dir}/my warehouse/db/t/data/city=Z%C3%BCrich/`), paths[1]);
    for (const p of paths) assert.ok(existsSync(p.slice('file://'.length)), `${p} exists under exactly that name`);
    assert.deepEqual(readdirSync(join(dir, 'my warehouse', 'db', 't', 'data')).sort(), ['city=New+York', 'city=Z%C3%BCrich']);
    assert.ok(res.metadataLocation.startsWith(`file://${dir}/my warehouse/`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
