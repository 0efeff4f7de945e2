// The runtime's source watermark as the target cases model it (runtime-watermarks.ts), on values
// worked out by hand: per partition the largest event time seen minus the delay, the minimum over
// the partitions that are not idle; a scripted watermark sets a partition to at + delay first; a
// row on an idle partition makes it active again; all idle is NaN (processing time, not modelled).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RuntimeWatermarks } from '../../../src/test-runner/runtime-watermarks.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import type { TestCase } from '../../../src/test-runner/test-file.ts';

const plan = { sources: [{ name: 's', watermark: { column: 'ts', delayMs: 5 } }, { name: 'plain', watermark: null }] } as unknown as PlanDoc;
const twoParts = { partitions: new Map([['s', 2], ['plain', 1]]) } as unknown as TestCase;

test('minimum over partitions, minus the delay; an unseen partition holds it at -inf', () => {
  const wm = new RuntimeWatermarks(plan, twoParts);
  wm.observe('s', 0, 100);
  assert.equal(wm.current('s'), Number.NEGATIVE_INFINITY);
  wm.observe('s', 1, 40);
  assert.equal(wm.current('s'), 35);
  wm.observe('s', 1, 30); // an older row moves nothing back
  assert.equal(wm.current('s'), 35);
  assert.equal(wm.current('plain'), Number.NEGATIVE_INFINITY);
});

test('a scripted watermark, idle partitions, and all idle', () => {
  const wm = new RuntimeWatermarks(plan, twoParts);
  wm.apply({ kind: 'watermark', source: 's', partition: null, at: 50 } as never);
  assert.equal(wm.current('s'), 50);
  wm.observe('s', 0, 200);
  wm.apply({ kind: 'idle', source: 's', partition: 1 } as never);
  assert.equal(wm.current('s'), 195, 'partition 1 left out while idle');
  wm.apply({ kind: 'idle', source: 's', partition: 0 } as never);
  assert.ok(Number.isNaN(wm.current('s')));
  wm.observe('s', 1, 60); // active again
  assert.equal(wm.current('s'), 55);
});
