// Poison records in a file source (issue 12 items 3 and 4): a 20,000-deep nested array, 1e17
// in TIMESTAMP / TIMESTAMP_LTZ / DATE columns, February 30, second 60, "0x10" for an INT and
// invalid UTF-8 bytes. The run must end with exit 0, the good rows (and only they) in the sink,
// and every bad line in the dead-letter file once, with its line number and a reason naming the
// column. Compiled by the real front end, run by the runtime in-process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson, tempDir } from '../../fixtures/runtime/run-helpers.ts';

const SPEC = `
CREATE SOURCE ev (
  id INT NOT NULL,
  name STRING,
  ts TIMESTAMP(3),
  lt TIMESTAMP_LTZ(3),
  d DATE
) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');

CREATE SINK out FROM ev WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

const good = (id: number): string => JSON.stringify({ id, name: `n${id}`, ts: '2026-01-01 10:00:00', lt: '2026-01-01T10:00:00Z', d: '2026-02-28' });
const withField = (id: number, field: string, json: string): string => good(id).replace(/"(\w+)":("[^"]*"|\d+)/g, (all, k: string) => (k === field ? `"${k}":${json}` : all));

/** Lines of the input (as bytes) with, for each bad one, the column its reason must name. */
const LINES: { bytes: Buffer; bad: null | RegExp }[] = [
  { bytes: Buffer.from(good(1)), bad: null },
  { bytes: Buffer.from(withField(2, 'id', '['.repeat(20000) + ']'.repeat(20000))), bad: /^column id: expected INT.*nested too deeply/ },
  { bytes: Buffer.from(withField(3, 'ts', '1e17')), bad: /^column ts: expected TIMESTAMP/ },
  { bytes: Buffer.from(withField(4, 'lt', '1e17')), bad: /^column lt: expected TIMESTAMP_LTZ/ },
  { bytes: Buffer.from(withField(5, 'd', '1e17')), bad: /^column d: expected DATE, got 100000000000000000$/ },
  { bytes: Buffer.from(good(6)), bad: null },
  { bytes: Buffer.from(withField(7, 'd', '"2026-02-30"')), bad: /^column d: expected DATE, got "2026-02-30"$/ },
  { bytes: Buffer.from(withField(8, 'ts', '"2026-01-01 00:00:60"')), bad: /^column ts: .*got "2026-01-01 00:00:60"$/ },
  { bytes: Buffer.from(withField(9, 'id', '"0x10"')), bad: /^column id: expected INT.*got "0x10"$/ },
  { bytes: Buffer.concat([Buffer.from('{"id":10,"name":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), bad: /^not valid UTF-8$/ },
  { bytes: Buffer.from(withField(11, 'id', '"16"')), bad: null },
];

test('poison lines of a file source are dead letters with line and reason; the good rows go through; exit 0', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'p.pipe.sql'), SPEC);
  writeFileSync(path.join(dir, 'ev.ndjson'), Buffer.concat(LINES.flatMap((l) => [l.bytes, Buffer.from('\n')])));
  const r = await compileFile(path.join(dir, 'p.pipe.sql'), { cwd: dir, env: { get: () => undefined } });
  assert.deepEqual(r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message), []);
  let stderr = '';
  const x = await runPipeline(r.plan!, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: (t) => (stderr += t) });
  assert.equal(x.exitCode, 0, stderr);
  // The good rows, as the sink writes each type (LANGUAGE.md "Values").
  const row = (line: number, id = line) => ({ id, name: `n${line}`, ts: '2026-01-01 10:00:00.000', lt: '2026-01-01T10:00:00.000Z', d: '2026-02-28' });
  // Line 11's id is the decimal text "16": an INT in digits is fine in a string.
  assert.deepEqual(readNdjson(path.join(dir, 'out.ndjson')), [row(1), row(6), row(11, 16)]);
  const dead = readNdjson(path.join(dir, 'p.dead-letters.ndjson'));
  const expected = LINES.map((l, i) => ({ ...l, line: i + 1 })).filter((l) => l.bad !== null);
  assert.deepEqual(
    dead.map((d) => [d.source, d.file, d.line]),
    expected.map((l) => ['ev', 'ev.ndjson', l.line]),
  );
  for (const [i, d] of dead.entries()) assert.match(d.reason as string, expected[i]!.bad!, `line ${d.line}`);
});

test('poison rows of a CSV file are dead letters with line and reason; invalid UTF-8 too', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'p.pipe.sql'),
    `CREATE SOURCE ev (id INT NOT NULL, name STRING, d DATE) WITH (connector = 'file', path = 'ev.csv', format = 'csv');
CREATE SINK out FROM ev WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');`,
  );
  const lines = [
    Buffer.from('id,name,d'),
    Buffer.from('1,caf\u00e9,2024-02-29'), // line 2: good (é is valid 2-byte UTF-8; 2024 is a leap year)
    Buffer.from('0x10,hex,2024-01-01'), // line 3: hex INT
    Buffer.from('3,feb,2026-02-30'), // line 4: no February 30
    Buffer.concat([Buffer.from('4,caf'), Buffer.from([0xe9]), Buffer.from(',2024-01-01')]), // line 5: Latin-1 é, not UTF-8
    Buffer.from('5,ok,2024-01-02'), // line 6: good
  ];
  writeFileSync(path.join(dir, 'ev.csv'), Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
  const r = await compileFile(path.join(dir, 'p.pipe.sql'), { cwd: dir, env: { get: () => undefined } });
  let stderr = '';
  const x = await runPipeline(r.plan!, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: (t) => (stderr += t) });
  assert.equal(x.exitCode, 0, stderr);
  assert.deepEqual(readNdjson(path.join(dir, 'out.ndjson')), [
    { id: 1, name: 'caf\u00e9', d: '2024-02-29' },
    { id: 5, name: 'ok', d: '2024-01-02' },
  ]);
  const dead = readNdjson(path.join(dir, 'p.dead-letters.ndjson'));
  assert.deepEqual(
    dead.map((d) => [d.line, d.reason]),
    [
      [3, 'column id: expected INT: an integer within 32 bits, got "0x10"'],
      [4, 'column d: expected DATE, got "2026-02-30"'],
      [5, 'not valid UTF-8'],
    ],
  );
});

test('valid multi-byte text across the reader\'s chunks is no dead letter', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'p.pipe.sql'), SPEC);
  // 2-byte and 4-byte characters at every alignment: some straddle a chunk boundary. 17 MB: a
  // single file is read 1 MiB at a time (file-source.ts readChunkBytes), so 16 boundaries.
  const names = [ 'é'.repeat(40001), '😀'.repeat(30001), 'a' + 'é'.repeat(50000) ];
  const lines: string[] = [];
  for (let i = 0; i < 100; i++) lines.push(JSON.stringify({ id: i, name: names[i % 3]!.slice(0, 1000 + i * 997) }), JSON.stringify({ id: 100 + i, name: names[i % 3] }));
  writeFileSync(path.join(dir, 'ev.ndjson'), lines.join('\n') + '\n');
  const r = await compileFile(path.join(dir, 'p.pipe.sql'), { cwd: dir, env: { get: () => undefined } });
  const x = await runPipeline(r.plan!, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: () => {} });
  assert.equal(x.exitCode, 0);
  assert.deepEqual(readNdjson(path.join(dir, 'p.dead-letters.ndjson')), []);
  assert.deepEqual(readNdjson(path.join(dir, 'out.ndjson')).map((o) => o.name), lines.map((l) => JSON.parse(l).name));
});

// The NDJSON reader reads only the plan's fields from each line's bytes (formats/json-fields.ts)
// and parses a line whole only when that reader leaves it. Both kinds of line, mixed: the rows
// must be those JSON.parse gives, and a line JSON.parse refuses (even in a field the plan does
// not read) must be a dead letter with JSON.parse's reason.
test('the field reader and the full parse give the same rows; bad JSON in an unread field is still a dead letter', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'p.pipe.sql'),
    `CREATE SOURCE ev (id BIGINT NOT NULL, name STRING, unused STRING, other STRING) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');
CREATE VIEW v AS SELECT id, name FROM ev;
CREATE SINK out FROM v WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');`,
  );
  const lines = [
    '{"id":1,"name":"plain","unused":"x"}',
    ' { "name" : "spaced" ,\t"id" : 2 }\r',
    '{"id":3,"name":"esc \\"quoted\\" \\u00e9 \\ud83c\\udf89 \\n","unused":"a\\/b"}',
    '{"id":4,"name":"ünïcødé 🎉","unused":{"deep":[1,[2,{"x":null}]]}}',
    '{"id":5,"name":"first","name":"last wins"}',
    '{"id":"9007199254740993","name":null}',
    '{"id":7,"name":"ok","unused":"bad \\x escape"}',
    '{"id":8,"name":"ok","unused":[1,2,]}',
    '{"\\u0069d":9,"name":"escaped key"}',
    '{"id":10,"unused":"tab\there"}',
    '{"id":11,"name":"trailing"} x',
    '{"id":12,"name":"last"}',
  ];
  writeFileSync(path.join(dir, 'ev.ndjson'), lines.join('\n') + '\n');
  const r = await compileFile(path.join(dir, 'p.pipe.sql'), { cwd: dir, env: { get: () => undefined } });
  assert.deepEqual(r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message), []);
  let stderr = '';
  const x = await runPipeline(r.plan!, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: (t) => (stderr += t) });
  assert.equal(x.exitCode, 0, stderr);
  // The oracle: JSON.parse of each line; a refused line is a dead letter with its message.
  const want: Record<string, unknown>[] = [];
  const wantDead: [number, string][] = [];
  lines.forEach((line, i) => {
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      want.push({ id: typeof o['id'] === 'string' ? Number(BigInt(o['id'] as string)) : o['id'], name: o['name'] ?? null });
    } catch (e) {
      wantDead.push([i + 1, `not valid JSON: ${(e as Error).message}`]);
    }
  });
  assert.equal(want.length, 8, 'the oracle keeps the 8 valid lines');
  // id 9007199254740993 is beyond 2^53: the sink writes it exactly, so compare its text.
  const got = readNdjson(path.join(dir, 'out.ndjson'));
  assert.deepEqual(got.map((g) => g['name']), want.map((w) => w['name']));
  assert.deepEqual(got.map((g) => String(g['id'])), ['1', '2', '3', '4', '5', '9007199254740993', '9', '12']);
  const dead = readNdjson(path.join(dir, 'p.dead-letters.ndjson'));
  assert.deepEqual(dead.map((d) => [d.line, d.reason]), wantDead);
});
