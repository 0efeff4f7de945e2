// printPlanText: the tree per sink, state bounds in words and the watermark path, against
// expected text written by hand for one small plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printPlanText } from '../../../src/plan/print/text.ts';
import { exprText, stateBoundText } from '../../../src/plan/print/expr.ts';
import { formatCount, formatDuration } from '../../../src/plan/print/format.ts';
import { E, T } from '../../fixtures/plans/builder.ts';
import { ALL_FIXTURES } from '../../fixtures/plans/index.ts';
import { clicksPerUser } from './small-plan.ts';

test('the small plan, by hand', () => {
  const expected = `pipeline clicks_per_user (specs/clicks_per_user.pipe.sql), checkpoint every 10 s

sink out → stdout [append]
└─ window_agg w (view per_user): TUMBLE(ts, 1 min); keys (user); COUNT(*) AS n BIGINT; emit on window close; allowed lateness 5 s; late rows to late_clicks [append; bounded by window 1 min + lateness 5 s]
   └─ filter f: user <> 'bot''s' [append; stateless]
      └─ scan s: source clicks (kafka, json); columns user, ts [append; stateless]

sink late_clicks → file late.ndjson (ndjson) [append]
└─ late rows of window_agg w (shown above)

watermarks
  clicks: ts - 2 s, idle timeout 10 s
    s (ts) → f (ts) → w (closes windows)
`;
  assert.equal(printPlanText(clicksPerUser()), expected);
});

test('joins show both sides; changelog inputs show their key', () => {
  const text = printPlanText(ALL_FIXTURES['cdcTemporalJoin']!());
  assert.match(text, /\n└─ temporal_join join_customer \(view orders_enriched\): left join FOR SYSTEM_TIME AS OF left\.order_ts; on left\.customer_id = right\.id \[append; bounded by TTL 7 d\]\n/);
  assert.match(text, /\n   ├─ left: scan scan_orders: /);
  assert.match(text, /\n   └─ right: scan scan_customers: .*\[retract key \(id\); stateless\]\n/);
  assert.match(text, /  customers: updated_at - 0 s, no idle timeout\n/);
});

test('state bounds in words', () => {
  assert.equal(stateBoundText({ kind: 'stateless' }), 'stateless');
  assert.equal(stateBoundText({ kind: 'ttl', ttlMs: 86_400_000 }), 'bounded by TTL 1 d');
  assert.equal(stateBoundText({ kind: 'interval', retainMs: 600_000 }), 'bounded by join interval 10 min');
  assert.equal(stateBoundText({ kind: 'window', retainMs: 90_000 }), 'bounded by window 90 s');
  assert.equal(stateBoundText({ kind: 'unbounded', reason: 'join without time bound' }), 'unbounded: join without time bound');
});

test('durations and counts', () => {
  assert.equal(formatDuration(30_000), '30 s');
  assert.equal(formatDuration(90_000), '90 s');
  assert.equal(formatDuration(3_600_000), '1 h');
  assert.equal(formatDuration(7 * 86_400_000), '7 d');
  assert.equal(formatDuration(1500), '1500 ms');
  assert.equal(formatCount(23040), '23,040');
  assert.equal(formatCount(999), '999');
  assert.equal(formatCount(1234567), '1,234,567');
});

test('expressions: nested infix parenthesized, literals in SQL notation', () => {
  const a = E.col('a', T.int());
  const sum = E.call('add', [a, E.int(1)], T.int());
  assert.equal(exprText(E.call('mul', [sum, E.int(2)], T.int())), '(a + 1) * 2');
  assert.equal(exprText(E.lit(0, T.timestamp(3))), "TIMESTAMP '1970-01-01 00:00:00.000'");
  assert.equal(exprText(E.lit(19723, T.date())), "DATE '2024-01-01'");
  assert.equal(exprText(E.call('is_null', [E.col('Weird Name', T.string())], T.boolean(false))), '"Weird Name" IS NULL');
  assert.equal(exprText(E.call('in', [a, E.int(1), E.int(2)], T.boolean())), 'a IN (1, 2)');
  assert.equal(exprText({ kind: 'cast', operand: a, type: T.decimal(10, 2) }), 'CAST(a AS DECIMAL(10, 2))');
});

test('deterministic: equal plans print the same text', () => {
  for (const make of Object.values(ALL_FIXTURES)) assert.equal(printPlanText(make()), printPlanText(make()));
});

test('a view no sink reads gets its own tree after the sinks', () => {
  const plan = clicksPerUser();
  const f = plan.operators.find((o) => o.id === 'f')!;
  plan.views.push({ name: 'humans', operator: 'f', span: f.span });
  plan.sinks = [];
  const text = printPlanText(plan);
  assert.ok(
    text.includes(`
view per_user (read by no sink)
└─ window_agg w (view per_user): TUMBLE(ts, 1 min); keys (user); COUNT(*) AS n BIGINT; emit on window close; allowed lateness 5 s; late rows to late_clicks [append; bounded by window 1 min + lateness 5 s]
   └─ filter f (view humans): user <> 'bot''s' [append; stateless]
      └─ scan s: source clicks (kafka, json); columns user, ts [append; stateless]
`),
    text,
  );
  assert.ok(!text.includes('view humans (read by no sink)'), 'a view shown inside another tree is not repeated');
});

test('an interval join shows its keys and time bounds', () => {
  const plan = ALL_FIXTURES['cdcTemporalJoin']!();
  const j = plan.operators.find((o) => o.id === 'join_customer')!;
  if (j.op !== 'temporal_join') throw new Error('fixture');
  plan.operators = plan.operators.map((o) =>
    o.id === j.id
      ? {
          ...j,
          op: 'interval_join' as const,
          joinType: 'inner' as const,
          rightKeys: [E.col('id', T.bigint(false), 1)],
          leftTime: 'order_ts',
          rightTime: 'updated_at',
          lowerMs: -300_000,
          upperMs: 0,
          stateBound: { kind: 'interval' as const, retainMs: 300_000 },
          asOfColumn: undefined,
        }
      : o,
  ) as typeof plan.operators;
  assert.match(
    printPlanText(plan),
    /interval_join join_customer \(view orders_enriched\): inner join on left\.customer_id = right\.id; left\.order_ts - right\.updated_at in \[-5 min, 0 s\] \[append; bounded by join interval 5 min\]/,
  );
});

test('the watermark path branches where the stream fans out', () => {
  const plan = clicksPerUser();
  const s = plan.operators.find((o) => o.id === 's')!;
  // A second reader of the scan that drops the time column.
  plan.operators.push({
    op: 'project', id: 'users', inputs: ['s'], exprs: [{ name: 'user', expr: E.col('user', T.string(false)) }],
    schema: [{ name: 'user', type: T.string(false), metadataFrom: null }], changelog: 'append', upsertKey: null,
    stateBound: { kind: 'stateless' }, timeColumn: null, span: s.span,
  });
  plan.views.push({ name: 'users', operator: 'users', span: s.span });
  const text = printPlanText(plan);
  assert.ok(
    text.endsWith(`watermarks
  clicks: ts - 2 s, idle timeout 10 s
    s (ts)
    ├─ f (ts) → w (closes windows)
    └─ users (time column not carried on)
`),
    text,
  );
});
