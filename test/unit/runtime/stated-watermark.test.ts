// A source may state a partition's watermark or idleness itself (pipec test's scripted source
// does): the partition then counts as if it had seen event time `wm + delay`, never moving the
// watermark backwards; an idle partition stops holding it back until its next record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SourceClock } from '../../../targets/runtime/lib/watermarks.ts';

test('advanceTo gives exactly the stated watermark, per partition, and never goes back', () => {
  const c = new SourceClock(5000, null);
  const a = c.partition('a', 0);
  const b = c.partition('b', 0);
  c.observe(a, 100_000, 0);
  assert.equal(c.wm, Number.NEGATIVE_INFINITY, 'b holds it back');
  assert.equal(c.advanceTo(b, 60_000, 0), true);
  assert.equal(c.wm, 60_000, 'min(a: 95 s, b: stated 60 s)');
  assert.equal(c.advanceTo(b, 10_000, 0), false, 'a lower stated watermark changes nothing');
  assert.equal(c.wm, 60_000);
  c.advanceTo(b, 200_000, 0);
  assert.equal(c.wm, 95_000, 'now a is the slower one');
});

test('setIdle releases a quiet partition at once; its next record makes it count again', () => {
  const c = new SourceClock(0, null);
  const a = c.partition('a', 0);
  const b = c.partition('b', 0);
  c.observe(a, 50_000, 0);
  assert.equal(c.setIdle(b, 0), true);
  assert.equal(c.wm, 50_000);
  assert.equal(c.setIdle(b, 0), false, 'already idle');
  c.observe(b, 70_000, 0);
  c.observe(a, 90_000, 0);
  assert.equal(c.wm, 70_000, 'b counts again');
});
