// Sources and sinks: dead letters with reasons and coordinates (NDJSON, CSV), CSV and Parquet
// sources, the Parquet sink read back by DuckDB, and reproducible datagen with partitions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import { PlanBuilder, column, T, agg, E, MIN, SEC } from '../../fixtures/plans/builder.ts';
import { bidPlan } from '../../fixtures/runtime/bid-plans.ts';
import { readNdjson, runPlan, sortRows, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';

const TUMBLE = { kind: 'tumble' as const, sizeMs: 10 * MIN, offsetMs: 0 };

test('undecodable NDJSON records go to the dead-letter file with reason, file and line', async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'in.ndjson'),
    [
      '{"bidtime":"2020-04-15 08:01:00","price":"1.00","item":"A"}',
      '{"bidtime":"2020-04-15 08:02:00","price":"abc","item":"B"}',
      'not json',
      '',
      '{"bidtime":"yesterday","price":"1.00","item":"C"}',
      '{"bidtime":"2020-04-15T08:03:00Z","price":2,"item":"D"}',
      '{"bidtime":1586937840000,"price":"123456789.00","item":"E"}',
      '[1,2]',
    ].join('\n') + '\n',
  );
  const r = await runPlan(bidPlan({ path: 'in.ndjson', window: TUMBLE }), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.out, [{ window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', price: '3.00' }]);
  const dead = readNdjson(path.join(dir, 'bids.dead-letters.ndjson'));
  assert.deepEqual(
    dead.map((d) => [d.source, d.file, d.line]),
    [
      ['bid', 'in.ndjson', 2],
      ['bid', 'in.ndjson', 3],
      ['bid', 'in.ndjson', 5],
      ['bid', 'in.ndjson', 7],
      ['bid', 'in.ndjson', 8],
    ],
  );
  assert.match(dead[0]!.reason as string, /^column price: expected DECIMAL\(10, 2\).*got "abc"$/);
  assert.match(dead[1]!.reason as string, /^not valid JSON/);
  assert.equal(dead[1]!.record, 'not json');
  assert.match(dead[2]!.reason as string, /^column bidtime: expected TIMESTAMP/);
  assert.match(dead[3]!.reason as string, /at most 8 integer digits, got "123456789.00"$/);
  assert.equal(dead[4]!.reason, 'not a JSON object');
});

function genericPlan(name: string, source: Parameters<PlanBuilder['source']>[0], build: (b: PlanBuilder, scan: string) => string, sink: { path: string; format: 'ndjson' | 'parquet' } = { path: 'out.ndjson', format: 'ndjson' }): PlanDoc {
  const b = new PlanBuilder(name);
  b.source(source);
  const top = build(b, b.scan(source.name, 'scan'));
  b.sink({ name: 'out', connector: 'file', input: top, options: { path: sink.path, format: sink.format }, file: sink });
  return b.build();
}

test('CSV source: header, quoted fields, empty cell as NULL, NOT NULL and malformed rows as dead letters', async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'in.csv'),
    ['bidtime,price,item', '2020-04-15 08:01:00,1.50,"A, the first"', '2020-04-15 08:02:00,,B', '2020-04-15 08:03:00,2.25,', '2020-04-15 08:04:00,9.00,X,extra', '2020-04-15 08:05:00,x1,Y'].join('\n') + '\n',
  );
  const plan = genericPlan(
    'csv_in',
    {
      name: 'bid',
      connector: 'file',
      format: 'csv',
      columns: [column('bidtime', T.timestamp(3)), column('price', T.decimal(10, 2)), column('item', T.string(false))],
      watermark: { column: 'bidtime', delayMs: 0, idleTimeoutMs: null },
      options: { path: 'in.csv', format: 'csv' },
    },
    (b, scan) => scan,
  );
  const r = await runPlan(plan, { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.out, [
    { bidtime: '2020-04-15 08:01:00.000', price: '1.50', item: 'A, the first' },
    { bidtime: '2020-04-15 08:02:00.000', price: null, item: 'B' },
  ]);
  const dead = readNdjson(path.join(dir, 'csv_in.dead-letters.ndjson'));
  assert.deepEqual(
    dead.map((d) => [d.line, (d.reason as string).split(':')[0]]),
    [
      [4, 'column item'],
      [5, 'malformed CSV record'],
      [6, 'column price'],
    ],
  );
});

test('Parquet source (glob of files) and Parquet sink read back by DuckDB', async () => {
  const dir = tempDir();
  const base = Date.UTC(2020, 3, 15, 8, 0, 0);
  for (const [i, rows] of [
    [0, [[1, 'A', 1.5], [2, 'B', 2.25]]],
    [1, [[3, 'A', 4], [12, 'C', 8]]],
  ] as const) {
    parquetWriteFile({
      filename: path.join(dir, `in-${i}.parquet`),
      columnData: [
        { name: 'ts', data: rows.map((r) => new Date(base + r[0] * MIN)), type: 'TIMESTAMP' },
        { name: 'item', data: rows.map((r) => r[1]), type: 'STRING' },
        { name: 'price', data: rows.map((r) => r[2]), type: 'DOUBLE' },
        { name: 'unused', data: rows.map(() => 'x'), type: 'STRING' },
      ],
    });
  }
  const plan = genericPlan(
    'pq',
    {
      name: 'bid',
      connector: 'file',
      format: 'parquet',
      columns: [column('ts', T.timestamp(3)), column('item', T.string()), column('price', T.decimal(10, 2)), column('unused', T.string())],
      watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: null },
      options: { path: 'in-*.parquet', format: 'parquet' },
    },
    (b, scan) =>
      b.windowAgg(scan, {
        id: 'w',
        window: TUMBLE,
        time: 'ts',
        keys: ['item'],
        aggregates: (c) => [agg.sum('total', c('price'), T.decimal(38, 2)), agg.countStar('n')],
        late: { kind: 'drop' },
      }),
    { path: 'out-pq', format: 'parquet' },
  );
  plan.sources[0]!.usedColumns = ['ts', 'item', 'price'];
  plan.operators[0]!.schema = plan.operators[0]!.schema.filter((c) => c.name !== 'unused');
  const r = await runPlan(plan, { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(readdirSync(path.join(dir, 'out-pq')), ['part-00000.parquet']);
  const rows = await queryDuckDb(
    `SELECT item, CAST(window_start AS VARCHAR) AS ws, total, n FROM read_parquet('${path.join(dir, 'out-pq', '*.parquet')}') ORDER BY ws, item`,
  );
  assert.deepEqual(rows, [
    { item: 'A', ws: '2020-04-15 08:00:00', total: '5.50', n: 2 },
    { item: 'B', ws: '2020-04-15 08:00:00', total: '2.25', n: 1 },
    { item: 'C', ws: '2020-04-15 08:10:00', total: '8.00', n: 1 },
  ]);
});

function datagenPlan(seed: number, partitions: number): PlanDoc {
  return genericPlan(
    'gen',
    {
      name: 'events',
      connector: 'datagen',
      columns: [column('k', T.string()), column('v', T.bigint()), column('ts', T.timestamp(3))],
      watermark: { column: 'ts', delayMs: 5 * SEC, idleTimeoutMs: null },
      options: {
        total_rows: '5000',
        seed: String(seed),
        partitions: String(partitions),
        'fields.k.kind': 'choice',
        'fields.k.values': 'a,b,c',
        'fields.v.kind': 'random',
        'fields.v.min': '1',
        'fields.v.max': '100',
        'fields.ts.kind': 'sequence',
        'fields.ts.min': '2024-01-01 00:00:00',
        'fields.ts.step': '100',
      },
    },
    (b, scan) =>
      b.windowAgg(scan, {
        id: 'w',
        window: { kind: 'tumble', sizeMs: MIN, offsetMs: 0 },
        time: 'ts',
        keys: ['k'],
        aggregates: (c) => [agg.sum('total', c('v'), T.bigint()), agg.countStar('n'), agg.min('lo', c('v')), agg.max('hi', c('v'))],
        late: { kind: 'drop' },
      }),
  );
}

test('datagen is reproducible from its seed, honours total_rows, partitions and field ranges', async () => {
  const a = await runPlan(datagenPlan(42, 4));
  const b = await runPlan(datagenPlan(42, 4));
  const c = await runPlan(datagenPlan(7, 4));
  assert.equal(a.exitCode, 0, a.stderr);
  assert.equal(readFileSync(path.join(a.dir, 'out.ndjson'), 'utf8'), readFileSync(path.join(b.dir, 'out.ndjson'), 'utf8'));
  assert.notEqual(readFileSync(path.join(a.dir, 'out.ndjson'), 'utf8'), readFileSync(path.join(c.dir, 'out.ndjson'), 'utf8'));
  // 5000 rows, 100 ms apart from 2024-01-01: 500 s → 9 one-minute windows (the last one partial).
  assert.equal(a.out.reduce((s, x) => s + (x.n as number), 0), 5000);
  assert.deepEqual([...new Set(a.out.map((x) => x.window_start))].length, 9);
  assert.deepEqual([...new Set(a.out.map((x) => x.k))].sort(), ['a', 'b', 'c']);
  for (const x of a.out) assert.ok((x.lo as number) >= 1 && (x.hi as number) <= 100);
  // Partitions only split the stream: the windows' results do not depend on them.
  const one = await runPlan(datagenPlan(42, 1));
  assert.deepEqual(sortRows(one.out, ['window_start', 'k']), sortRows(a.out, ['window_start', 'k']));
});

test('an option with ${VAR} is read from the environment at run time; a missing variable is an error', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'in.ndjson'), '{"bidtime":"2020-04-15 08:01:00","price":"1.00","item":"A"}\n');
  const plan = bidPlan({ path: '${BID_FILE}', window: TUMBLE });
  const ok = await runPlan(plan, { dir, env: { BID_FILE: 'in.ndjson' } });
  assert.equal(ok.exitCode, 0, ok.stderr);
  assert.equal(ok.out.length, 1);
  const missing = await runPlan(plan, { dir: tempDir() });
  assert.equal(missing.exitCode, 1);
  assert.match(missing.stderr, /runtime-missing-env.*BID_FILE/);
  void E;
});

test("METADATA FROM 'file' / 'line' / 'offset' of the file source", async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'm.ndjson'), '{"x":"a"}\n\n{"x":"b"}\n');
  const plan = genericPlan(
    'meta',
    {
      name: 's',
      connector: 'file',
      format: 'ndjson',
      columns: [
        column('x', T.string()),
        column('src_file', T.string(), { metadataFrom: 'file' }),
        column('src_line', T.bigint(), { metadataFrom: 'line' }),
        column('src_offset', T.bigint(), { metadataFrom: 'offset' }),
      ],
      options: { path: 'm.ndjson' },
    },
    (_b, scan) => scan,
  );
  const r = await runPlan(plan, { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.out, [
    { x: 'a', src_file: 'm.ndjson', src_line: 1, src_offset: 0 },
    { x: 'b', src_file: 'm.ndjson', src_line: 3, src_offset: 11 },
  ]);
});

test('a bounded file source with no input fails the run, naming the source and the path (issue 13.7)', async () => {
  const dir = tempDir();
  const glob = await runPlan(bidPlan({ path: 'nothing-*.ndjson', window: TUMBLE }), { dir });
  assert.equal(glob.exitCode, 1);
  assert.match(glob.stderr, /source 'bid': no file matches 'nothing-\*\.ndjson' \(.*nothing-\*\.ndjson\) \(set allow_empty = 'true'/);
  assert.deepEqual(glob.out, []);
  const literal = await runPlan(bidPlan({ path: 'missing.ndjson', window: TUMBLE }), { dir });
  assert.equal(literal.exitCode, 1);
  assert.match(literal.stderr, /source 'bid': file 'missing\.ndjson' .* does not exist/);
  mkdirSync(path.join(dir, 'folder'));
  const folder = await runPlan(bidPlan({ path: 'folder', window: TUMBLE }), { dir });
  assert.equal(folder.exitCode, 1);
  assert.match(folder.stderr, /path 'folder' .* is a folder; give a glob such as 'folder\/\*\.ndjson'/);
  assert.doesNotMatch(glob.stderr + literal.stderr + folder.stderr, /internal error|at .*\.ts:\d+/);
});

test("allow_empty = 'true': a glob or a path that matches nothing is an empty source, said so, exit 0", async () => {
  for (const p of ['nothing-*.ndjson', 'missing.ndjson']) {
    const r = await runPlan(bidPlan({ path: p, window: TUMBLE, allowEmpty: true }));
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /source 'bid': no file matches '.*'; the source is empty \(allow_empty\)/);
    assert.deepEqual(r.out, []);
  }
});

test("datagen: a timestamp step may be a duration ('30 ms'); an unusable option stops the run with a message", async () => {
  const plan = (step: string) =>
    genericPlan(
      'gen_step',
      {
        name: 'g',
        connector: 'datagen',
        columns: [column('ts', T.timestamp(3))],
        options: { total_rows: '3', 'fields.ts.min': '2026-01-01 00:00:00', 'fields.ts.step': step },
      },
      (_b, scan) => scan,
    );
  const ok = await runPlan(plan('30 ms'));
  assert.equal(ok.exitCode, 0, ok.stderr);
  assert.deepEqual(ok.out.map((x) => x.ts), ['2026-01-01 00:00:00.000', '2026-01-01 00:00:00.030', '2026-01-01 00:00:00.060']);
  const bad = await runPlan(plan('soon'));
  assert.equal(bad.exitCode, 2);
  assert.match(bad.stderr, /source 'g': fields\.ts\.step of source 'g' must be a duration such as '30 ms' or '1 s', got 'soon'/);
});
