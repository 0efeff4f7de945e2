// Deep nesting is refused with a coded nesting-too-deep before any recursive stage can run out
// of stack (before: internal-error "Maximum call stack size exceeded" from parser or checker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codes, compileText, HEAD, withExpr } from './helpers.ts';

const DEEP: Record<string, string> = {
  'parentheses x1000': withExpr('('.repeat(1000) + 'a' + ')'.repeat(1000)),
  'function calls x1000': withExpr('ABS('.repeat(1000) + 'a' + ')'.repeat(1000)),
  'CASE x1000': withExpr('CASE WHEN a = 1 THEN '.repeat(1000) + 'a' + ' END'.repeat(1000)),
  'ARRAY<...> x1000': HEAD.replace('a INT', 'a ' + 'ARRAY<'.repeat(1000) + 'INT' + '>'.repeat(1000)) + "CREATE SINK k FROM s WITH (connector = 'stdout');\n",
  'NOT x10000': withExpr('NOT '.repeat(10000) + 'TRUE'),
  'unary minus x10000': withExpr('- '.repeat(10000) + 'a'),
  '+ chain x10000': withExpr(Array(10000).fill('a').join(' + ')),
  'OR chain x5000': withExpr(Array(5000).fill('a = 1').join(' OR ')),
};

for (const [name, text] of Object.entries(DEEP)) {
  test(`${name}: nesting-too-deep with a real position, no internal error`, async () => {
    const r = await compileText(text);
    assert.ok(codes(r).includes('nesting-too-deep'), codes(r).join(', '));
    assert.ok(!codes(r).includes('internal-error'), codes(r).join(', '));
    const d = r.diagnostics.items.find((x) => x.code === 'nesting-too-deep')!;
    assert.ok(d.span.start.line >= 2, `points into the statement, not the file start: ${d.span.start.line}`);
  });
}

test('ARRAY<...> x1000 in a YAML column type is refused as a bad type, not a crash', async () => {
  const type = 'ARRAY<'.repeat(1000) + 'INT' + '>'.repeat(1000);
  const r = await compileText(`pipeline: p\nsources:\n  s:\n    connector: datagen\n    columns:\n      a: { type: '${type}' }\n`, '.pipe.yaml');
  assert.ok(!codes(r).includes('internal-error'));
  const d = r.diagnostics.items.find((x) => x.code === 'yaml-bad-type');
  assert.ok(d && /nests more than 256/.test(d.message), codes(r).join(', '));
});

test('nesting within the limit still compiles', async () => {
  for (const text of [withExpr('('.repeat(200) + 'a' + ')'.repeat(200)), withExpr(Array(200).fill('a').join(' + ')), withExpr('NOT '.repeat(200) + 'TRUE')]) {
    const r = await compileText(text);
    assert.deepEqual(r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.code), []);
    assert.ok(r.plan);
  }
});
