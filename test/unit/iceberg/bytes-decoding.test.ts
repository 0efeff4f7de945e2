// BYTES reach Iceberg as bytes (issue 20.1): the runtime carries them as base64 text, as
// Flink's JSON format reads them; the table binding decodes them, nested values too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parquetReadObjects } from 'hyparquet';
import { writeParquetDataFile } from '../../../targets/runtime/lib/iceberg/writer/parquet-data-file.ts';
import { bytesDecoder } from '../../../targets/runtime/lib/iceberg/table-binding.ts';

test('BYTES: the runtime base64 text becomes the bytes, also inside lists, structs and maps', () => {
  assert.deepEqual([...(bytesDecoder('binary')!('AAAA/w==') as Uint8Array)], [0, 0, 0, 0xff]);
  assert.equal(bytesDecoder('string'), null);
  const list = bytesDecoder({ type: 'list', 'element-id': 2, element: 'binary', 'element-required': false })!;
  assert.deepEqual((list(['AQ==', null]) as unknown[]).map((b) => (b === null ? null : [...(b as Uint8Array)])), [[1], null]);
  const struct = bytesDecoder({ type: 'struct', fields: [{ id: 3, name: 'p', required: false, type: 'binary' }, { id: 4, name: 's', required: false, type: 'string' }] })!;
  const o = struct({ p: '/w==', s: '/w==' }) as Record<string, unknown>;
  assert.deepEqual([...(o.p as Uint8Array)], [0xff]);
  assert.equal(o.s, '/w==');
});

test('BYTES: a Parquet data file holds the decoded bytes', async () => {
  const fields = [{ id: 1, name: 'payload', required: false, type: 'binary' as const }];
  const dec = bytesDecoder('binary')!;
  const pq = writeParquetDataFile(fields, [{ payload: dec('AAAA/w==') }, { payload: null }], { codec: 'UNCOMPRESSED' });
  const rows = (await parquetReadObjects({ file: pq.bytes.buffer.slice(pq.bytes.byteOffset, pq.bytes.byteOffset + pq.bytes.byteLength) as ArrayBuffer, utf8: false })) as { payload: Uint8Array | null }[];
  assert.deepEqual([...rows[0]!.payload!], [0, 0, 0, 0xff]);
  assert.equal(rows[1]!.payload, null);
});
