// Durations and sizes as written in options: units, spacing, decimal vs binary sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, parseSize, formatMs } from '../../../src/check/units.ts';

test('durations in the forms LANGUAGE.md lists', () => {
  assert.equal(parseDuration('30 s'), 30_000);
  assert.equal(parseDuration('30s'), 30_000);
  assert.equal(parseDuration('5 min'), 300_000);
  assert.equal(parseDuration('1 h'), 3_600_000);
  assert.equal(parseDuration('7 d'), 604_800_000);
  assert.equal(parseDuration('100ms'), 100);
  assert.equal(parseDuration('2 minutes'), 120_000);
  assert.equal(parseDuration('1.5 s'), 1500);
});

test('durations without a unit or with an unknown unit are rejected', () => {
  assert.equal(parseDuration('30'), null);
  assert.equal(parseDuration('5 parsecs'), null);
  assert.equal(parseDuration(''), null);
  assert.equal(parseDuration('-5 s'), null);
});

test('sizes: MB is 10^6 bytes, MiB is 2^20, a bare number is bytes', () => {
  assert.equal(parseSize('128 MB'), 128_000_000);
  assert.equal(parseSize('1 GiB'), 1_073_741_824);
  assert.equal(parseSize('32MB'), 32_000_000);
  assert.equal(parseSize('512 KiB'), 524_288);
  assert.equal(parseSize('4096'), 4096);
  assert.equal(parseSize('12 furlongs'), null);
});

test('formatMs reads well in messages', () => {
  assert.equal(formatMs(90_000), '1 min 30 s');
  assert.equal(formatMs(0), '0 ms');
});
