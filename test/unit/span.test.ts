// LineMap turns offsets into 1-based line/column positions; spans everywhere depend on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineMap } from '../../src/diagnostics/span.ts';

test('LineMap maps offsets to 1-based line and column', () => {
  const m = new LineMap('ab\ncde\n\nf');
  assert.deepEqual(m.pos(0), { offset: 0, line: 1, column: 1 });
  assert.deepEqual(m.pos(2), { offset: 2, line: 1, column: 3 });
  assert.deepEqual(m.pos(3), { offset: 3, line: 2, column: 1 });
  assert.deepEqual(m.pos(8), { offset: 8, line: 4, column: 1 });
  assert.equal(m.lineText(2), 'cde');
  assert.equal(m.lineText(3), '');
});
