// BYTES through file sinks (issue 20.1): NDJSON carries BYTES as base64 (as Flink's JSON
// format does); a Parquet sink stores the decoded bytes (read back by DuckDB), an NDJSON sink
// writes the same base64 text again. BOOLEAN past 16 rows is PLAIN, which Spark's
// vectorised reader needs (DuckDB reads either; the encoding is checked in the metadata).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parquetMetadata } from 'hyparquet';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { readNdjson, runPlan, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';

const rows = Array.from({ length: 40 }, (_, i) => ({ n: i, flag: i % 3 === 0, payload: Buffer.from([0, 0, i, 0xff]).toString('base64') }));

function plan(sink: { path: string; format: 'ndjson' | 'parquet' }): PlanDoc {
  const b = new PlanBuilder('bytes_out');
  const source = {
    name: 'ev', connector: 'file', format: 'ndjson',
    columns: [column('n', T.int(false)), column('flag', T.boolean()), column('payload', T.bytes())],
    options: { path: 'in.ndjson', format: 'ndjson' },
  } as Parameters<PlanBuilder['source']>[0];
  b.source(source);
  const top = b.scan('ev', 'scan');
  b.sink({ name: 'out', connector: 'file', input: top, options: { path: sink.path, format: sink.format }, file: sink });
  return b.build();
}

test('Parquet sink: BYTES stored as the bytes the base64 names, BOOLEAN PLAIN; NDJSON sink keeps base64', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'in.ndjson'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const r = await runPlan(plan({ path: 'out-pq', format: 'parquet' }), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  const file = path.join(dir, 'out-pq', 'part-00000.parquet');
  const got = await queryDuckDb(`SELECT n, flag, hex(payload) AS h FROM read_parquet('${file}') ORDER BY n`);
  assert.deepEqual(got, rows.map((x) => ({ n: x.n, flag: x.flag, h: `0000${x.n.toString(16).toUpperCase().padStart(2, '0')}FF` })));
  const buf = readFileSync(file);
  const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer);
  const flag = meta.row_groups[0]!.columns.find((c) => c.meta_data!.path_in_schema[0] === 'flag')!.meta_data!;
  assert.deepEqual(flag.encoding_stats?.map((s) => s.encoding), ['PLAIN']);

  const r2 = await runPlan(plan({ path: 'out.ndjson', format: 'ndjson' }), { dir });
  assert.equal(r2.exitCode, 0, r2.stderr);
  assert.deepEqual(readNdjson(path.join(dir, 'out.ndjson')).map((x) => x.payload), rows.map((x) => x.payload));
});
