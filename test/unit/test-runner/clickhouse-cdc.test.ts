// CDC rows on the ClickHouse case without chdb: the Debezium messages written for test changes
// (what the DDL's extraction reads: decimals as strings, TIMESTAMP(6) as epoch µs, LSN as version)
// and when a temporal join there gives the runtime's rows (changes in commit order around the
// rows they are valid for, and the end of input). chdb runs them in
// test/integration/clickhouse/pipec-test-target.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFile } from '../../../src/build/compile.ts';
import { debeziumMessages, temporalJoinOutOfOrder } from '../../../src/test-runner/clickhouse-cdc.ts';
import type { ScriptStep } from '../../../targets/runtime/lib/testing/scripted.ts';
import { repoRoot } from '../../cli/run-cli.ts';

const T = (s: string): number => Date.parse(s.replace(' ', 'T') + 'Z');

async function plan() {
  const c = await compileFile('specs/customer_orders_cdc.pipe.sql', { cwd: repoRoot, env: { get: (k) => `x-${k}` } });
  return c.plan!;
}

const ada = (tier: string, updated: string) => ({ id: 1, name: 'Ada', email: null, country: 'DE', tier, updated_at: updated });

test('test changes become Debezium events: an update is one u event, LSNs in order, types as the DDL reads them', async () => {
  const p = await plan();
  const src = p.sources.find((s) => s.name === 'customers')!;
  let lsn = 0;
  const msgs = debeziumMessages(
    src,
    [
      { op: '+I', values: ada('silver', '2026-01-01 00:00:00'), meta: { commit_ts: T('2026-01-01 00:00:00') } },
      { op: '-U', values: ada('silver', '2026-01-01 00:00:00'), meta: { commit_ts: T('2026-01-01 00:01:00') } },
      { op: '+U', values: ada('gold', '2026-01-01 00:01:00.5'), meta: { commit_ts: T('2026-01-01 00:01:00') } },
      { op: '-D', values: ada('gold', '2026-01-01 00:01:00.5'), meta: { commit_ts: T('2026-01-01 00:02:00') } },
    ],
    () => ++lsn,
  ).map((m) => JSON.parse(m.message) as { op: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null; source: { lsn: number } });
  assert.deepEqual(msgs.map((m) => [m.op, m.source.lsn]), [['c', 1], ['u', 2], ['d', 3]]);
  assert.equal(msgs[1]!.before!['tier'], 'silver');
  assert.equal(msgs[1]!.after!['tier'], 'gold');
  // updated_at is TIMESTAMP(6): epoch microseconds (time.precision.mode=adaptive).
  assert.equal(msgs[1]!.after!['updated_at'], T('2026-01-01 00:01:00.5') * 1000);
  assert.equal(msgs[2]!.after, null);
  assert.equal(msgs[2]!.before!['id'], 1);
});

test('a temporal join is played on ClickHouse only with changes in commit order around the orders and an end of input', async () => {
  const p = await plan();
  const change = (op: '+I' | '+U', at: string): ScriptStep => ({ kind: 'rows', source: 'customers', partition: 0, rows: [{ op, values: ada('x', at), meta: { commit_ts: T(at) } }] });
  const order = (at: string): ScriptStep => ({ kind: 'rows', source: 'order_events', partition: 0, rows: [{ values: { order_id: 'o', customer_id: 1, amount: 1, currency: 'EUR', order_ts: at } }] });
  const end: ScriptStep = { kind: 'end' };
  assert.equal(temporalJoinOutOfOrder(p, [change('+I', '2026-01-01 00:00:00'), order('2026-01-01 00:00:30'), change('+U', '2026-01-01 00:01:00'), order('2026-01-01 00:01:30'), end]), null);
  // The update (00:01) inserted before an order of 00:00:30: ClickHouse would join the newer version.
  assert.deepEqual(temporalJoinOutOfOrder(p, [change('+I', '2026-01-01 00:00:00'), change('+U', '2026-01-01 00:01:00'), order('2026-01-01 00:00:30'), end])?.step, 2);
  // A change valid at the order's time arriving after it: the MV never revisits the order.
  assert.match(temporalJoinOutOfOrder(p, [order('2026-01-01 00:00:30'), change('+I', '2026-01-01 00:00:00'), end])!.why, /clickhouse-mv-join-left-only/);
  // No end of input: the runtime still holds the orders its watermark has not passed.
  assert.equal(temporalJoinOutOfOrder(p, [change('+I', '2026-01-01 00:00:00'), order('2026-01-01 00:00:30')])?.step, null);
});
