// Whatever a decoder throws on one record is that record's failure (a dead letter), never an
// exception out of the source (issue 12 item 3): the generated-decoder guard and the value
// format guard, including a stack overflow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeReason, guardDecode, guardFormat } from '../../../targets/runtime/lib/io/guarded-decode.ts';
import { createFormatDecoder } from '../../../targets/runtime/lib/formats/index.ts';
import { FAIL, type FormatDecoder } from '../../../targets/runtime/lib/formats/types.ts';
import type { SourceDef } from '../../../targets/runtime/lib/io/source-types.ts';

const deep = (): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < 20000; i++) v = [v];
  return v;
};

test('a generated decoder that throws fails the record with a reason; one that works is untouched', () => {
  const err = { column: '', reason: '' };
  const overflow = guardDecode((raw) => [String(raw.x)]); // Array#toString of 20,000 levels overflows
  assert.equal(overflow({ x: deep() }, err), null);
  assert.equal(decodeReason(err), 'cannot be decoded: the record is nested too deeply to decode');
  const throwing = guardDecode(() => {
    throw new RangeError('Invalid time value');
  });
  assert.equal(throwing({}, err), null);
  assert.equal(decodeReason(err), 'cannot be decoded: Invalid time value');
  const fine = guardDecode((raw, e) => {
    if (raw.x === 'bad') {
      e.column = 'x';
      e.reason = 'expected INT';
      return null;
    }
    return [raw.x];
  });
  assert.deepEqual(fine({ x: 1 }, err), [1]);
  assert.equal(fine({ x: 'bad' }, err), null);
  assert.equal(decodeReason(err), 'column x: expected INT');
});

test('a value format that throws returns FAIL with the reason; its own FAIL reasons pass through', () => {
  let calls = 0;
  const inner: FormatDecoder = {
    prepare: null,
    reason: '',
    changes: { n: 0, records: [], kinds: [] },
    decode(value) {
      calls++;
      if (value === null) {
        this.reason = 'null value (tombstone)';
        return FAIL;
      }
      if (value[0] === 0) throw new RangeError('Maximum call stack size exceeded');
      return { ok: true };
    },
    raw: (v) => (v === null ? '' : v.toString('base64')),
  };
  const g = guardFormat(inner);
  assert.equal(g.decode(Buffer.from([0])), FAIL);
  assert.equal(g.reason, 'cannot be decoded: the record is nested too deeply to decode');
  assert.equal(g.decode(null), FAIL);
  assert.equal(g.reason, 'null value (tombstone)');
  assert.deepEqual(g.decode(Buffer.from([1])), { ok: true });
  assert.equal(g.raw(Buffer.from([1])), 'AQ==');
  assert.equal(calls, 3);
});

test('every format createFormatDecoder makes is guarded, and JSON values must be valid UTF-8', () => {
  const def = { id: 's', name: 's', connector: 'kafka', format: 'json', options: {}, columns: [], decode: null, timeIndex: -1, delayMs: 0, idleTimeoutMs: null } as SourceDef;
  const json = createFormatDecoder(def, {});
  assert.equal(json.decode(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])), FAIL); // {"a":"\xff"}
  assert.equal(json.reason, 'not valid UTF-8');
  assert.deepEqual(json.decode(Buffer.from('{"a":"é"}')), { a: 'é' });
  const dbz = createFormatDecoder({ ...def, format: 'debezium-json' }, {});
  assert.equal(dbz.decode(Buffer.from([0x7b, 0xc3, 0x28, 0x7d])), FAIL);
  assert.equal(dbz.reason, 'not valid UTF-8');
});
