// The order diagnostics are printed in (DiagnosticBag.sorted): by file, then position, then code.
// Codes are compared by code units, which is localeCompare's order only because every code is
// lower-case kebab-case: the first test holds that premise for the whole registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CODES } from '../../src/diagnostics/registry.ts';
import { DiagnosticBag } from '../../src/diagnostics/bag.ts';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.ts';

test('every diagnostic code is lower-case kebab-case (code-unit order = locale order)', () => {
  const codes = Object.keys(CODES);
  assert.ok(codes.length > 100, 'the registry is read');
  assert.deepEqual(codes.filter((c) => !/^[a-z][a-z0-9-]*$/.test(c)), []);
  assert.deepEqual([...codes].sort(), [...codes].sort((a, b) => a.localeCompare(b)));
});

const at = (file: string, offset: number, code: string): Diagnostic => ({
  code,
  severity: 'warning',
  span: { file, start: { offset, line: 1, column: offset + 1 }, end: { offset, line: 1, column: offset + 1 } },
  message: code,
  params: {},
  labels: [],
  help: null,
  notes: [],
});

test('sorted: by file (locale order), then offset, then code', () => {
  const bag = new DiagnosticBag();
  bag.items.push(
    at('b.pipe.sql', 0, 'unknown-column'),
    at('a.pipe.sql', 40, 'flink-idle-watermark'),
    at('a.pipe.sql', 40, 'flink-datagen-values'),
    at('B2.pipe.sql', 0, 'unknown-column'),
    at('a.pipe.sql', 3, 'z-last-code'),
    at('a.pipe.sql', 40, 'flink-2'),
  );
  const order = bag.sorted().map((d) => `${d.span.file}:${d.span.start.offset}:${d.code}`);
  // Locale order puts `b` before `B2` (code units would not); `flink-2` before `flink-d…`.
  assert.deepEqual(order, [
    'a.pipe.sql:3:z-last-code',
    'a.pipe.sql:40:flink-2',
    'a.pipe.sql:40:flink-datagen-values',
    'a.pipe.sql:40:flink-idle-watermark',
    'b.pipe.sql:0:unknown-column',
    'B2.pipe.sql:0:unknown-column',
  ]);
});
