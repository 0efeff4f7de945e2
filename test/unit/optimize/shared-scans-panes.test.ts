// Shared source scans (one scan per source, consumers rewired) and pane sizes of window
// aggregates (gcd(slide, size) for HOP, step for CUMULATE, size for TUMBLE, none for SESSION).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shareScans } from '../../../src/plan/optimize/shared-scans.ts';
import { gcd, paneSize, setPaneSizes } from '../../../src/plan/optimize/pane-sizes.ts';
import type { IrWindow } from '../../../src/plan/ir.ts';
import * as F from '../../fixtures/plans/index.ts';
import { DAY, E, HOUR, MIN, PlanBuilder, SEC, T, agg, column } from '../../fixtures/plans/builder.ts';
import { outputSchemas, planProblems } from '../../fixtures/plans/validate.ts';

function twoViews(shared: boolean) {
  const b = new PlanBuilder('two_views');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('k', T.string()), column('v', T.bigint())], options: { topic: 'ev' }, line: 1 });
  const s1 = b.scan('ev', 's1');
  const big = b.filter(s1, (c) => E.cmp('gt', c('v'), E.bigint(10)), 'big', 2);
  b.view('big', big);
  const s2 = shared ? s1 : b.scan('ev', 's2');
  const small = b.filter(s2, (c) => E.cmp('le', c('v'), E.bigint(10)), 'small', 3);
  b.view('small', small);
  b.sink({ name: 'raw', connector: 'stdout', input: s2, line: 4 });
  return b.build();
}

test('two views reading one source share the first scan', () => {
  assert.deepEqual(shareScans(twoViews(false)), twoViews(true));
});

test('scans of different sources are kept apart', () => {
  const plan = F.cdcTemporalJoin();
  assert.deepEqual(shareScans(plan), plan);
});

test('shared scans: no sink or view schema changes; plans stay valid', () => {
  for (const [name, make] of [...Object.entries(F.ALL_FIXTURES), ['two', () => twoViews(false)] as const]) {
    const before = make();
    const after = shareScans(before);
    assert.deepEqual(outputSchemas(after), outputSchemas(before), name);
    assert.deepEqual(planProblems(after), [], name);
  }
});

test('pane sizes by window kind', () => {
  const cases: [IrWindow, number | null][] = [
    [{ kind: 'tumble', sizeMs: MIN, offsetMs: 0 }, MIN],
    [{ kind: 'hop', slideMs: MIN, sizeMs: 5 * MIN }, MIN],
    [{ kind: 'hop', slideMs: 2 * MIN, sizeMs: 5 * MIN }, MIN],
    [{ kind: 'hop', slideMs: 40 * SEC, sizeMs: MIN }, 20 * SEC],
    [{ kind: 'hop', slideMs: 10 * MIN, sizeMs: HOUR }, 10 * MIN],
    [{ kind: 'cumulate', stepMs: HOUR, sizeMs: DAY }, HOUR],
    [{ kind: 'session', gapMs: 30 * MIN, partitionBy: [] }, null],
  ];
  for (const [w, pane] of cases) assert.equal(paneSize(w), pane, JSON.stringify(w));
  assert.equal(gcd(0, 7), 7);
  assert.equal(gcd(12, 18), 6);
});

test('the pass sets paneMs on every window aggregate and nothing else', () => {
  const before = F.iotHop();
  const after = setPaneSizes(before);
  const w = after.operators.find((o) => o.id === 'hop_temp')!;
  assert.ok(w.op === 'window_agg');
  assert.equal(w.paneMs, MIN);
  const restored = structuredClone(after);
  for (const o of restored.operators) if (o.op === 'window_agg') o.paneMs = null;
  assert.deepEqual(restored, before);
  const session = setPaneSizes(F.clickstreamSession()).operators.find((o) => o.op === 'window_agg')!;
  assert.ok(session.op === 'window_agg' && session.paneMs === null);
});

test('a CUMULATE window gets its step', () => {
  const b = new PlanBuilder('cum');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('k', T.string()), column('ts', T.timestamp())], watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: 1000 }, options: { topic: 'ev' } });
  const w = b.windowAgg(b.scan('ev'), { window: { kind: 'cumulate', stepMs: HOUR, sizeMs: DAY }, time: 'ts', keys: ['k'], aggregates: () => [agg.countStar('n')], late: { kind: 'drop' } });
  b.view('daily', w);
  const out = setPaneSizes(b.build());
  const op = out.operators.find((o) => o.id === w)!;
  assert.ok(op.op === 'window_agg' && op.paneMs === HOUR);
  assert.deepEqual(outputSchemas(out), outputSchemas(b.build()));
});
