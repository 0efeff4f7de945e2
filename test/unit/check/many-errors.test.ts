// A spec with five different mistakes reports all five in one run, each at the place it is
// written (line:column counted by hand), with no follow-on noise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check } from './helpers.ts';

const SPEC = `CREATE SOURCE orders (
  id BIGINT NOT NULL,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'orders', startup = 'newest');

CREATE VIEW per_minute AS
SELECT id, window_start, SUM(amout) AS total
FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
WHERE amount > 'zero'
GROUP BY id, window_start, window_end;

CREATE VIEW totals AS
SELECT id, COUNT(*) AS n FROM orders GROUP BY id;

CREATE SINK out FROM per_minut WITH (connector = 'stdout');
`;

test('five mistakes, five diagnostics, in source order', async () => {
  const c = await check(SPEC);
  assert.deepEqual(
    c.diags.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code}`),
    [
      '6:58 invalid-option-value', // startup = 'newest'
      '9:30 unknown-column', // amout
      '11:7 type-mismatch', // amount > 'zero'
      '15:1 unbounded-aggregation', // GROUP BY without window, EMIT CHANGES or state_ttl
      '17:22 unknown-relation', // per_minut
    ],
  );
  assert.ok(c.diags.every((d) => d.severity === 'error' && d.message.length > 0));
  assert.equal(c.diags[1]!.help, "did you mean 'amount'?");
  assert.equal(c.diags[4]!.help, "did you mean 'per_minute'?");
  // The plan still holds what was correct: the source.
  assert.deepEqual(c.plan!.sources.map((s) => s.name), ['orders']);
});
