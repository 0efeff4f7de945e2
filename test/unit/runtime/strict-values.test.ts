// Strict values (docs/language-decisions.md "Strict values", issue 12 items 3 and 4): each
// reader accepts exactly the texts and numbers of its type and says BAD (a dead letter) for
// anything else, instead of rolling fields over, reading hex, or making NaN dates. Each
// expected verdict is worked out from the type's definition, not from the reader's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BAD,
  formatDate,
  formatTimestamp,
  formatTimestampLtz,
  previewValue,
  readBigint,
  readBoolean,
  readDate,
  readDecimal,
  readDouble,
  readFloat,
  readInt,
  readTimestamp,
} from '../../../targets/runtime/lib/values.ts';
import { Utf8Scanner } from '../../../targets/runtime/lib/io/utf8-check.ts';

type Row = [input: unknown, expected: unknown, why: string];

function table(name: string, read: (v: unknown) => unknown, rows: Row[]): void {
  test(name, () => {
    for (const [input, expected, why] of rows) {
      assert.deepEqual(read(input), expected, `${JSON.stringify(String(input))} (${why})`);
    }
  });
}

const day = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / 86400000;

table('DATE: a real calendar day, no rollover, within the Date range', readDate, [
  ['2026-02-28', day(2026, 2, 28), 'last day of February in a common year'],
  ['2026-02-29', BAD, '2026 is not a leap year (not divisible by 4)'],
  ['2026-02-30', BAD, 'February never has 30 days (Date.parse rolls it to March 2)'],
  ['2024-02-29', day(2024, 2, 29), '2024 is divisible by 4 and not by 100'],
  ['1900-02-29', BAD, '1900 is divisible by 100 and not by 400'],
  ['2000-02-29', day(2000, 2, 29), '2000 is divisible by 400'],
  ['2026-04-31', BAD, 'April has 30 days'],
  ['2026-12-31', day(2026, 12, 31), 'December has 31 days'],
  ['2026-13-01', BAD, 'there is no month 13'],
  ['2026-00-10', BAD, 'there is no month 0'],
  ['2026-01-00', BAD, 'there is no day 0'],
  ['1970-01-01', 0, 'the epoch is day 0'],
  ['0001-01-01', -719162, 'year 1 is 719162 days before 1970 (not 1901: years 0-99 are not 19xx)'],
  ['2026-1-05', BAD, 'month must have two digits'],
  [19000, 19000, 'a number is epoch days'],
  [1e8, 1e8, 'the last day JavaScript dates can hold (8.64e15 ms / 86400000)'],
  [1e8 + 1, BAD, 'one day beyond the Date range'],
  [1e17, BAD, 'far beyond the Date range (formatting it threw "Invalid time value")'],
  [1.5, BAD, 'a day count is whole'],
  [null, null, 'NULL'],
  [true, BAD, 'a boolean is no date'],
]);

const ts = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number => Date.UTC(y, mo - 1, d, h, mi, s, ms);

table('TIMESTAMP: every field in range, offsets applied, numbers within ±8.64e15 ms', readTimestamp, [
  ['2026-02-28 23:59:59.999', ts(2026, 2, 28, 23, 59, 59, 999), 'the last millisecond of a valid day'],
  ['2026-02-30 00:00:00', BAD, 'no February 30 (Date.UTC rolled it to March 2)'],
  ['2024-02-29T12:00:00Z', ts(2024, 2, 29, 12), 'leap day of a leap year'],
  ['2026-01-01 00:00:60', BAD, 'second 60 (Date.UTC rolled it to 00:01:00)'],
  ['2026-01-01 00:60:00', BAD, 'minute 60'],
  ['2026-01-01 24:00:00', BAD, 'hour 24'],
  ['2026-01-01T10:00:00+02:00', ts(2026, 1, 1, 8), '+02:00 is two hours ahead of UTC'],
  ['2026-01-01T10:00:00-0130', ts(2026, 1, 1, 11, 30), '-0130 is 1:30 behind UTC'],
  ['2026-01-01T10:00:00+24:00', BAD, 'an offset of 24 hours is no offset'],
  ['2026-01-01T10:00:00+01:60', BAD, 'offset minute 60'],
  ['2026-01-01 00:00:00.123456789', ts(2026, 1, 1, 0, 0, 0, 123), 'digits beyond milliseconds are cut (TIMESTAMP(3))'],
  ['0050-06-01 00:00:00', year50June1(), 'year 50, not 1950 (Date.UTC reads years 0-99 as 19xx)'],
  [1700000000000, 1700000000000, 'epoch milliseconds'],
  [8.64e15, 8.64e15, 'the last instant a JavaScript Date holds'],
  [-8.64e15, -8.64e15, 'the first instant a JavaScript Date holds'],
  [8.64e15 + 1, BAD, 'one millisecond beyond the Date range'],
  [1e17, BAD, 'beyond the Date range (was written as NaN-NaN-NaN)'],
  [9007199254740993n, BAD, 'a BigInt beyond the range too'],
  [Number.NaN, BAD, 'NaN is no instant'],
  [new Date(Number.NaN), BAD, 'an invalid Date'],
  ['yesterday', BAD, 'not a timestamp text'],
]);

/** June 1 of the year 50, by the Date API that takes years literally (setUTCFullYear). */
function year50June1(): number {
  const d = new Date(0);
  d.setUTCFullYear(50, 5, 1);
  return d.getTime();
}

table('INT: decimal digits within 32 bits; no hex, exponents or fractions', readInt, [
  ['42', 42, 'decimal digits'],
  [' -7 ', -7, 'a sign and surrounding blanks (CSV cells)'],
  ['+5', 5, 'an explicit plus'],
  ['0x10', BAD, 'hex (Number() reads 16)'],
  ['0b11', BAD, 'binary (Number() reads 3)'],
  ['0o17', BAD, 'octal (Number() reads 15)'],
  ['1e3', BAD, 'an exponent is no integer text'],
  ['1.0', BAD, 'a fraction is no integer text'],
  ['', BAD, 'an empty text in JSON is no integer'],
  ['Infinity', BAD, 'no infinity in INT'],
  ['2147483647', 2147483647, '2^31 - 1 is the largest INT'],
  ['2147483648', BAD, '2^31 does not fit 32 bits'],
  ['-2147483648', -2147483648, '-2^31 is the smallest INT'],
  [-2147483649, BAD, 'below -2^31'],
  [1.5, BAD, 'a JSON number with a fraction'],
  [1e3, 1000, 'a JSON number is its value (1e3 is 1000)'],
  [true, BAD, 'a boolean (Number(true) is 1)'],
  [[[1]], BAD, 'an array (its toString is "1")'],
  [null, null, 'NULL'],
]);

table('BIGINT: decimal digits within 64 bits; JSON numbers only while exact', readBigint, [
  ['9223372036854775807', 9223372036854775807n, '2^63 - 1 is the largest BIGINT'],
  ['9223372036854775808', BAD, '2^63 does not fit'],
  ['-9223372036854775808', -9223372036854775808n, '-2^63 is the smallest'],
  ['0x10', BAD, 'hex'],
  ['000000000000000000000000000042', 42, 'leading zeros do not make a number larger'],
  ['1' + '0'.repeat(100000), BAD, 'a hundred thousand digits are out of range (and not parsed)'],
  [9007199254740991, 9007199254740991, '2^53 - 1 is exact as a JSON number'],
  [9007199254740992, BAD, '2^53 as a JSON number may be a rounded 2^53 + 1'],
]);

table('DOUBLE and FLOAT: decimal floating-point text, and the non-finite texts pipec writes', readDouble, [
  ['1.5', 1.5, 'a decimal fraction'],
  ['-.5e-3', -0.0005, 'leading point and exponent'],
  ['0x10', BAD, 'hex (Number() reads 16)'],
  ['1_000', BAD, 'digit separators'],
  ['', BAD, 'empty'],
  ['NaN', Number.NaN, 'written by jsonDouble for NaN'],
  ['-Infinity', -Infinity, 'written by jsonDouble for -Infinity'],
  ['inf', BAD, 'not a spelling pipec writes'],
]);

table('FLOAT: a finite value beyond ~3.4e38 is out of range', readFloat, [
  [1e38, Math.fround(1e38), 'within FLOAT'],
  [1e39, BAD, 'beyond FLOAT: not silently infinity'],
  ['Infinity', Infinity, 'infinity stays infinity'],
]);

table('BOOLEAN: true/false (either case), nothing else', readBoolean, [
  [true, true, 'JSON true'],
  ['TRUE', true, 'upper case text'],
  ['false', false, 'lower case text'],
  ['yes', BAD, 'not a boolean text'],
  [1, BAD, 'a number is no boolean'],
  ['', BAD, 'empty'],
]);

const dec = (v: unknown): unknown => readDecimal(v, 10, 2);
table('DECIMAL(10, 2): at most 8 integer digits, rounded to 2 fraction digits, work linear in the text', dec, [
  ['12345678.99', 1234567899, '8 integer digits fit'],
  ['123456789', BAD, '9 integer digits do not fit DECIMAL(10, 2)'],
  ['99999999.995', BAD, 'rounds up to 100000000.00: 9 integer digits'],
  ['0.005', 1, 'half rounds away from zero'],
  ['-0.004', 0, 'below half rounds to zero'],
  ['1.5e3', 150000, 'an exponent moves the point'],
  ['1e999999999', BAD, 'a huge exponent is out of range without building a billion digits'],
  ['1e-999999999', 0, 'a tiny value is 0 without building a billion digits'],
  ['0e999999999', 0, 'zero is zero at any exponent'],
  ['0x10', BAD, 'hex'],
  ['1,5', BAD, 'a comma is no decimal point'],
  ['.', BAD, 'a point without digits'],
  [1e300, BAD, 'a JSON number far beyond the precision'],
]);

test('out-of-range values are refused on read, so writers never meet them', () => {
  // What the readers let through, the writers format (no NaN-NaN-NaN, no "Invalid time value").
  assert.equal(formatTimestamp(8.64e15), '275760-09-13 00:00:00.000');
  assert.equal(formatTimestampLtz(-8.64e15), '-271821-04-20T00:00:00.000Z');
  assert.equal(formatDate(1e8), '275760-09-13');
  assert.equal(formatDate(-1), '1969-12-31');
});

test('a dead letter shows a value in at most 200 characters, and deep nesting as a placeholder', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 20000; i++) deep = [deep];
  assert.equal(previewValue(deep), '(an array nested too deeply to show)');
  assert.equal(previewValue('x'.repeat(1000)), '"' + 'x'.repeat(199) + '...');
  assert.equal(previewValue('0x10'), '"0x10"');
});

test('UTF-8 scanner: invalid sequences by file offset (RFC 3629), valid ones across chunk cuts', () => {
  const offsets = (chunks: number[][]): number[] => {
    const s = new Utf8Scanner();
    for (const c of chunks) s.push(Buffer.from(c));
    s.end();
    return s.invalid;
  };
  const euro = [0xe2, 0x82, 0xac]; // U+20AC, 3 bytes
  const rows: [number[][], number[], string][] = [
    [[[0x61, ...euro, 0x62]], [], 'a valid 3-byte sequence'],
    [[[0x61, 0xe2], [0x82, 0xac, 0x62]], [], 'the same, cut after its first byte by a chunk boundary'],
    [[[0xf0, 0x9f], [0x98], [0x80]], [], 'a 4-byte sequence (U+1F600) over three chunks'],
    [[[0x61, 0xff, 0x62]], [1], '0xFF never occurs in UTF-8'],
    [[[0xc0, 0x80]], [0, 1], 'overlong NUL: 0xC0 is no lead byte, then a stray continuation'],
    [[[0xed, 0xa0, 0x80]], [0, 1, 2], 'a UTF-16 surrogate (U+D800) is not encodable'],
    [[[0xf4, 0x90, 0x80, 0x80]], [0, 1, 2, 3], 'beyond U+10FFFF'],
    [[[0x63, 0xc3, 0x28]], [1], '0xC3 needs a continuation byte, 0x28 is "("'],
    [[[0x61, 0xe2, 0x82]], [1], 'a sequence cut short by the end of the input'],
  ];
  for (const [chunks, expected, why] of rows) assert.deepEqual(offsets(chunks), expected, why);
});

test('readTimestamp: the regex-free path for plain texts reads exactly what TS_RE reads', () => {
  // The reference: TS_RE and its field checks (the reader before it had a fast path).
  const RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;
  const reference = (raw: string): number | typeof BAD => {
    const m = RE.exec(raw);
    if (!m) return BAD;
    const y = +m[1]!, mo = +m[2]!, d = +m[3]!;
    const h = m[4] ? +m[4] : 0, mi = m[5] ? +m[5] : 0, s = m[6] ? +m[6] : 0;
    const ms = m[7] ? +(m[7] + '00').slice(0, 3) : 0;
    // A real date, by a Date round trip (setUTCFullYear reads years 0-99 as they are).
    const dd = new Date(0);
    dd.setUTCFullYear(y, mo - 1, d);
    const t0 = dd.getTime();
    if (mo < 1 || mo > 12 || dd.getUTCDate() !== d || dd.getUTCMonth() !== mo - 1 || h > 23 || mi > 59 || s > 59) return BAD;
    let t = t0 + h * 3600000 + mi * 60000 + s * 1000 + ms;
    const z = m[8];
    if (z && z !== 'Z') {
      const digits = z.length === 6 ? z.slice(1, 3) + z.slice(4) : z.slice(1);
      const oh = +digits.slice(0, 2), om = +digits.slice(2);
      if (oh > 23 || om > 59) return BAD;
      t -= (z[0] === '-' ? -1 : 1) * (oh * 60 + om) * 60000;
    }
    return t;
  };
  let s = 7;
  const rnd = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const dig = (k: number): string => Array.from({ length: k }, () => String(Math.floor(rnd() * 10))).join('');
  for (let i = 0; i < 100000; i++) {
    const year = rnd() < 0.8 ? pick(['2026', '2024', '2000', '1900', '1970', '0100', '9999']) : dig(4);
    const mo = rnd() < 0.8 ? pick(['01', '02', '04', '12']) : dig(2);
    const day = rnd() < 0.7 ? pick(['01', '28', '29', '30', '31']) : dig(2);
    let t = `${year}-${mo}-${day}`;
    if (rnd() < 0.9) t += pick(['T', ' ', ' ', 'x']) + (rnd() < 0.8 ? pick(['00', '12', '23', '24']) : dig(2)) + ':' + (rnd() < 0.9 ? pick(['00', '59', '60']) : dig(2));
    if (rnd() < 0.8) t += ':' + (rnd() < 0.9 ? pick(['00', '30', '59', '60']) : dig(2));
    if (rnd() < 0.7) t += '.' + dig(Math.floor(rnd() * 12));
    if (rnd() < 0.3) t += pick(['Z', ' Z', '+01:00', '-0230', '+24:00', 'z', ' ', 'x']);
    if (rnd() < 0.1) t = t.slice(0, Math.floor(rnd() * t.length));
    if (rnd() < 0.05) t = t.replace(/\d/, pick(['x', '٣', ' ']));
    assert.equal(readTimestamp(t), reference(t), JSON.stringify(t));
  }
});
