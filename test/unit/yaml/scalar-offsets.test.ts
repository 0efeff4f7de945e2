// A SQL body inside a YAML scalar reports errors at YAML line:column; these tests pin the
// offset mapping for every scalar style on its own, against positions worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument, isMap, isScalar, type Scalar } from 'yaml';
import { LineMap } from '../../../src/diagnostics/span.ts';
import { scalarFragmentOrigin, scalarValueOffsets, type ScalarStyle } from '../../../src/syntax/yaml/scalar-offsets.ts';

/** The scalar under key `q` of a one-level YAML mapping. */
function scalarAt(text: string, key = 'q'): Scalar {
  const doc = parseDocument(text);
  assert.equal(doc.errors.length, 0, String(doc.errors[0]?.message));
  assert.ok(isMap(doc.contents));
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key);
  assert.ok(pair && isScalar(pair.value));
  return pair.value as Scalar;
}

function offsetsOf(text: string, key = 'q'): { value: string; offsets: number[] } {
  const sc = scalarAt(text, key);
  const value = String(sc.value);
  const offsets = scalarValueOffsets(text, { style: sc.type as ScalarStyle, range: sc.range!, value });
  return { value, offsets };
}

/** line:column (1-based) of the file position the i-th value character maps to. */
function posOfValueChar(text: string, needle: string, key = 'q'): string {
  const { value, offsets } = offsetsOf(text, key);
  const i = value.indexOf(needle);
  assert.ok(i >= 0, `'${needle}' not in value ${JSON.stringify(value)}`);
  const p = new LineMap(text).pos(offsets[i]!);
  return `${p.line}:${p.column}`;
}

test('literal block: each line maps to its own YAML line, indentation stripped', () => {
  const text = 'a: 1\nq: |\n  SELECT x\n  FROM t\n  WHERE y > 1\nz: 2\n';
  assert.equal(posOfValueChar(text, 'SELECT'), '3:3');
  assert.equal(posOfValueChar(text, 'FROM'), '4:3');
  assert.equal(posOfValueChar(text, 'y >'), '5:9');
  assert.equal(posOfValueChar(text, '1\n'), '5:13');
});

test('literal block keeps extra indentation on more-indented lines', () => {
  const text = 'q: |\n  SELECT a,\n         b\n  FROM t\n';
  // value line 2 is "       b" (7 spaces kept); b sits at column 10 of YAML line 3.
  assert.equal(posOfValueChar(text, 'b'), '3:10');
  const { value, offsets } = offsetsOf(text);
  const firstSpaceOfLine2 = value.indexOf('\n') + 1;
  assert.equal(new LineMap(text).pos(offsets[firstSpaceOfLine2]!).column, 3);
});

test('literal block nested under two mappings (deeper indentation)', () => {
  const text = 'views:\n  v:\n    q: |\n      SELECT *\n      FROM orders\n';
  const sc = (() => {
    const doc = parseDocument(text);
    return (doc.getIn(['views', 'v', 'q'], true) as Scalar);
  })();
  const value = String(sc.value);
  const offs = scalarValueOffsets(text, { style: 'BLOCK_LITERAL', range: sc.range!, value });
  const lm = new LineMap(text);
  const p = lm.pos(offs[value.indexOf('orders')]!);
  assert.deepEqual([p.line, p.column], [5, 12]);
});

test('literal block with blank lines, a comment-looking line and explicit indentation indicator', () => {
  const text = 'q: |2\n    SELECT 1\n\n  # not a comment\n  FROM t\n';
  // With |2 the content indent is 2, so "  SELECT 1" keeps two spaces.
  assert.equal(posOfValueChar(text, 'SELECT'), '2:5');
  assert.equal(posOfValueChar(text, '#'), '4:3');
  assert.equal(posOfValueChar(text, 'FROM'), '5:3');
});

test('strip and keep chomping do not disturb positions', () => {
  assert.equal(posOfValueChar('q: |-\n  SELECT 1\n  FROM t\n', 'FROM'), '3:3');
  assert.equal(posOfValueChar('q: |+\n  SELECT 1\n  FROM t\n\n', 'FROM'), '3:3');
});

test('folded block: line breaks become spaces, words stay on their lines', () => {
  const text = 'q: >\n  SELECT a\n  FROM t\n\n  WHERE b\n';
  const { value } = offsetsOf(text);
  assert.equal(value, 'SELECT a FROM t\nWHERE b\n');
  assert.equal(posOfValueChar(text, 'FROM'), '3:3');
  assert.equal(posOfValueChar(text, 'WHERE'), '5:3');
  assert.equal(posOfValueChar(text, 'b\n'), '5:9');
});

test('plain multi-line scalar folds continuation lines', () => {
  const text = 'q: SELECT a\n   FROM t\nz: 1\n';
  assert.equal(posOfValueChar(text, 'SELECT'), '1:4');
  assert.equal(posOfValueChar(text, 'FROM'), '2:4');
  assert.equal(posOfValueChar(text, 't'), '2:9');
});

test("single-quoted: '' is one quote and following characters stay aligned", () => {
  const text = "q: 'SELECT ''it''s'' AS s FROM t'\n";
  const { value } = offsetsOf(text);
  assert.equal(value, "SELECT 'it's' AS s FROM t");
  // q=1 :=2 ' '=3 '=4, SELECT 5-10, '' 12-13, it 14-15, '' 16-17, s 18, '' 19-20, AS 22-23
  assert.equal(posOfValueChar(text, 'AS'), '1:22');
  assert.equal(posOfValueChar(text, 'FROM'), '1:27');
});

test('double-quoted: escapes are decoded and later characters stay aligned', () => {
  const text = 'q: "SELECT \\"x\\"\\tFROM \\u0074"\n';
  const { value } = offsetsOf(text);
  assert.equal(value, 'SELECT "x"\tFROM t');
  // "=4, SELECT 5-10, \\" 12-13, x 14, \\" 15-16, \\t 17-18, FROM 19-22, \\u0074 from 24
  assert.equal(posOfValueChar(text, 'FROM'), '1:19');
  // The \u0074 escape is the "t" at the end: it maps to its backslash (column 24).
  const { offsets } = offsetsOf(text);
  assert.equal(new LineMap(text).pos(offsets[value.length - 1]!).column, 24);
});

test('double-quoted multi-line with an escaped line break', () => {
  const text = 'q: "SELECT a \\\n   FROM t"\n';
  assert.equal(posOfValueChar(text, 'FROM'), '2:4');
});

test('CRLF line endings', () => {
  const text = 'q: |\r\n  SELECT x\r\n  FROM t\r\n';
  assert.equal(posOfValueChar(text, 'SELECT'), '2:3');
  assert.equal(posOfValueChar(text, 'FROM'), '3:3');
});

test('origin clamps out-of-range offsets and maps the end of the fragment after its last character', () => {
  const text = 'q: |\n  SELECT\n';
  const sc = scalarAt(text);
  const value = String(sc.value);
  const origin = scalarFragmentOrigin(text, new LineMap(text), { style: 'BLOCK_LITERAL', range: sc.range!, value });
  assert.equal(origin.mapOffset(-5), text.indexOf('SELECT'));
  assert.equal(origin.mapOffset(0), text.indexOf('SELECT'));
  assert.ok(origin.mapOffset(value.length) >= text.indexOf('SELECT') + 6);
  assert.ok(origin.mapOffset(1000) <= text.length);
});

test('offsets never decrease across the value (fuzz over styles)', () => {
  const bodies = ['SELECT a, b\nFROM t\nWHERE c = 1', "x 'y' \"z\"", 'a\n\n  b\n c', ''];
  for (const body of bodies) {
    const indented = body.split('\n').map((l) => (l ? `  ${l}` : l)).join('\n');
    for (const text of [`q: |\n${indented}\n`, `q: >\n${indented}\n`, `q: ${JSON.stringify(body)}\n`]) {
      const { offsets } = offsetsOf(text);
      for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i]! >= offsets[i - 1]!, `${JSON.stringify(text)} at ${i}`);
    }
  }
});
