// Upsert keys of the runtime Iceberg sink against real files: a key read back from a data file
// (lossless reads) has the same canonical text as the row that was written, and pruning never
// drops the file that holds a key — by column bounds (truncated strings, decimals wider than
// 18 digits, timestamps, nulls) and by partition values decoded from the manifests — while it
// does drop files that cannot hold it. A wrong prune would leave a replaced row in the table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { readLiveFiles } from '../../../targets/runtime/lib/iceberg/writer/live-files.ts';
import { readDataFileRecords } from '../../../targets/runtime/lib/iceberg/writer/read-records.ts';
import type { TableMetadata } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';
import type { IcebergField } from '../../../targets/iceberg/type-map.ts';
import { KeyCodec, KeySet, PartitionFilter } from '../../../targets/runtime/lib/iceberg/row-keys.ts';

const FIELDS: IcebergField[] = [
  { id: 1, name: 'k_str', required: false, type: 'string' },
  { id: 2, name: 'k_long', required: true, type: 'long' },
  { id: 3, name: 'k_ts', required: true, type: 'timestamp' },
  { id: 4, name: 'k_dec', required: false, type: 'decimal(30, 2)' },
  { id: 5, name: 'k_int', required: true, type: 'int' },
  { id: 6, name: 'k_date', required: true, type: 'date' },
  { id: 7, name: 'v', required: false, type: 'string' },
];

function metadata(partition: { 'source-id': number; 'field-id': number; name: string; transform: string }[]): TableMetadata {
  return {
    'format-version': 2, 'table-uuid': randomUUID(), location: '', 'last-sequence-number': 0, 'last-updated-ms': 0, 'last-column-id': 7,
    'current-schema-id': 0, schemas: [{ 'schema-id': 0, type: 'struct', fields: FIELDS }],
    'default-spec-id': 0, 'partition-specs': [{ 'spec-id': 0, fields: partition }], 'last-partition-id': 1003,
    'default-sort-order-id': 0, 'sort-orders': [{ 'order-id': 0, fields: [] }], properties: {},
  } as TableMetadata;
}

/** Rows with long strings (bounds truncated at 16 chars), 20+ digit decimals, nulls, negative values. */
function rows(n: number, from: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      k_str: i % 11 === 0 ? null : `customer-with-a-long-name-${String(i).padStart(5, '0')}`,
      k_long: BigInt(i) * 1_000_000_007n - 500_000_000_000n,
      k_ts: Date.UTC(2024, 0, 1) + i * 3_600_000 + (i % 7),
      k_dec: i % 13 === 0 ? null : `${i % 2 ? '-' : ''}123456789012345678${String(i).padStart(4, '0')}.${String(i % 100).padStart(2, '0')}`,
      k_int: (i % 9) - 4,
      k_date: 19_700 + (i % 40),
      v: `v${i}`,
    };
  });
}

test('keys read back equal the written keys; bounds and partition pruning keep every key’s file and drop others', async () => {
  const partitions = [
    { 'source-id': 1, 'field-id': 1000, name: 'k_str_bucket', transform: 'bucket[3]' },
    { 'source-id': 3, 'field-id': 1001, name: 'k_ts_day', transform: 'day' },
    { 'source-id': 2, 'field-id': 1002, name: 'k_long_trunc', transform: 'truncate[1000000000000]' },
    { 'source-id': 5, 'field-id': 1003, name: 'k_int', transform: 'identity' },
  ];
  const wh = path.join(tempDir('pipec-ice-keys-'), 'warehouse');
  const writer = new IcebergTableWriter(new FilesystemCatalog('lake', wh), identFromName('k.t'));
  await writer.ensureTable(metadata(partitions));
  // Several appends: files with different key ranges.
  for (let b = 0; b < 4; b++) await writer.append(rows(150, b * 150));
  const meta = (await writer.load()).metadata;
  const keyNames = ['k_str', 'k_long', 'k_ts', 'k_dec', 'k_int'];
  const codec = new KeyCodec(FIELDS, keyNames);
  assert.equal(codec.unsupportedColumn(), null);
  const parts = PartitionFilter.of(meta, codec);
  assert.ok(parts, 'every partition source column is a key column: partition pruning applies');
  const live = (await readLiveFiles(meta)).entries;
  const written = new Map(rows(600, 0).map((r) => [codec.ref(r).id, r]));
  let seen = 0;
  let pruned = 0;
  for (const { entry, manifest } of live) {
    const file = entry.dataFile;
    for (const rec of await readDataFileRecords(file.filePath, FIELDS)) {
      const key = codec.ref(rec);
      assert.ok(written.has(key.id), `read-back key ${key.id} was written`);
      assert.ok(codec.mayHoldAny(file, [key]), `bounds keep ${file.filePath} for ${key.id}`);
      assert.ok(parts.mayHold(file, manifest.partition_spec_id, parts.partitionsOf([key])), `partition keeps ${file.filePath} for ${key.id}`);
      seen++;
    }
    // A key of another file's row: at least some files are pruned for it.
    const other = codec.ref(rows(1, 599)[0]!);
    if (!codec.mayHoldAny(file, [other]) || !parts.mayHold(file, manifest.partition_spec_id, parts.partitionsOf([other]))) pruned++;
  }
  assert.equal(seen, 600);
  assert.ok(pruned >= live.length - 2, `pruning drops the files that cannot hold a key (${pruned} of ${live.length})`);
  // The sorted key set (binary search on the first column) answers as the plain check, for
  // key sets with nulls, keys inside and outside the files' ranges, and single keys.
  const probes = [...rows(600, 0), ...rows(40, 2000), ...rows(20, 100_000)].map((r) => codec.ref(r));
  for (const subset of [probes, probes.filter((_k, i) => i % 37 === 0), probes.slice(640), [probes[3]!], [probes[11]!]]) {
    const set = new KeySet(codec, subset);
    for (const { entry } of live) assert.equal(set.mayHoldAny(entry.dataFile), codec.mayHoldAny(entry.dataFile, subset));
  }
  const strFirst = new KeyCodec(FIELDS, ['k_str', 'k_long']);
  const strProbes = [...rows(600, 0), ...rows(50, 5000)].map((r) => strFirst.ref(r));
  for (const subset of [strProbes, strProbes.filter((_k, i) => i % 41 === 0), strProbes.slice(600)]) {
    const set = new KeySet(strFirst, subset);
    for (const { entry } of live) assert.equal(set.mayHoldAny(entry.dataFile), strFirst.mayHoldAny(entry.dataFile, subset));
  }
  // A key beyond every file's bounds is pruned everywhere.
  const absent = codec.ref({ ...rows(1, 0)[0]!, k_long: 9_000_000_000_000_000n });
  assert.ok(live.every(({ entry }) => !codec.mayHoldAny(entry.dataFile, [absent])));
});

test('partition pruning applies only when the partition is a function of the key; unsupported key types are named', () => {
  const codec = new KeyCodec(FIELDS, ['k_long']);
  const byOther = metadata([{ 'source-id': 7, 'field-id': 1000, name: 'v', transform: 'identity' }]);
  assert.equal(PartitionFilter.of(byOther, codec), null);
  const nested = new KeyCodec([...FIELDS, { id: 8, name: 'tags', required: false, type: { type: 'list', 'element-id': 9, element: 'string', 'element-required': false } }], ['k_long', 'tags']);
  assert.deepEqual(nested.unsupportedColumn(), { name: 'tags', type: 'list' });
});
