// A .pipe.yaml file is the same pipeline as its .pipe.sql twin: both must give the same AST
// (spans, file name and `source` aside). The SQL twins are written by hand from LANGUAGE.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, parseSql, parseYaml, withoutSpans } from './helpers.ts';

const ENV = { PIPEC_CATALOG_URI: 'postgresql://cat', PIPEC_WAREHOUSE: 's3://wh' };

for (const name of ['language-example', 'full']) {
  test(`${name}.pipe.yaml parses to the same AST as ${name}.pipe.sql`, () => {
    const y = parseYaml(fixture(`${name}.pipe.yaml`), ENV);
    const s = parseSql(fixture(`${name}.pipe.sql`), ENV);
    assert.deepEqual(y.diags, []);
    assert.deepEqual(s.diags, []);
    assert.equal(y.ast.source, 'yaml');
    assert.equal(y.ast.statements.length, s.ast.statements.length);
    y.ast.statements.forEach((st, i) => assert.deepEqual(withoutSpans(st), withoutSpans(s.ast.statements[i]), `statement ${i} (${st.kind} ${st.name.name})`));
    assert.deepEqual(y.ast.suppressions.map((x) => x.code), s.ast.suppressions.map((x) => x.code));
  });
}

test('the LANGUAGE.md example: watermark delay and allowed lateness are the SQL intervals', () => {
  const { ast } = parseYaml(fixture('language-example.pipe.yaml'));
  const src = ast.statements.find((s) => s.kind === 'source');
  assert.ok(src?.kind === 'source' && src.watermark);
  const e = src.watermark.expr;
  assert.ok(e.kind === 'binary' && e.op === '-' && e.left.kind === 'column' && e.right.kind === 'interval');
  assert.equal(e.left.name.name, 'order_ts');
  assert.deepEqual([e.right.ms, e.right.text, e.right.unit], [5000, '5', 'second']);
  const view = ast.statements.find((s) => s.kind === 'view');
  assert.ok(view?.kind === 'view');
  assert.deepEqual([view.allowedLateness?.ms, view.emit?.mode, view.onLate?.kind], [30000, 'on_window_close', 'to']);
  // idle_timeout is an option, and option values stay strings as written.
  const idle = src.options.find((o) => o.key === 'idle_timeout');
  assert.deepEqual([idle?.value.kind, idle?.value.text], ['string', '30s']);
});

test('spans point into the YAML file: names at their keys, options at their lines', () => {
  const { ast } = parseYaml(fixture('language-example.pipe.yaml'));
  const src = ast.statements.find((s) => s.kind === 'source')!;
  // "  orders:" is line 3; the name starts at column 3.
  assert.deepEqual([src.name.span.start.line, src.name.span.start.column], [3, 3]);
  assert.equal(src.span.file, 't.pipe.yaml');
  const topic = src.kind === 'source' ? src.options.find((o) => o.key === 'topic')! : null;
  // "    topic: orders": key at 5:5, value at 5:12.
  assert.deepEqual([topic!.keySpan.start.line, topic!.keySpan.start.column, topic!.value.span.start.column], [5, 5, 12]);
  const view = ast.statements.find((s) => s.kind === 'view')!;
  assert.ok(view.kind === 'view' && view.query.kind === 'select');
  // The query's FROM clause is on YAML line 14 ("      FROM TUMBLE(...)"), TUMBLE at column 12.
  assert.deepEqual([view.query.from.span.start.line, view.query.from.span.start.column], [14, 12]);
});

test('${VAR} in option values is substituted, keeping the raw text and the variable names', () => {
  const { ast, diags } = parseYaml('catalogs:\n  lake: { type: rest, uri: "http://${HOST}:8181/${HOST}" }\n', { HOST: 'cat' });
  assert.deepEqual(diags, []);
  const uri = ast.statements[0]!.kind === 'catalog' ? ast.statements[0]!.options[1]! : null;
  assert.deepEqual([uri!.value.text, uri!.value.raw, uri!.value.envVars], ['http://cat:8181/cat', 'http://${HOST}:8181/${HOST}', ['HOST']]);
});

test('a missing ${VAR} is the shared missing-env-var error at the value', () => {
  const { diags } = parseYaml('pipeline: p\nsources:\n  s: { connector: kafka, brokers: "${NOPE}" }\n');
  // "  s: { connector: kafka, brokers: "${NOPE}" }": the value starts at column 35.
  assert.deepEqual(diags, ['missing-env-var 3:35']);
});

test('option kinds follow the YAML scalar: quoted digits are strings, bare digits numbers', () => {
  const { ast } = parseYaml("sinks:\n  k:\n    connector: iceberg\n    format_version: '2'\n    retries: 3\n    upsert: true\n    ratio: 0.50\n");
  const sink = ast.statements[0]!;
  assert.ok(sink.kind === 'sink');
  assert.deepEqual(
    sink.options.map((o) => [o.key, o.value.kind, o.value.text]),
    [['connector', 'string', 'iceberg'], ['format_version', 'string', '2'], ['retries', 'number', '3'], ['upsert', 'boolean', 'true'], ['ratio', 'number', '0.50']],
  );
  assert.equal(sink.from, null);
  assert.equal(sink.query, null);
});

test('names: plain words fold to lower case, SQL-quoted names keep case', () => {
  const { ast, diags } = parseYaml('sources:\n  Orders: { connector: kafka }\n  \'"Order Events"\': { connector: kafka }\n');
  assert.deepEqual(diags, []);
  assert.deepEqual(ast.statements.map((s) => [s.name.name, s.name.quoted]), [['orders', false], ['Order Events', true]]);
});

test('names YAML would read as null or a boolean are still names', () => {
  const { ast, diags } = parseYaml('sources:\n  null: { connector: kafka }\n  true: { connector: kafka }\n  1x: { connector: kafka }\n');
  assert.deepEqual(diags, ['yaml-bad-name 4:3']);
  assert.deepEqual(ast.statements.map((s) => s.name.name), ['null', 'true', '1x']);
});

test('YAML anchors and aliases are followed (shared option values)', () => {
  const { ast, diags } = parseYaml('sources:\n  a: { connector: kafka, topic: &t orders }\n  b: { connector: kafka, topic: *t }\n');
  assert.deepEqual(diags, []);
  assert.deepEqual(ast.statements.map((s) => (s.kind === 'source' ? s.options[1]!.value.text : null)), ['orders', 'orders']);
});

test('an empty file is an empty pipeline without errors', () => {
  // An empty section (`sources:` with nothing under it) is an empty mapping, not an error.
  for (const text of ['', '\n', '# just a comment\n', 'sources:\nviews:\nsinks:\n']) {
    const { ast, diags } = parseYaml(text);
    assert.deepEqual(diags, []);
    assert.deepEqual(ast.statements, []);
  }
});

test('# pipec:allow comments become suppressions; the same text inside SQL or quotes does not', () => {
  const text = [
    '# pipec:allow first-code, second-code', // line 1: codes at columns 15 and 27
    'sources:',
    '  s: { connector: kafka, topic: "a # pipec:allow in-quotes" }',
    'views:',
    '  v:',
    '    query: |',
    '      SELECT a',
    '      # pipec:allow in-sql-block',
    '      FROM s',
    '    emit: changes   # pipec:allow trailing',
  ].join('\n');
  const { ast } = parseYaml(`${text}\n`);
  assert.deepEqual(
    ast.suppressions.map((s) => [s.code, s.span.start.line, s.span.start.column]),
    [['first-code', 1, 15], ['second-code', 1, 27], ['trailing', 10, 35]],
  );
});
