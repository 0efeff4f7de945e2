// Syntax errors: every mistake of a file is reported in one run, each with a code, the
// position counted by hand, and the expected tokens in words; no statement hides the next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeSql, parseSqlExpr, parseSqlQuery } from '../../../src/syntax/sql/index.ts';
import { fixture, makeCtx } from './helpers.ts';

test('a file with many mistakes reports each of them at its line:col', () => {
  const ctx = makeCtx({}, 'mistakes.pipe.sql');
  const file = parsePipeSql(fixture('mistakes.pipe.sql'), ctx);
  const got = ctx.diagnostics.sorted().map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code}: ${d.message}${d.help ? ` | ${d.help}` : ''}`);
  assert.deepEqual(got, [
    "3:10 unknown-type: unknown type 'DOUBL' | did you mean DOUBLE?",
    "4:22 syntax-trailing-comma: a ',' cannot be followed by ')' | remove the last comma of the list",
    "5:38 syntax-unterminated-string: this string has no closing quote on its line | close it with ' (write '' for a quote inside the string)",
    "8:23 syntax-error: expected ')', ',' or an operator, found 'AS' | see LANGUAGE.md for the statement forms pipec accepts",
    "11:6 syntax-missing-semicolon: missing ';' at the end of this statement | end every statement with ';'",
    "14:55 syntax-double-equals: '==' is not an operator in SQL | write '=' to compare two values",
    "15:25 syntax-error: expected ')', ',', '(', '<', NOT or METADATA, found 'b' | see LANGUAGE.md for the statement forms pipec accepts",
    "16:26 syntax-error: expected '*' or an expression, found 'FROM' | see LANGUAGE.md for the statement forms pipec accepts",
    "17:8 syntax-error: expected SOURCE, VIEW, SINK, CATALOG or COMPACTION, found 'TABLE' | see LANGUAGE.md for the statement forms pipec accepts",
    "18:37 syntax-error: expected ')' or ',', found the end of the statement | see LANGUAGE.md for the statement forms pipec accepts",
  ]);
  // The well-formed statements between the broken ones are still there.
  const names = file.statements.map((s) => `${s.kind} ${s.name.name}`);
  assert.ok(names.includes('sink out'), names.join(', '));
  assert.ok(names.includes('view big'), names.join(', '));
});

test('error spans cover the offending token', () => {
  const ctx = makeCtx();
  parsePipeSql('CREATE VIEW v AS SELECT a FROM t GROUP BY a EMIT NOW;', ctx);
  const [d] = ctx.diagnostics.items;
  assert.equal(d?.code, 'syntax-error');
  assert.equal(d?.message, "expected ON or CHANGES, found 'NOW'");
  assert.deepEqual([d!.span.start.column, d!.span.end.column], [50, 53]);
});

test('keywords that start a phrase are named by the phrase', () => {
  const ctx = makeCtx();
  parsePipeSql('CREATE VIEW v9 AS SELECT a FROM t WHERE a = 1 x;', ctx);
  assert.deepEqual(ctx.diagnostics.items.map((d) => `${d.span.start.column} ${d.message}`), [
    "47 expected GROUP BY, HAVING, UNION ALL, EMIT, ALLOWED LATENESS, ON, ';' or an operator, found 'x'",
  ]);
});

test('the last statement without a semicolon is reported at its last token', () => {
  const ctx = makeCtx();
  const f = parsePipeSql("CREATE CATALOG lake WITH (type = 'filesystem')\n", ctx);
  assert.equal(f.statements.length, 1);
  assert.deepEqual(ctx.diagnostics.items.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code}`), ['1:46 syntax-missing-semicolon']);
});

test('lexical errors: stray characters and unterminated comments and names', () => {
  const ctx = makeCtx();
  parsePipeSql('CREATE SINK s WITH (connector = \'x\') ?;\nCREATE VIEW "v AS SELECT 1 FROM t;\n/* never closed', ctx);
  assert.deepEqual(ctx.diagnostics.sorted().map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code}`), [
    '1:38 syntax-unexpected-char',
    '2:13 syntax-unterminated-identifier',
    '2:34 syntax-error',
    '3:1 syntax-unterminated-comment',
  ]);
});

test('type mistakes: suggestions, foreign names, bad arguments', () => {
  const ctx = makeCtx();
  parsePipeSql('CREATE SOURCE s (a STRNG, b TEXT, c DECIMAL(40, 2), d TIMESTAMP(12), e ARRAY<INT, INT>, f INT(3), g FOO) WITH (connector = \'file\');', ctx);
  assert.deepEqual(ctx.diagnostics.items.map((d) => `${d.code}: ${d.message}${d.help && d.code === 'unknown-type' ? ` | ${d.help}` : ''}`), [
    "unknown-type: unknown type 'STRNG' | did you mean STRING?",
    "unknown-type: unknown type 'TEXT' | did you mean STRING?",
    'syntax-bad-type-args: invalid DECIMAL: precision 40 is outside 1..38',
    'syntax-bad-type-args: invalid TIMESTAMP: precision 12 is outside 0..9',
    'syntax-bad-type-args: invalid ARRAY: write ARRAY<element type>',
    'syntax-bad-type-args: invalid INT: takes no (...) arguments',
    "unknown-type: unknown type 'FOO' | types are BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING, BYTES, DATE, TIMESTAMP(p), TIMESTAMP_LTZ(p), ARRAY<T>, MAP<K, V>, ROW<name T, ...>",
  ]);
});

test('compaction mistakes: wrong condition field, fractional counts', () => {
  const ctx = makeCtx();
  parsePipeSql("CREATE COMPACTION POLICY p ON lake (REWRITE DATA FILES WHERE size < '1 MB' MIN INPUT FILES 2.5);", ctx);
  assert.deepEqual(ctx.diagnostics.items.map((d) => d.message), [
    "expected 'file_size' in this condition, found 'size'",
    'MIN INPUT FILES must be a whole number, found 2.5',
  ]);
});

test('fragments: null after an error, with the expected tokens', () => {
  const ctx = makeCtx();
  assert.equal(parseSqlExpr('a +', ctx), null);
  assert.deepEqual(ctx.diagnostics.items.map((d) => d.message), ['expected an expression, found the end of the statement']);
  const ctx2 = makeCtx();
  assert.equal(parseSqlQuery('SELECT a FROM t WHERE', ctx2), null);
  assert.deepEqual(ctx2.diagnostics.items.map((d) => d.message), ['expected an expression, found the end of the statement']);
  const ctx3 = makeCtx();
  assert.equal(parseSqlQuery('SELECT a FROM t extra junk', ctx3), null);
  assert.equal(ctx3.diagnostics.items[0]?.code, 'syntax-error');
});

test('targeted messages for habits from other SQL dialects', () => {
  const ctx = makeCtx();
  parsePipeSql(
    [
      'CREATE SINK k WITH (connector = "kafka", format = json);',
      "CREATE VIEW a AS SELECT x FROM TUMBLE(t, ts, INTERVAL 5 SECOND);",
      'CREATE VIEW b AS SELECT x FROM t ORDER BY x;',
      'CREATE VIEW c AS SELECT x FROM t LIMIT 10;',
      'CREATE VIEW d AS SELECT x FROM t1, t2;',
      'CREATE VIEW e AS SELECT x FROM t1 RIGHT JOIN t2 ON t1.k = t2.k;',
    ].join('\n'),
    ctx,
  );
  assert.deepEqual(ctx.diagnostics.items.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code}: ${d.message}`), [
    '1:33 syntax-double-quoted-string: "kafka" is a quoted name, not a string',
    "2:55 syntax-interval-unquoted: the length of an INTERVAL is written in quotes: INTERVAL '5' ...",
    '3:34 syntax-unsupported: ORDER BY is not supported in pipec',
    '4:34 syntax-unsupported: LIMIT is not supported in pipec',
    '5:34 syntax-unsupported: a comma join (FROM a, b) is not supported in pipec',
    '6:35 syntax-unsupported: RIGHT JOIN is not supported in pipec',
  ]);
  const ctx2 = makeCtx();
  parsePipeSql("CREATE SINK k WITH (connector = 'kafka', format = json);", ctx2);
  assert.deepEqual(ctx2.diagnostics.items.map((d) => `${d.span.start.column} ${d.code}: ${d.message} | ${d.help}`), [
    "51 syntax-unquoted-option-value: option values are literals: 'json' needs quotes | write 'json'",
  ]);
});

test('one error per broken statement: recovery echoes are not reported', () => {
  const ctx = makeCtx();
  parsePipeSql("CREATE SOURCE s WITH connector = 'kafka';\nCREATE SINK x WITH (a = 'b');", ctx);
  assert.deepEqual(ctx.diagnostics.items.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.message}`), ["1:22 expected '(', found 'connector'"]);
});
