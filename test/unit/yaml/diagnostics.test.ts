// What a user sees when a .pipe.yaml is wrong: every mistake of a file, each as a coded
// diagnostic at the exact YAML line:column (positions counted by hand in each case).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, parseYaml } from './helpers.ts';

test('many mistakes in one file are all reported, each at its own line:column', () => {
  const { ctx, diags } = parseYaml(fixture('many-mistakes.pipe.yaml'));
  assert.deepEqual(diags, [
    'yaml-unknown-key 2:1', // sorces
    'yaml-unknown-key 8:5', // watermrk
    'yaml-bad-type 10:25', // STRNG
    'yaml-unknown-key 11:17', // typ
    'yaml-unquoted-comma 11:22', // { typ: DECIMAL(12, 2) } cut at the comma
    'yaml-wrong-type 12:18', // primary_key: order_id (not a list)
    'yaml-dotted-field-option 13:5', // fields.amount.kind flat
    'yaml-missing-key 15:3', // view v without query
    'yaml-bad-value 16:11', // emit: chnges
    'yaml-wrong-type 17:23', // allowed_lateness: 5
    'yaml-bad-value 18:14', // on_late: dorp
    'yaml-bad-duration 21:23', // 5 parsecs
    'yaml-unknown-key 26:45', // retain
    'yaml-invalid 27:9', // two actions in one item
    'yaml-wrong-type 28:53', // delete_ratio_above: half
  ]);
  const messages = ctx.diagnostics.sorted().map((d) => d.message);
  assert.equal(messages[0], "unknown key 'sorces' in the top level; did you mean 'sources'?");
  assert.equal(messages[1], "unknown key 'watermrk' in source 'orders'; did you mean 'watermark'?");
  assert.equal(messages[2], "'STRNG' is not a SQL type: unknown type 'STRNG'; did you mean STRING?");
  assert.equal(messages[8], "'emit' of view 'v' cannot be 'chnges'; did you mean 'changes'?");
  assert.equal(messages[12], "unknown key 'retain' in 'actions[0].expire_snapshots' of compaction policy 'p'; did you mean 'retain_last'?");
  assert.ok(ctx.diagnostics.items.every((d) => d.severity === 'error' && d.span.file === 't.pipe.yaml'));
});

test('SQL syntax errors inside query blocks are reported at the YAML line and column', () => {
  const { ctx, diags } = parseYaml(fixture('sql-errors.pipe.yaml'));
  assert.deepEqual(diags, [
    // `|` block, line 6 "      WHERE a > > 1": the second '>' is column 17.
    'syntax-error 6:17',
    // `>-` folded block ending in "      GROUP BY": the end of the text is after BY, column 15.
    'syntax-error 11:15',
    // Double-quoted watermark expr: the '5' after the misspelt INTERVL is column 50.
    'syntax-error 14:50',
  ]);
  assert.match(ctx.diagnostics.sorted()[0]!.message, /found '>'/);
  // Views whose query did not parse are left out rather than half-built.
  const { ast } = parseYaml(fixture('sql-errors.pipe.yaml'));
  assert.equal(ast.statements.filter((s) => s.kind === 'view').length, 0);
});

const cases: [string, string, string[]][] = [
  ['unclosed flow sequence', 'sources:\n  a: [1, 2\nviews: {}\n', ['yaml-syntax 3:1']],
  ['custom tag (a warning, value still read)', 'sources:\n  s: { connector: !custom kafka }\n', ['yaml-warning 2:19']],
  ['tab indentation', 'sources:\n\ta: 1\n', ['yaml-syntax 2:1']],
  ['duplicate key', 'sources:\n  a: { connector: kafka }\n  a: { connector: kafka }\n', ['yaml-syntax 3:3']],
  ['second document', 'pipeline: a\n---\npipeline: b\n', ['yaml-multiple-documents 2:1']],
  ['top level is a list', '- a\n- b\n', ['yaml-wrong-type 1:1']],
  ['sink with from and query', 'sinks:\n  k: { from: v, query: SELECT 1 FROM v, connector: stdout }\n', ['yaml-conflicting-keys 2:17']],
  ['watermark with delay and expr', 'sources:\n  s: { watermark: { column: ts, delay: 5s, expr: ts } }\n', ['yaml-conflicting-keys 2:44']],
  ['watermark with neither delay nor expr', 'sources:\n  s:\n    watermark: { column: ts }\n', ['yaml-missing-key 3:5']],
  ['pipeline options without pipeline', 'sources: {}\noptions:\n  checkpoint_interval: 30 s\n', ['yaml-options-without-pipeline 2:1']],
  ['top-level key that is not a section', 'pipeline: p\ncheckpoint_interval: 30 s\n', ['yaml-unknown-key 2:1']],
  ['name that needs SQL quotes', 'sinks:\n  my-sink: { connector: stdout }\n', ['yaml-bad-name 2:3']],
  // The misspelt required key is one mistake: no second "needs a 'column' key".
  ['misspelt required key', 'sources:\n  s:\n    watermark: { colum: ts, delay: 5s }\n', ['yaml-unknown-key 3:18']],
  ['column without type, column as a bare string', 'sources:\n  s:\n    columns:\n      a: { not_null: true }\n      b: BIGINT\n', ['yaml-missing-key 4:7', 'yaml-wrong-type 5:10']],
  ['a word that is not a duration', 'views:\n  v:\n    query: |\n      SELECT a\n      FROM t\n    allowed_lateness: soon\n', ['yaml-bad-duration 6:23']],
  ['option with a list value', 'sinks:\n  k:\n    connector: kafka\n    topics: [a, b]\n', ['yaml-unknown-key 4:5']],
  ['option with no value', 'sinks:\n  k:\n    connector: kafka\n    topic:\n', ['yaml-wrong-type 4:5']],
  ['section that is not a mapping', 'sources: [a]\n', ['yaml-wrong-type 1:10']],
  // "      a: { type: 'ARRAY<INTT>' }": the quote is column 18, ARRAY 19-23, '<' 24, INTT 25.
  ['bad type inside ARRAY', "sources:\n  s:\n    columns:\n      a: { type: 'ARRAY<INTT>' }\n", ['yaml-bad-type 4:25']],
  // "      a: { kind: [random] }": '{' 10, kind 12-15, '[' 18. (Values are the checker's business.)
  ['datagen field option that is a list', 'sources:\n  s:\n    fields:\n      a: { kind: [random] }\n', ['yaml-wrong-type 4:18']],
  // "  p: { on: k, actions: [] }": actions 15-21, '[' 24.
  ['empty actions', 'compaction_policies:\n  p: { on: k, actions: [] }\n', ['yaml-invalid 2:24']],
  // "  s: { primary_key: [a, 1x] }": '[' 21, a 22, 1x 25.
  ['primary key of a bad name', 'sources:\n  s: { primary_key: [a, 1x] }\n', ['yaml-bad-name 2:25']],
];

for (const [name, text, expected] of cases) {
  test(`reports ${name} at the right place`, () => {
    assert.deepEqual(parseYaml(text).diags, expected);
  });
}

test('a flow-comma cut is explained with the value the user meant', () => {
  const { ctx } = parseYaml('sources:\n  s:\n    columns:\n      amount: { type: DECIMAL(12, 2) }\n');
  const [d] = ctx.diagnostics.sorted();
  assert.equal(d!.code, 'yaml-unquoted-comma');
  assert.equal(d!.message, "the comma in 'DECIMAL(12, 2)' ends the value inside { ... }: quote it");
});

test('every diagnostic code used is registered with an explanation', async () => {
  const { yamlCodes } = await import('../../../src/diagnostics/codes/yaml.ts');
  for (const [code, def] of Object.entries(yamlCodes)) {
    assert.match(code, /^yaml-[a-z-]+$/);
    assert.ok(def.explain.length > 80, code);
  }
});
