// The binary formats' value conversions, without services: two's-complement decimals of
// every length (the number fast path and the exact text path), 64-bit halves, floor division
// of micro/nanosecond timestamps, and the test encoder's decimal bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectDecimal, decimalValue, floorDiv, int64FromBits } from '../../../targets/runtime/lib/formats/values.ts';
import { readDecimal } from '../../../targets/runtime/lib/values.ts';
import { decimalBytes } from '../../support/confluent-wire.ts';

test('decimals: bytes → exact value, through the DECIMAL reader, at every length', () => {
  // By hand: 0x04d2 = 1234; 0xfb = -5; 0x7fffffffffffffff = 2^63 - 1; 0x80 = -128.
  assert.equal(connectDecimal(Buffer.from([0x04, 0xd2]), 2), '12.34');
  assert.equal(decimalValue(Buffer.from([0x04, 0xd2]), 2), 12.34);
  assert.equal(decimalValue(Buffer.from([0xfb]), 2), -0.05);
  assert.equal(decimalValue(Buffer.from([0x80]), 0), -128);
  assert.equal(decimalValue(Buffer.from([]), 3), 0);
  assert.equal(decimalValue(Buffer.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 4), '922337203685477.5807');
  assert.equal(decimalValue(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]), 1), '-0.2');
  // Largest 6-byte values take the number path and still read back exactly.
  for (const unscaled of [140737488355327n, -140737488355328n, 99999999999999n, 123456789012345n]) {
    const b = decimalBytes(unscaled);
    assert.ok(b.length <= 6);
    for (const scale of [0, 2, 6, 15]) {
      assert.equal(readDecimal(decimalValue(b, scale), 38, scale), Number(unscaled), `${unscaled} scale ${scale}`);
    }
  }
  assert.deepEqual([...decimalBytes(1234)], [0x04, 0xd2]);
  assert.deepEqual([...decimalBytes(-5)], [0xfb]);
  assert.deepEqual([...decimalBytes(128)], [0x00, 0x80]);
  assert.deepEqual([...decimalBytes(-129)], [0xff, 0x7f]);
});

test('64-bit integers from halves: numbers within 2^53, BigInt beyond; unsigned', () => {
  assert.equal(int64FromBits(1, 0x200000, false), 9007199254740993n); // 2^53 + 1
  assert.equal(int64FromBits(0xffffffff, 0x1fffff, false), 9007199254740991); // 2^53 - 1
  assert.equal(int64FromBits(0xffffffff, -1, false), -1);
  assert.equal(int64FromBits(0, -0x80000000, false), -9223372036854775808n);
  assert.equal(int64FromBits(0xffffffff, 0xffffffff, true), 18446744073709551615n);
});

test('floor division of timestamps: toward the past, BigInt inputs too', () => {
  assert.equal(floorDiv(1700000000123456, 1000), 1700000000123);
  assert.equal(floorDiv(-1, 1000), -1);
  assert.equal(floorDiv(1700000000123456789n, 1e6), 1700000000123);
  assert.equal(floorDiv(-1700000000123456789n, 1e6), -1700000000124);
});
