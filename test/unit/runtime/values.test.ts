// Value formats of LANGUAGE.md "Values": reading timestamps/decimals/bigints from JSON and
// CSV text, and writing TIMESTAMP(3), TIMESTAMP_LTZ, DECIMAL(p, s) and BIGINT exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BAD,
  add64,
  divDecimal,
  formatDecimal,
  formatTimestamp,
  formatTimestampLtz,
  jsonInt64,
  mulDecimal,
  readBigint,
  readDecimal,
  readTimestamp,
  rescale,
} from '../../../targets/runtime/lib/values.ts';

test('TIMESTAMP reads ISO-8601, SQL text (UTC) and epoch milliseconds', () => {
  const ms = Date.UTC(2020, 3, 15, 8, 5, 0, 123);
  assert.equal(readTimestamp('2020-04-15 08:05:00.123'), ms);
  assert.equal(readTimestamp('2020-04-15T08:05:00.123Z'), ms);
  assert.equal(readTimestamp('2020-04-15T10:05:00.123+02:00'), ms);
  assert.equal(readTimestamp('2020-04-15 08:05:00.123456'), ms);
  assert.equal(readTimestamp(ms), ms);
  assert.equal(readTimestamp('2020-04-15'), Date.UTC(2020, 3, 15));
  assert.equal(readTimestamp(null), null);
  assert.equal(readTimestamp('2020-13-01 00:00:00'), BAD);
  assert.equal(readTimestamp('yesterday'), BAD);
  assert.equal(readTimestamp(true), BAD);
});

test("TIMESTAMP(3) is written 'YYYY-MM-DD HH:MM:SS.fff', TIMESTAMP_LTZ as ISO-8601 with Z", () => {
  assert.equal(formatTimestamp(Date.UTC(2020, 3, 15, 8, 5, 0, 7)), '2020-04-15 08:05:00.007');
  assert.equal(formatTimestamp(Date.UTC(1969, 11, 31, 23, 59, 59, 999)), '1969-12-31 23:59:59.999');
  assert.equal(formatTimestamp(0), '1970-01-01 00:00:00.000');
  assert.equal(formatTimestampLtz(Date.UTC(2020, 3, 15, 8, 5)), '2020-04-15T08:05:00.000Z');
});

test('DECIMAL reads numbers and numeric text exactly, rounds half away from zero, rejects overflow', () => {
  assert.equal(readDecimal('11.00', 10, 2), 1100);
  assert.equal(readDecimal(0.1, 10, 2), 10);
  assert.equal(readDecimal(4, 10, 2), 400);
  assert.equal(readDecimal('-0.005', 10, 2), -1);
  assert.equal(readDecimal('0.004', 10, 2), 0);
  assert.equal(readDecimal('1.005', 10, 2), 101);
  assert.equal(readDecimal('1e2', 10, 2), 10000);
  assert.equal(readDecimal('99999999.99', 10, 2), 9999999999);
  assert.equal(readDecimal('100000000.00', 10, 2), BAD);
  assert.equal(readDecimal('abc', 10, 2), BAD);
  assert.equal(readDecimal('', 10, 2), BAD);
  assert.equal(readDecimal('12345678901234567890.12', 38, 2), 1234567890123456789012n);
});

test('DECIMAL is written with exactly s digits; arithmetic stays exact beyond 2^53', () => {
  assert.equal(formatDecimal(1100, 2), '11.00');
  assert.equal(formatDecimal(5, 2), '0.05');
  assert.equal(formatDecimal(-5, 2), '-0.05');
  assert.equal(formatDecimal(7, 0), '7');
  // Ten million sums of 0.10 in floating point drift; scaled integers do not.
  let s: number | bigint = 0;
  for (let i = 0; i < 1000; i++) s = add64(s, 10);
  assert.equal(formatDecimal(s, 2), '100.00');
  const big = add64(Number.MAX_SAFE_INTEGER, 1);
  assert.equal(big, 9007199254740992n);
  assert.equal(formatDecimal(add64(big, 1), 2), '90071992547409.93');
  assert.equal(rescale(1234, 2, 4), 123400);
  assert.equal(rescale(1235, 2, 1), 124);
  assert.equal(mulDecimal(250, 2, 3, 0, 2), 750); // 2.50 * 3 = 7.50
  assert.equal(divDecimal(1100, 2, 3, 0, 6), 3666667); // 11.00 / 3 = 3.666667
  assert.equal(divDecimal(1, 2, 0, 0, 2), null);
});

test('BIGINT is a number within 2^53 and a string beyond, in and out', () => {
  assert.equal(readBigint('9007199254740993'), 9007199254740993n);
  assert.equal(readBigint(42), 42);
  assert.equal(readBigint('42'), 42);
  assert.equal(readBigint(1.5), BAD);
  assert.equal(readBigint('9223372036854775808'), BAD);
  assert.equal(jsonInt64(42), '42');
  assert.equal(jsonInt64(9007199254740993n), '"9007199254740993"');
});

test('formatTimestamp: repeated and alternating instants (window_start/window_end rows) read right', () => {
  // Reference independent of the formatter: the ISO text with a space for the T, no Z.
  const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  const base = Date.UTC(2026, 0, 1);
  let s = 18;
  const rnd = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const seen: number[] = [];
  for (let i = 0; i < 20000; i++) {
    // Mostly the last two instants again, sometimes an older one, a new one, or one a day off.
    const x = rnd();
    const ms =
      seen.length > 1 && x < 0.6 ? seen[seen.length - 1 - Math.floor(rnd() * 2)]!
      : seen.length > 2 && x < 0.7 ? seen[Math.floor(rnd() * seen.length)]!
      : x < 0.8 ? base + Math.floor(rnd() * 86400000 * 3) - 86400000
      : base + Math.floor(rnd() * 1000) * 2000;
    seen.push(ms);
    assert.equal(formatTimestamp(ms), iso(ms), `at ${ms}`);
  }
  // -0 and 0 are the same instant.
  assert.equal(formatTimestamp(-0), '1970-01-01 00:00:00.000');
  assert.equal(formatTimestamp(0), '1970-01-01 00:00:00.000');
});
