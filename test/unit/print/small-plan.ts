// The one small plan the printer tests spell out by hand: clicks per user in 1-minute tumbling
// windows, late clicks to a file.
import type { PlanDoc } from '../../../src/plan/ir.ts';
import { E, MIN, PlanBuilder, T, agg, column } from '../../fixtures/plans/builder.ts';

export function clicksPerUser(): PlanDoc {
  const b = new PlanBuilder('clicks_per_user', 10_000);
  b.source({
    name: 'clicks',
    connector: 'kafka',
    format: 'json',
    columns: [column('user', T.string(false)), column('ts', T.timestamp(3))],
    watermark: { column: 'ts', delayMs: 2000, idleTimeoutMs: 10_000 },
    messageKey: ['user'],
    options: { topic: 'clicks' },
  });
  const s = b.scan('clicks', 's');
  const f = b.filter(s, (c) => E.cmp('ne', c('user'), E.str("bot's")), 'f');
  const w = b.windowAgg(f, {
    id: 'w',
    window: { kind: 'tumble', sizeMs: MIN, offsetMs: 0 },
    time: 'ts',
    keys: ['user'],
    aggregates: () => [agg.countStar('n')],
    allowedLatenessMs: 5000,
    late: { kind: 'to', sink: 'late_clicks' },
  });
  b.view('per_user', w);
  b.sink({ name: 'out', connector: 'stdout', input: w });
  b.sink({ name: 'late_clicks', connector: 'file', input: null, lateFrom: [w], schema: b.lateSchema(w), file: { path: 'late.ndjson', format: 'ndjson' } });
  return b.build();
}
