// Manifest values pinned against the table spec (issue 20.3, 20.5): decimal partition values
// as Avro fixed of the minimum size (TypeUtil.decimalRequiredBytes), big-endian two's
// complement; manifest-list `contains_nan` false (not null) as Java writes it; manifest-list
// bounds of binary and string partition values in unsigned byte order (found by DuckDB
// skipping a manifest of a BYTES-partitioned table in the interop suite).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decimalRequiredBytes } from '../../../targets/runtime/lib/iceberg/writer/single-value.ts';
import { decodeManifest, decodeManifestList, encodeManifest, encodeManifestList, summarizeManifest, CONTENT, STATUS, type SpecContext } from '../../../targets/runtime/lib/iceberg/writer/manifests.ts';
import { decodeAvroContainer } from '../../../targets/runtime/lib/iceberg/writer/avro-container.ts';

test('decimal sizes: the minimum bytes per precision (TypeUtil.decimalRequiredBytes)', () => {
  assert.deepEqual([1, 2, 9, 10, 12, 18, 19, 38].map(decimalRequiredBytes), [1, 1, 4, 5, 6, 8, 9, 16]);
});

const ctx: SpecContext = {
  schema: { 'schema-id': 0, fields: [{ id: 1, name: 'amount', required: false, type: 'decimal(12,2)' }, { id: 2, name: 'n', required: false, type: 'int' }] },
  spec: { 'spec-id': 0, fields: [{ 'source-id': 1, 'field-id': 1000, name: 'amount', transform: 'identity' }, { 'source-id': 2, 'field-id': 1001, name: 'n', transform: 'identity' }] },
  formatVersion: 2,
};

const entry = (amount: unknown, n: number | null) => ({
  status: STATUS.ADDED, snapshotId: 1, sequenceNumber: null, fileSequenceNumber: null,
  dataFile: {
    content: CONTENT.DATA, filePath: 'file:///wh/a.parquet', fileFormat: 'PARQUET' as const, partition: { amount, n }, recordCount: 1,
    fileSizeInBytes: 10, metrics: null, splitOffsets: null, equalityIds: null, sortOrderId: null,
  },
});

test('decimal(12,2) partition values are 6-byte fixed, big-endian two\'s complement, and read back', async () => {
  const bytes = await encodeManifest(ctx, [entry(-100000n, 1), entry('12.50', 2)], 'data');
  const c = await decodeAvroContainer(bytes);
  const dataFile = (c.schema.fields as { name: string; type: { fields: { name: string; type: unknown }[] } }[]).find((f) => f.name === 'data_file')!;
  const partition = dataFile.type.fields.find((f) => f.name === 'partition')!.type as { fields: { name: string; type: unknown[] }[] };
  assert.deepEqual(partition.fields[0]!.type[1], { type: 'fixed', name: 'decimal_12_2', size: 6, logicalType: 'decimal', precision: 12, scale: 2 });
  const raw = c.records[0]!.data_file as { partition: { amount: unknown } };
  assert.equal(raw.partition.amount, -100000n, 'decoded to the unscaled value');
  const { entries } = await decodeManifest(bytes);
  assert.deepEqual(entries.map((e) => e.dataFile.partition.amount), [-100000n, 1250n]);
});

test('manifest list partition summaries: contains_nan is false, not null, for types without NaN', async () => {
  const s = summarizeManifest(ctx, [entry(-100000n, 1), entry(1250n, null)], 'file:///wh/m.avro', 100, 1, 1);
  assert.deepEqual(s.partitions!.map((p) => [p.contains_null, p.contains_nan]), [[false, false], [true, false]]);
  assert.deepEqual([...s.partitions![0]!.lower_bound!], [0xfe, 0x79, 0x60], 'bounds: minimum bytes');
  const list = await decodeManifestList(await encodeManifestList([s], 1, null, 1));
  assert.equal(list[0]!.partitions![1]!.contains_nan, false);
});

test('manifest list bounds: binary and string partition values in unsigned byte order (spec: bounds are the serialized min and max)', () => {
  const c: SpecContext = {
    schema: { 'schema-id': 0, fields: [{ id: 1, name: 'payload', required: false, type: 'binary' }, { id: 2, name: 'city', required: false, type: 'string' }] },
    spec: { 'spec-id': 0, fields: [{ 'source-id': 1, 'field-id': 1000, name: 'payload', transform: 'identity' }, { 'source-id': 2, 'field-id': 1001, name: 'city', transform: 'identity' }] },
    formatVersion: 2,
  };
  const e = (payload: number[], city: string) => ({ ...entry(null, null), dataFile: { ...entry(null, null).dataFile, partition: { payload: new Uint8Array(payload), city } } });
  const s = summarizeManifest(c, [e([0, 0, 0x0c, 0xff], 'Z'), e([0, 0, 0x09, 0xff], '\u{10400}'), e([0, 0, 0xff], '\uFFFD'), e([0, 0, 0, 0xff], 'Zürich')], 'file:///wh/m.avro', 100, 1, 1);
  const hex = (b: Buffer | null) => b?.toString('hex');
  // Binary bounds are the bytes themselves; 00 00 FF sorts after 00 00 0C FF (third byte).
  assert.deepEqual([hex(s.partitions![0]!.lower_bound), hex(s.partitions![0]!.upper_bound)], ['000000ff', '0000ff']);
  // Strings are UTF-8: 'Z' (5a) lowest, U+10400 (f0 90 90 80) above U+FFFD (ef bf bd).
  assert.deepEqual([hex(s.partitions![1]!.lower_bound), hex(s.partitions![1]!.upper_bound)], ['5a', 'f0909080']);
});
