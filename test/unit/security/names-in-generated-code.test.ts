// Regression tests for names that reach generated code and SQL (issue 12 item 1, issue 21
// item 1): a quoted identifier may hold any character, and none may end a comment, close a
// literal or add a statement in what pipec writes. Each test failed before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { sparkMultipartParts, sparkStatements } from '../../support/spark-sql-lexer.ts';
import { buildInMemory } from './hostile-build.ts';
import { sparkComment } from '../../../targets/iceberg/spark-sql-text.ts';
import { comment as chComment } from '../../../targets/clickhouse/sql-text.ts';

/** SQL quoted identifier / string literal of the pipe.sql language (the quote doubled). */
const qi = (s: string): string => `"${s.replace(/"/g, '""')}"`;
const qs = (s: string): string => `'${s.replace(/'/g, "''")}'`;

// U+2028 ends a `//` comment in JavaScript; what follows it ran as code before the fix.
const payload = (tag: string): string => `${tag}\u2028globalThis.__pipecPwned = '${tag}'; process.stdout.write('PW' + 'NED');//`;
// A pipeline or policy name is a file name too (no '/' or control character: unsafe-path-name),
// so its payload ends without a comment: unescaped, it would run or break the module.
const pathPayload = (tag: string): string => `${tag}\u2028globalThis.__pipecPwned = '${tag}'; process.stdout.write('PW' + 'NED');`;

function runtimeSpec(names: Record<'pipeline' | 'source' | 'column' | 'view' | 'alias' | 'sink', string>): string {
  return `PIPELINE ${qi(names.pipeline)};
CREATE SOURCE ${qi(names.source)} (${qi(names.column)} BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'datagen', total_rows = '5', seed = '1');
CREATE VIEW ${qi(names.view)} AS
  SELECT ${qi(names.column)} AS ${qi(names.alias)}, window_start, COUNT(*) AS n
  FROM TUMBLE(${qi(names.source)}, ts, INTERVAL '1' MINUTE)
  WHERE ${qi(names.column)} >= 0
  GROUP BY ${qi(names.column)}, window_start, window_end
  EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK ${qi(names.sink)} FROM ${qi(names.view)} WITH (connector = 'stdout', format = 'ndjson');
`;
}

test('a name holding U+2028 and code neither runs from the generated module nor from the bundle', async () => {
  const names = { pipeline: pathPayload('pipe'), source: payload('src'), column: payload('col'), view: payload('view'), alias: payload('alias'), sink: payload('sink') };
  const b = await buildInMemory(runtimeSpec(names));
  assert.deepEqual(b.errors, []);
  const gen = b.files.get('runtime/pipeline.gen.mjs')!;
  for (const line of gen.split('\n')) assert.ok(!line.includes('\u2028'), `raw U+2028 in: ${line}`);

  // What `pipec run` does: evaluate the body against the library.
  delete (globalThis as Record<string, unknown>).__pipecPwned;
  const def = instantiateBody(generateBody(b.plan!).body, {});
  assert.equal((globalThis as Record<string, unknown>).__pipecPwned, undefined, 'a payload in a name ran');
  // ... and every name reads back exactly as declared.
  assert.equal(def.name, names.pipeline);
  assert.deepEqual(def.sources.map((s) => [s.name, s.columns[0]!.name]), [[names.source, names.column]]);
  assert.deepEqual(def.sinks.map((s) => [s.name, s.columns[0]!.name]), [[names.sink, names.alias]]);

  // What a user does: `node --check` the readable module, `node pipeline.mjs` the bundle.
  const dir = mkdtempSync(join(tmpdir(), 'pipec-inject-'));
  try {
    writeFileSync(join(dir, 'pipeline.gen.mjs'), gen);
    writeFileSync(join(dir, 'pipeline.mjs'), b.files.get('runtime/pipeline.mjs')!);
    writeFileSync(join(dir, 'runtime.mjs'), b.files.get('runtime/runtime.mjs')!);
    const check = spawnSync(process.execPath, ['--check', join(dir, 'pipeline.gen.mjs')], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
    const run = spawnSync(process.execPath, [join(dir, 'pipeline.mjs'), '--base-dir', dir], { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(!run.stdout.includes('PWNED') && !run.stderr.includes('PWNED'), 'a payload in a name ran in the bundle');
    // The rows came out under the hostile column name, intact.
    const rows = run.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(rows.length > 0, run.stdout);
    assert.ok(rows.every((r) => names.alias in r));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('names that differ only in punctuation or script get their own generated functions', async () => {
  // Both views used to become `agg_v_w_window` (a duplicate `const`: the module did not load),
  // and two sources named in non-Latin letters shared one decoder.
  const spec = `PIPELINE p;
CREATE SOURCE "ü" (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (connector = 'file', path = 'a.ndjson', format = 'ndjson');
CREATE SOURCE "é" (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (connector = 'file', path = 'b.ndjson', format = 'ndjson');
CREATE VIEW "v w" AS SELECT k, window_start, COUNT(*) AS n FROM TUMBLE("ü", ts, INTERVAL '1' MINUTE) GROUP BY k, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE VIEW v_w AS SELECT k, window_start, COUNT(*) AS n FROM TUMBLE("é", ts, INTERVAL '1' MINUTE) GROUP BY k, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK a FROM "v w" WITH (connector = 'stdout');
CREATE SINK b FROM v_w WITH (connector = 'stdout');
`;
  const b = await buildInMemory(spec);
  assert.deepEqual(b.errors, []);
  const def = instantiateBody(generateBody(b.plan!).body, {});
  const decoders = def.sources.map((s) => s.decode);
  assert.equal(decoders.length, 2);
  assert.notEqual(decoders[0], decoders[1], 'two sources share one decoder');
  // The BIGINT source's decoder rejects a string; the STRING source's accepts it.
  const bad = { column: '', reason: '' };
  assert.equal(decoders[0]!({ k: 'x', ts: 0 } as never, bad as never), null);
  assert.notEqual(decoders[1]!({ k: 'x', ts: 0 } as never, bad as never), null);
});

test('a catalog name cannot add a statement to the Spark maintenance SQL; a trailing backslash cannot eat a quote', async () => {
  const catalog = 'lake; DROP TABLE prod.orders; --';
  const table = 'ns`x.t\\';
  const policy = 'p\u2028DROP TABLE prod.orders;';
  const spec = `PIPELINE p;
CREATE SOURCE s (k BIGINT, ts TIMESTAMP(3)) WITH (connector = 'datagen');
CREATE CATALOG ${qi(catalog)} WITH (type = 'filesystem', warehouse = '\${PIPEC_WAREHOUSE}');
CREATE SINK out FROM s WITH (connector = 'iceberg', catalog = ${qs(catalog)}, table = ${qs(table)});
CREATE COMPACTION POLICY ${qi(policy)} ON out (
  REWRITE DATA FILES WHERE file_size < '32 MB' TARGET '128 MB',
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY RETAIN LAST 5,
  REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY
);
`;
  const b = await buildInMemory(spec);
  assert.deepEqual(b.errors, []);
  const [path, sql] = [...b.files].find(([p]) => p.endsWith('.spark.sql'))!;
  const stmts = sparkStatements(sql);
  assert.equal(stmts.length, 3, `${path}:\n${sql}`);
  for (const st of stmts) {
    // CALL <catalog>.system.<procedure>(table => '<multi-part name>', ...)
    assert.deepEqual(st.slice(0, 5).map((t) => t.value), ['CALL', catalog, '.', 'system', '.']);
    assert.equal(st[1]!.kind === 'ident' && st[1]!.quoted, true);
    const arg = st.findIndex((t) => t.value === '=>');
    assert.equal(st[arg - 1]!.value, 'table');
    const lit = st[arg + 1]!;
    assert.equal(lit.kind, 'string');
    assert.deepEqual(sparkMultipartParts(lit.value), table.split('.'));
  }
});

test('names cannot forge lines of plan.txt or send terminal escapes through it', async () => {
  // (A .pipe.sql quoted name cannot hold \n or \r; U+2028/U+2029 end a line for many readers.)
  const lines = (t: string): number => t.split(/\r\n|\r|\n|\u2028|\u2029|\u0085/).length;
  const plain = await buildInMemory(runtimeSpec({ pipeline: 'p', source: 's', column: 'c', view: 'v', alias: 'a', sink: 'k' }));
  const forged = '\u2028watermarks\u2029  fake\u0085\u202e\u001b[2J';
  // The pipeline name is also a folder name: control characters are refused there (unsafe-path-name).
  const hostile = await buildInMemory(runtimeSpec({ pipeline: 'p\u2028watermarks\u2029  fake\u202e', source: `s${forged}`, column: `c${forged}`, view: `v${forged}`, alias: `a${forged}`, sink: `k${forged}` }));
  assert.deepEqual(hostile.errors, []);
  const planText = hostile.files.get('plan.txt')!;
  assert.equal(lines(planText), lines(plain.files.get('plan.txt')!), planText);
  assert.doesNotMatch(planText, /[\u2028\u2029\u0085\u202e\u001b\u0000]/);
  assert.match(planText, /sink k\\u2028watermarks\\u2029 {2}fake\\u0085\\u202e\\u001b\[2J /);
  // The DDL comments of the ClickHouse target and the module's comments hold them escaped too.
  for (const [path, text] of hostile.files) {
    // The library bundle is no user text; the bundle's own module (pipeline.mjs) is checked too.
    if (path.endsWith('/runtime.mjs')) continue;
    assert.doesNotMatch(text, /[\u2028\u2029\u0085\u202e\u001b\u0000]/, path);
  }
});

test('a Spark comment and a ClickHouse comment stay on one line whatever the text (names from YAML may hold \\n)', () => {
  for (const c of [sparkComment('a\nCALL x.system.y();\r\u2028\\'), chComment('a\nDROP TABLE t;\r\u2028')]) {
    assert.equal(c.split(/\r|\n|\u2028/).length, 1, c);
    assert.ok(!c.endsWith('\\'), 'a trailing backslash continues a Spark comment');
  }
});
