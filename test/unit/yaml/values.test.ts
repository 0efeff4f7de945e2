// The small value languages of the YAML form: SQL type strings, durations and names, each
// checked against what the SQL front end builds for the same text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import { parseTypeString } from '../../../src/syntax/yaml/type-string.ts';
import { formatYamlDuration, parseYamlDuration } from '../../../src/syntax/yaml/duration.ts';
import { formatIdentYaml, parseIdentText, parseQualifiedText } from '../../../src/syntax/yaml/names.ts';
import { closest, editDistance } from '../../../src/syntax/yaml/suggest.ts';
import { syntheticSpan } from '../../../src/diagnostics/span.ts';
import { parseSql, withoutSpans } from './helpers.ts';

const span = syntheticSpan('t');
const sub = (): typeof span => span;

test('type strings parse to the same SqlType as in a .pipe.sql column list', () => {
  const types = [
    'BOOLEAN', 'INT', 'integer', 'BIGINT', 'FLOAT', 'DOUBLE', 'STRING', 'VARCHAR(10)', 'BYTES', 'DATE',
    'DECIMAL', 'DECIMAL(12, 2)', 'decimal(5)', 'TIMESTAMP', 'TIMESTAMP(6)', 'TIMESTAMP_LTZ(3)',
    'ARRAY<STRING NOT NULL>', 'MAP<STRING, ARRAY<BIGINT>>', 'ROW<id BIGINT NOT NULL, "Full Name" STRING, tags ARRAY<STRING>>',
    'STRING NOT NULL',
  ];
  const sql = `CREATE SOURCE s (\n${types.map((t, i) => `  c${i} ${t}`).join(',\n')}\n) WITH (connector = 'kafka', topic = 't');\n`;
  const parsed = parseSql(sql);
  assert.deepEqual(parsed.diags, []);
  const src = parsed.ast.statements[0]!;
  assert.ok(src.kind === 'source' && src.columns);
  types.forEach((t, i) => {
    const y = parseTypeString(t);
    assert.ok(y.ok, `${t}: ${y.ok ? '' : y.detail}`);
    assert.deepEqual(withoutSpans(y.type), withoutSpans(src.columns![i]!.type), t);
  });
});

test('type strings: hand-built expectations', () => {
  const ok = (t: string) => {
    const r = parseTypeString(t);
    assert.ok(r.ok, t);
    return r.type;
  };
  assert.deepEqual(ok('DECIMAL(12, 2)'), T.decimal(12, 2));
  assert.deepEqual(ok('  timestamp_ltz ( 3 )  '), T.timestampLtz(3));
  assert.deepEqual(ok('MAP<STRING, BIGINT> NOT NULL'), T.map(T.string(), T.bigint(), false));
  assert.deepEqual(ok('ROW<a INT>'), T.row([{ name: 'a', type: T.int() }]));
});

test('bad type strings say what is wrong and where', () => {
  const bad = (t: string) => {
    const r = parseTypeString(t);
    assert.ok(!r.ok, t);
    return [r.detail, r.offset];
  };
  assert.deepEqual(bad('STRNG'), ["unknown type 'STRNG'; did you mean STRING?", 0]);
  assert.deepEqual(bad('ARRAY<STRING'), ["expected '>', found the end", 12]);
  assert.deepEqual(bad('DECIMAL(40, 2)'), ['DECIMAL precision must be 1 to 38, not 40', 0]);
  assert.deepEqual(bad('DECIMAL(5, 6)'), ['DECIMAL scale 6 is larger than its precision 5', 0]);
  assert.deepEqual(bad('BIGINT NOT'), ['expected NULL after NOT, found the end', 10]);
  assert.deepEqual(bad('INT INT'), ["unexpected 'INT' after the type", 4]);
  assert.deepEqual(bad('ROW<a INT, a INT>'), ["field 'a' appears twice", 11]);
  assert.deepEqual(bad('INT;'), ["unexpected ';'", 3]);
  // The failure covers the whole offending word, for the underline.
  const r = parseTypeString('MAP<STRING, BIGNT>');
  assert.ok(!r.ok);
  assert.deepEqual([r.offset, r.end], [12, 17]);
  assert.deepEqual(bad(''), ['expected a type name, found the end', 0]);
});

test('durations: the compact spelling is the SQL unit form, others keep their text', () => {
  const d = (t: string) => {
    const r = parseYamlDuration(t, span);
    return r && [r.ms, r.text, r.unit];
  };
  assert.deepEqual(d('5s'), [5000, '5', 'second']);
  assert.deepEqual(d('250ms'), [250, '250', 'millisecond']);
  assert.deepEqual(d('5min'), [300000, '5', 'minute']);
  assert.deepEqual(d('1h'), [3600000, '1', 'hour']);
  assert.deepEqual(d('7d'), [604800000, '7', 'day']);
  assert.deepEqual(d('1.5s'), [1500, '1.5', 'second']);
  assert.deepEqual(d('30 s'), [30000, '30 s', null]);
  assert.deepEqual(d('5 seconds'), [5000, '5 seconds', null]);
  assert.deepEqual(d('2 minutes'), [120000, '2 minutes', null]);
  for (const bad of ['5', 's', '5 parsecs', '5s5', '', '5 s s']) assert.equal(d(bad), null, bad);
  // As in SQL (INTERVAL '2 months'), these parse; the checker rejects them in both forms.
  assert.deepEqual(d('2 months'), [0, '2 months', null]);
  assert.deepEqual(d('-5s'), [-5000, '-5', 'second']);
});

test('durations print back to the spelling they were read from', () => {
  for (const t of ['5s', '250ms', '5min', '1h', '7d', '30 s', '5 seconds', '1.5s']) {
    assert.equal(formatYamlDuration(parseYamlDuration(t, span)!), t);
  }
  // SQL intervals with no compact YAML spelling keep the unit as a word.
  assert.equal(formatYamlDuration({ kind: 'interval', ms: 604800000, text: '1', unit: 'week', span }), '1 week');
  assert.equal(parseYamlDuration('1 week', span)!.ms, 604800000);
  // SQL INTERVAL '2' MONTH has no YAML abbreviation: it prints as words and reads back as text.
  assert.equal(formatYamlDuration({ kind: 'interval', ms: 0, text: '2', unit: 'month', span }), '2 month');
  assert.deepEqual(parseYamlDuration('2 month', span)?.text, '2 month');
});

test('names: plain words fold, "quoted" names keep case, anything else is refused', () => {
  assert.deepEqual(parseIdentText('Orders', sub), { name: 'orders', quoted: false, span });
  assert.deepEqual(parseIdentText('"Orders"', sub), { name: 'Orders', quoted: true, span });
  assert.deepEqual(parseIdentText('"say ""hi"""', sub), { name: 'say "hi"', quoted: true, span });
  for (const bad of ['my-sink', '1x', '', '""', '"open', 'a.b', 'a b']) assert.equal(parseIdentText(bad, sub), null, bad);
  const q = parseQualifiedText('Analytics."Revenue 1m"', sub);
  assert.deepEqual(q?.parts.map((p) => [p.name, p.quoted]), [['analytics', false], ['Revenue 1m', true]]);
  assert.equal(parseQualifiedText('a..b', sub), null);
  assert.equal(formatIdentYaml({ name: 'Revenue 1m', quoted: true, span }), '"Revenue 1m"');
  assert.equal(formatIdentYaml({ name: 'orders', quoted: true, span }), 'orders');
});

test('suggestions: typos within a third of the word, shortened keys when unambiguous', () => {
  assert.equal(editDistance('watermrk', 'watermark'), 1);
  assert.equal(editDistance('emti', 'emit'), 1);
  assert.equal(closest('colums', ['columns', 'watermark']), 'columns');
  assert.equal(closest('retain', ['older_than', 'retain_last']), 'retain_last');
  assert.equal(closest('topic', ['columns', 'watermark', 'primary_key', 'fields']), null);
  assert.equal(closest('min', ['min_input_files', 'min_rows']), null);
});
