// PostgreSQL text values as the CDC source decodes them (expected instants computed with
// JavaScript's own ISO parser), and DSN redaction in error messages. No server needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numericPrecision, pgDate, pgTimestamp } from '../../../targets/runtime/lib/postgres-cdc/pg-values.ts';
import { redactDsn } from '../../../targets/runtime/lib/postgres-cdc/at-start.ts';

test('timestamp and timestamptz texts become epoch ms', () => {
  const iso = (s: string): number => new Date(s).getTime();
  const cases: [string, number][] = [
    ['2024-02-29 23:59:59.987654', iso('2024-02-29T23:59:59.987Z')],
    ['2024-03-01 01:00:00+02', iso('2024-03-01T01:00:00+02:00')],
    ['2024-03-01 01:00:00.5-05:30', iso('2024-03-01T01:00:00.500-05:30')],
    ['1900-01-01 00:00:00+00:09:21', iso('1900-01-01T00:00:00Z') - 561_000],
    ['2024-01-01 00:00:00.1', iso('2024-01-01T00:00:00.100Z')],
    ['0099-01-01 00:00:00', iso('0099-01-01T00:00:00Z')],
    ['2000-01-01 00:00:00 BC', iso('-001999-01-01T00:00:00Z')],
    ['infinity', Infinity],
  ];
  for (const [text, want] of cases) assert.equal(pgTimestamp(text), want, text);
  assert.equal(pgDate('1970-01-02'), 1);
  assert.equal(pgDate('1969-12-31'), -1);
});

test('numeric type modifiers give precision and scale', () => {
  // NUMERIC(12, 4): typmod = (12 << 16 | 4) + 4.
  assert.deepEqual(numericPrecision(((12 << 16) | 4) + 4), { precision: 12, scale: 4 });
  assert.equal(numericPrecision(-1), null);
});

test('DSNs lose their password in messages', () => {
  assert.equal(redactDsn('postgres://u:p%40ss@h:5432/db?sslmode=disable'), 'postgres://u:***@h:5432/db?sslmode=disable');
  assert.equal(redactDsn('postgres://u@h/db?password=x'), 'postgres://u@h/db?password=***');
  assert.equal(redactDsn("host=h user=u password='a b' dbname=d"), 'host=h user=u password=*** dbname=d');
  assert.equal(redactDsn('postgres://u@h/db'), 'postgres://u@h/db');
});
