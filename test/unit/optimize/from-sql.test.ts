// The optimizer on plans the real checker builds from .pipe.sql: folding, HAVING pushdown
// below the window, one scan per source, pruned decoders, HOP panes; outputs unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { optimizePlan } from '../../../src/plan/optimize/index.ts';
import { printPlanText } from '../../../src/plan/print/text.ts';
import { printPlanJson } from '../../../src/plan/print/json.ts';
import { outputSchemas, planProblems } from '../../fixtures/plans/validate.ts';
import { evaluatePlan, sampleData } from '../../fixtures/plans/evaluate.ts';
import { lintSql } from '../lint/sql-helpers.ts';

const SPEC = `CREATE SOURCE orders (
  order_id     STRING NOT NULL,
  customer_id  BIGINT,
  amount       DECIMAL(12, 2),
  note         STRING,
  order_ts     TIMESTAMP(3),
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'orders', format = 'json', key = 'customer_id', idle_timeout = '30 s');

CREATE VIEW revenue AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM HOP(orders, order_ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)
WHERE amount > 0 AND 1 = 1
GROUP BY customer_id, window_start, window_end
HAVING customer_id > 100
ON LATE DROP;

CREATE VIEW counts AS
SELECT customer_id, window_start, window_end, COUNT(*) AS n
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end
ON LATE DROP;

CREATE SINK out1 FROM revenue WITH (connector = 'stdout');
CREATE SINK out2 FROM counts WITH (connector = 'stdout');
`;

test('optimizing a checked plan', async () => {
  const { plan } = await lintSql(SPEC);
  const before = structuredClone(plan);
  const after = optimizePlan(plan);
  assert.deepEqual(plan, before, 'the checked plan is not modified');
  assert.deepEqual(planProblems(after), []);
  assert.deepEqual(outputSchemas(after), outputSchemas(before));

  // One scan of orders, decoding only what the views read (note and order_id are never read).
  const scans = after.operators.filter((o) => o.op === 'scan');
  assert.equal(scans.length, 1);
  assert.deepEqual(after.sources[0]!.usedColumns, ['customer_id', 'amount', 'order_ts']);

  // `1 = 1` is gone; HAVING on the group key runs before the window, merged into the WHERE.
  const filters = after.operators.filter((o) => o.op === 'filter');
  assert.equal(filters.length, 1);
  const order = after.operators.map((o) => o.op);
  const hop = after.operators.find((o) => o.op === 'window_agg' && o.window.kind === 'hop')!;
  assert.ok(hop.op === 'window_agg');
  const below = after.operators.find((o) => o.id === hop.inputs[0])!;
  assert.ok(below.op === 'filter', `the HOP window reads a filter (${order.join(', ')})`);
  assert.equal(hop.paneMs, 60_000);

  const text = printPlanText(after);
  assert.match(text, /HOP\(order_ts, slide 1 min, size 5 min\)/);
  assert.match(text, /: \(amount > 0\) AND \(customer_id > 100\) \[append; stateless\]/);
  assert.match(text, /\n  orders: order_ts - 5 s, idle timeout 30 s\n/);
  assert.equal(printPlanJson(after), printPlanJson(optimizePlan((await lintSql(SPEC)).plan)));
});

test('the optimized checked plan computes the same sink rows on sample data', async () => {
  const { plan } = await lintSql(SPEC);
  const after = optimizePlan(plan);
  for (const seed of [1, 2, 3]) {
    const data = sampleData(plan, seed, 80);
    const expected = evaluatePlan(plan, data);
    assert.ok(expected['out1']!.length > 0 && expected['out2']!.length > 0);
    assert.deepEqual(evaluatePlan(after, data), expected);
  }
});
