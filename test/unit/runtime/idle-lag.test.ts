// The idleness decision (issue 12.8): a partition whose source reports lag is never idle, however
// long since its last record; a caught-up partition becomes idle only after idle_timeout of
// quiet counted from when it was known caught up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SourceClock } from '../../../targets/runtime/lib/watermarks.ts';

test('a partition with lag and no recent record is not idle; it keeps holding the watermark', () => {
  const c = new SourceClock(0, 1000);
  const slow = c.partition('t-0', 0);
  const fast = c.partition('t-1', 0);
  c.setBehind(slow, true, 0);
  c.observe(slow, 1_000, 0);
  c.observe(fast, 50_000, 0);
  assert.equal(c.wm, 1_000);
  // The consumer is busy elsewhere: no record of t-0 for 10 s, but its backlog is unread.
  c.tick(10_000);
  assert.equal(slow.idle, false);
  assert.equal(c.wm, 1_000, 'a partition with lag must hold the watermark back');
  // Even with every partition quiet, processing time does not take over while one lags.
  c.tick(100_000);
  assert.equal(c.wm, 1_000);
});

test('a caught-up partition quiet for idle_timeout is idle; the quiet time counts from when it caught up', () => {
  const c = new SourceClock(0, 1000);
  const a = c.partition('t-0', 0);
  const b = c.partition('t-1', 0);
  c.setBehind(a, true, 0);
  c.observe(a, 1_000, 0);
  c.observe(b, 50_000, 0);
  // Its last record was read at 0, but a fetch said "caught up" only at 5000.
  c.setBehind(a, false, 5_000);
  c.tick(5_500);
  assert.equal(a.idle, false, 'quiet for 500 ms since caught up: not idle yet');
  assert.equal(c.wm, 1_000);
  c.observe(b, 50_001, 5_900); // t-1 keeps flowing
  c.tick(6_000);
  assert.equal(a.idle, true);
  assert.equal(c.wm, 50_001, 'an idle partition no longer holds the watermark');
});

test('lag reported for an idle partition ends its idleness at once (the watermark stays put)', () => {
  const c = new SourceClock(0, 1000);
  const a = c.partition('t-0', 0);
  const b = c.partition('t-1', 0);
  c.observe(a, 1_000, 0);
  c.observe(b, 10_000, 0);
  c.tick(1_000);
  assert.equal(a.idle, true);
  c.observe(b, 20_000, 1_100);
  assert.equal(c.wm, 20_000);
  c.setBehind(a, true, 1_200);
  assert.equal(a.idle, false);
  c.observe(b, 30_000, 1_300);
  assert.equal(c.wm, 20_000, 'the lagging partition holds the watermark again (it never steps back)');
  c.tick(60_000);
  assert.equal(a.idle, false);
});

test('a source that reports no lag keeps the processing-time rule', () => {
  const c = new SourceClock(0, 1000);
  const a = c.partition('f-0', 0);
  const b = c.partition('f-1', 0);
  c.observe(a, 1_000, 0);
  c.observe(b, 9_000, 500);
  c.tick(1_000);
  assert.equal(a.idle, true);
  assert.equal(c.wm, 9_000);
});
