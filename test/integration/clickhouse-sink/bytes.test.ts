// BYTES through the ClickHouse sink (issue 20): the runtime carries BYTES as base64 text, the
// table's String column must hold the bytes themselves, so that `WHERE payload =
// unhex('000000FF')` finds the row, on modern ClickHouse (chdb behind its HTTP endpoint) and
// on the Debian 18.16 server, through the sink's real HTTP transport. Other text columns in the
// same batch (non-ASCII, a literal backslash-u escape) must arrive unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { ensureServices } from '../../support/services.ts';
import { ClickHouseSink } from '../../../targets/runtime/lib/clickhouse/clickhouse-sink.ts';
import { bytesJson, linesBody } from '../../../targets/runtime/lib/clickhouse/encode.ts';
import { chCommand, chQuery, col, sinkDef, startChdbServer, unique } from './harness.ts';

const cols = [col('id', 'bigint'), col('payload', 'bytes'), col('name', 'string')];
const ALL = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
/** id, the bytes, a text column that must not be touched by the byte handling. */
const ROWS: [number, Buffer | null, string][] = [
  [1, Buffer.from([0, 0, 0, 0xff]), 'Zürich ÿ'],
  [2, ALL, '\\u00ff is text'],
  [3, Buffer.from('"\\\\u00ff"', 'latin1'), 'quote " and \\'],
  [4, null, 'no bytes'],
  [5, Buffer.alloc(0), ''],
];

async function writeAndCheck(url: string, table: string): Promise<void> {
  await chCommand(url, `CREATE TABLE default.${table} (id UInt64, payload Nullable(String), name String) ENGINE = MergeTree ORDER BY id`);
  const sink = new ClickHouseSink(sinkDef('bytes_ch', { url, table: `default.${table}`, flush_interval: '1 h' }, cols), { env: {}, warn: () => undefined });
  sink.open(null);
  for (const [id, b, name] of ROWS) sink.write([id, b === null ? null : b.toString('base64'), name]);
  await sink.commit();
  await sink.close();
  const found = await chQuery<{ id: string | number }>(url, `SELECT id FROM default.${table} WHERE payload = unhex('000000FF')`);
  assert.deepEqual(found.map((r) => Number(r.id)), [1], "WHERE payload = unhex('000000FF') finds the row");
  const got = await chQuery<{ id: string | number; h: string | null; len: string | number | null; name: string }>(
    url,
    `SELECT id, hex(payload) AS h, length(payload) AS len, name FROM default.${table} ORDER BY id`,
  );
  assert.deepEqual(
    got.map((r) => [Number(r.id), r.h, r.len === null ? null : Number(r.len), r.name]),
    ROWS.map(([id, b, name]) => [id, b === null ? null : b.toString('hex').toUpperCase(), b === null ? null : b.length, name]),
  );
}

test('bytesJson/linesBody: the line is ASCII JSON, the body holds each byte once, text escapes untouched', () => {
  assert.equal(bytesJson(Buffer.from([0, 0x22, 0x5c, 0x41, 0x7f, 0x80, 0xff]).toString('base64')), '"\\u0000\\"\\\\A\\u007f\\u0080\\u00ff"');
  // A text column with a literal backslash-u00ff (JSON "\\u00ff") is not a byte escape.
  const line = `{"b":${bytesJson(Buffer.from([0xff, 0x41]).toString('base64'))},"s":${JSON.stringify('\\u00ff ÿ')}}`;
  const body = linesBody([line])!;
  assert.deepEqual(body, Buffer.concat([Buffer.from('{"b":"', 'utf8'), Buffer.from([0xff]), Buffer.from('A","s":"\\\\u00ff ÿ"}\n', 'utf8')]));
  assert.equal(linesBody([JSON.stringify({ s: 'ÿ \\u00ff' })]), null, 'no byte escape: sent as text, as before');
});

test('BYTES land as bytes in modern ClickHouse (chdb over HTTP)', { timeout: 60_000 }, async (t) => {
  const dir = tempDir('pipec-ch-bytes-');
  const srv = await startChdbServer(path.join(dir, 'data'));
  t.after(() => srv.close());
  await writeAndCheck(srv.url, 't_bytes');
});

test('BYTES land as bytes in ClickHouse 18.16', { timeout: 60_000 }, async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = unique('ch_bytes');
  t.after(() => chCommand(url, `DROP TABLE IF EXISTS default.${table}`));
  await writeAndCheck(url, table);
});
