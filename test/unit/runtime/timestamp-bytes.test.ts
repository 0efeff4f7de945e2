// TIMESTAMP columns read straight from JSON bytes (timestampFromBytes, and the field reader
// handing them over as epoch milliseconds) against readTimestamp of the text as the oracle:
// every number it gives must be readTimestamp's, it must give one for every usual text
// readTimestamp accepts, and after the decoder's reader code a record's value must be the
// same as when the reader handed over the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonFieldReader, NOT_TAKEN } from '../../../targets/runtime/lib/formats/json-fields.ts';
import { BAD, readTimestamp, timestampFromBytes } from '../../../targets/runtime/lib/values.ts';
import { prng } from '../../support/prng.ts';

/** The usual shapes: 'YYYY-MM-DD HH:MM:SS', 'T' for the blank, '.fff' and 'Z' optional. */
const USUAL = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{3})?Z?$/;

function fromBytes(text: string): number | undefined {
  // Padding on both sides: the function must keep to [from, to).
  const b = Buffer.from(`9${text}9`, 'utf8');
  return timestampFromBytes(b, 1, b.length - 1);
}

function checkText(text: string): void {
  const want = readTimestamp(text);
  const got = fromBytes(text);
  if (got !== undefined) assert.equal(got, want, `value of ${JSON.stringify(text)}`);
  else if (typeof want === 'number') assert.ok(!USUAL.test(text), `leaves the usual ${JSON.stringify(text)} (readTimestamp: ${want})`);
}

test('hand-picked texts: the values readTimestamp gives, nothing for a bad date', () => {
  assert.equal(fromBytes('2026-01-01 00:00:00.000'), Date.UTC(2026, 0, 1));
  assert.equal(fromBytes('2025-12-31T23:59:59.891Z'), Date.UTC(2025, 11, 31, 23, 59, 59, 891));
  assert.equal(fromBytes('1969-12-31 23:59:59'), -1000);
  assert.equal(fromBytes('0000-03-01 00:00:00Z'), readTimestamp('0000-03-01 00:00:00Z'));
  assert.equal(fromBytes('2024-02-29 12:00:00'), Date.UTC(2024, 1, 29, 12));
  // Bad dates and times: left to readTimestamp, which says BAD (and the dead letter shows the text).
  for (const t of ['2026-02-29 00:00:00', '1900-02-29 00:00:00', '2026-13-01 00:00:00', '2026-04-31 00:00:00', '2026-01-00 00:00:00', '2026-01-01 24:00:00', '2026-01-01 00:60:00', '2026-01-01 00:00:60']) {
    assert.equal(fromBytes(t), undefined, t);
    assert.equal(readTimestamp(t), BAD, t);
  }
  // Other shapes readTimestamp takes: left to it.
  for (const t of ['2026-01-01', '2026-01-01 00:00', '2026-01-01 00:00:00.5', '2026-01-01 00:00:00.123456', '2026-01-01 00:00:00+02:00', '2026-01-01 00:00:00 Z']) {
    assert.equal(fromBytes(t), undefined, t);
    assert.equal(typeof readTimestamp(t), 'number', t);
  }
  for (const t of ['2026-01-01x00:00:00', '2026/01/01 00:00:00', '2026-01-01 00:00:00.00a', '2026-01-01 00:00:00.000X', '２026-01-01 00:00:00', '+2026-01-01 00:00:0']) checkText(t);
});

test('random near-usual texts agree with readTimestamp, across days (the day cache)', () => {
  const rnd = prng(20261203);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const two = (max: number): string => String(Math.floor(rnd() * max)).padStart(2, '0');
  const junk = ['/', ':', '-', ' ', 'T', 'Z', '.', 'a', '0', '9', '', 'é'];
  let taken = 0;
  for (let i = 0; i < 40000; i++) {
    const y = String(pick([0, 1, 1600, 1900, 1969, 1970, 2000, 2024, 2026, 9999, Math.floor(rnd() * 10000)])).padStart(4, '0');
    let text = `${y}-${two(14)}-${two(33)}${pick([' ', 'T'])}${two(26)}:${two(62)}:${two(62)}${pick(['', '.' + String(Math.floor(rnd() * 1000)).padStart(3, '0')])}${pick(['', 'Z'])}`;
    if (rnd() < 0.2) {
      const chars = [...text];
      chars.splice(Math.floor(rnd() * chars.length), rnd() < 0.5 ? 1 : 0, pick(junk));
      text = chars.join('');
    }
    checkText(text);
    if (fromBytes(text) !== undefined) taken++;
  }
  assert.ok(taken > 8000, `took ${taken}`);
});

/** The decoder's reader code of a TIMESTAMP column (js-types.ts fastReaderCode). */
const decodeTimestamp = (v: unknown): unknown => (Number.isInteger(v) && (v as number) <= 8.64e15 && (v as number) >= -8.64e15 ? v : readTimestamp(v));

test('the field reader hands TIMESTAMP columns over as the decoder would read them', () => {
  const plain = new JsonFieldReader(['t', 's']);
  const timed = new JsonFieldReader(['t', 's'], new Set(['t']));
  const values = ['"2026-01-01 00:00:00.000"', '"2026-01-01T10:20:30Z"', '"2026-02-30 00:00:00"', '"2026-01-01"', '"2026-01-01 00:00:00.12"', '1767225600000', '1.5', 'null', '"2026\\u002d01-01 00:00:00"', '"2026-01-01 00:00:00é"', 'true', '[1]', '{"a":"2026-01-01 00:00:00"}'];
  for (const v of values) {
    const line = Buffer.from(`{"t":${v},"s":"2026-01-01 00:00:00"}`);
    const a = plain.read(line, 0, line.length);
    const b = timed.read(line, 0, line.length);
    assert.ok(a !== NOT_TAKEN && b !== NOT_TAKEN, v);
    assert.deepStrictEqual(decodeTimestamp(b['t']), decodeTimestamp(a['t']), v);
    // Only the TIMESTAMP column changes form; a STRING column keeps its text.
    assert.equal(b['s'], '2026-01-01 00:00:00');
  }
  const line = Buffer.from('{"s":1}');
  assert.deepStrictEqual(timed.read(line, 0, line.length), { s: 1 });
});
