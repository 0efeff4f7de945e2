// Parquet data files as parquet-mr / Iceberg Java write them (issue 20.4, 20.6): BOOLEAN
// values PLAIN (bit-packed; Spark's vectorised reader refuses RLE) and a `created_by` that
// parquet-mr's VersionParser reads (else Spark ignores string and decimal statistics).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { writeParquetDataFile, PARQUET_CREATED_BY } from '../../../targets/runtime/lib/iceberg/writer/parquet-data-file.ts';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

test('BOOLEAN columns are PLAIN (bit-packed) past 16 rows, as parquet-mr writes them', async () => {
  const fields = [{ id: 1, name: 'flag', required: false, type: 'boolean' as const }, { id: 2, name: 'n', required: true, type: 'int' as const }];
  const rows = Array.from({ length: 100 }, (_, i) => ({ flag: i % 7 === 0 ? null : i % 3 === 0, n: i }));
  const pq = writeParquetDataFile(fields, rows, { codec: 'UNCOMPRESSED' });
  const ab = pq.bytes.buffer.slice(pq.bytes.byteOffset, pq.bytes.byteOffset + pq.bytes.byteLength) as ArrayBuffer;
  const meta = parquetMetadata(ab);
  const col = meta.row_groups[0]!.columns[0]!.meta_data!;
  assert.ok(!col.encodings.includes('RLE_DICTIONARY'));
  // RLE stays only as the definition-level encoding of the page, never as the value encoding.
  assert.deepEqual(col.encoding_stats?.map((s) => s.encoding), ['PLAIN']);
  const back = (await parquetReadObjects({ file: ab })) as { flag: boolean | null }[];
  assert.deepEqual(back.map((r) => r.flag), rows.map((r) => r.flag));
});

test('created_by parses with parquet-mr VersionParser and carries the package version', () => {
  // parquet-mr's VersionParser.FORMAT: "(.*?)\\s+version\\s*(?:([^(]*?)\\s*(?:\\(\\s*build\\s*([^)]*?)\\s*\\))?)?"
  const m = /^(.*?)\s+version\s*(?:([^(]*?)\s*(?:\(\s*build\s*([^)]*?)\s*\))?)?$/.exec(PARQUET_CREATED_BY);
  assert.ok(m, PARQUET_CREATED_BY);
  assert.equal(m[1], 'pipec');
  assert.equal(m[2], pkg.version, 'PARQUET_CREATED_BY follows package.json');
  assert.ok(m[3]);
  const pq = writeParquetDataFile([{ id: 1, name: 'n', required: true, type: 'int' }], [{ n: 1 }], { codec: 'UNCOMPRESSED' });
  assert.equal(parquetMetadata(pq.bytes.buffer.slice(pq.bytes.byteOffset, pq.bytes.byteOffset + pq.bytes.byteLength) as ArrayBuffer).created_by, PARQUET_CREATED_BY);
});
