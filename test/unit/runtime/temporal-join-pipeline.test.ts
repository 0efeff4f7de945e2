// Temporal joins through the generated module and the runner: the version time of a CDC
// source without WATERMARK is its commit time (an extra decoded column, snapshot rows valid
// since ever), a CDC source with a WATERMARK versions by its event-time column, and a right
// side the runtime cannot version is reported. Expected rows are worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { runPipelineDef } from '../../../targets/runtime/lib/runner.ts';
import { META } from '../../../targets/runtime/lib/io/source-types.ts';
import { setRowKind, type Row, type RowKind } from '../../../targets/runtime/lib/ops/types.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';

const ts = (s: string): number => Date.parse(s + 'Z');

function plan(opts: { watermarkOnCustomers: boolean; joinType: 'inner' | 'left' }): PlanDoc {
  const b = new PlanBuilder('temporal');
  b.source({
    name: 'customers',
    connector: 'postgres-cdc',
    columns: [column('id', T.bigint(false)), column('tier', T.string()), column('updated_at', T.timestamp(3))],
    primaryKey: ['id'],
    options: { table: 'customers' },
    ...(opts.watermarkOnCustomers ? { watermark: { column: 'updated_at', delayMs: 0, idleTimeoutMs: null } } : {}),
  });
  b.source({
    name: 'orders',
    connector: 'file',
    format: 'ndjson',
    columns: [column('order_id', T.string(false)), column('customer_id', T.bigint(false)), column('order_ts', T.timestamp(3, false))],
    watermark: { column: 'order_ts', delayMs: 0, idleTimeoutMs: null },
    options: { path: 'orders.ndjson' },
  });
  const j = b.temporalJoin(b.scan('orders'), b.scan('customers'), {
    joinType: opts.joinType,
    leftKeys: ['customer_id'],
    rightKeys: ['id'],
    asOf: 'order_ts',
    output: [['order_id', 0, 'order_id'], ['order_ts', 0, 'order_ts'], ['tier', 1, 'tier']],
  });
  b.sink({ name: 'out', connector: 'stdout', input: j, options: { format: 'ndjson' } });
  return b.build();
}

async function run(p: PlanDoc, inputs: Record<string, { rows?: Row[]; lines?: string[] }>): Promise<{ order_id: string; tier: string | null }[]> {
  const gen = generateBody(p);
  assert.deepEqual(gen.unsupported, []);
  const def = instantiateBody(gen.body, {});
  let out = '';
  let err = '';
  const r = await runPipelineDef(def, { baseDir: '/tmp', env: {}, handleSignals: false, stdout: (t) => (out += t), stderr: (t) => (err += t), memorySources: inputs });
  assert.equal(r.exitCode, 0, err);
  assert.equal(err, '');
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .map((o) => ({ order_id: o.order_id, tier: o.tier }));
}

/** A raw CDC record as the postgres-cdc source hands it to the generated decoder. */
function cdc(kind: RowKind, values: Record<string, unknown>, commitTs: number | null): Record<string, unknown> {
  return Object.assign({ ...values }, { [META]: { kind, commit_ts: commitTs } });
}

const orders = [
  { order_id: 'o1', customer_id: 1, order_ts: '2024-01-01 10:00:00' },
  { order_id: 'o2', customer_id: 1, order_ts: '2024-01-01 11:00:00' },
  { order_id: 'o3', customer_id: 2, order_ts: '2024-01-01 11:30:00' },
  { order_id: 'o4', customer_id: 1, order_ts: '2024-01-01 12:30:00' },
  { order_id: 'o5', customer_id: 3, order_ts: '2024-01-01 12:30:00' },
].map((o) => JSON.stringify(o));

test('CDC without WATERMARK: versions by commit time; snapshot rows are valid since ever; deletes end a key', async () => {
  const p = plan({ watermarkOnCustomers: false, joinType: 'left' });
  // The generated decoder reads the commit time from the CDC metadata (fractional ms → whole ms).
  const gen = generateBody(p);
  const def = instantiateBody(gen.body, {});
  const customersDef = def.sources.find((s) => s.name === 'customers')!;
  const decode = (raw: Record<string, unknown>): Row => {
    const row = customersDef.decode!(raw, { column: '', reason: '' });
    assert.ok(row, 'decodes');
    return row;
  };
  // updated_at deliberately disagrees with the commit time: the commit time decides.
  const rows = [
    decode(cdc('+I', { id: 1, tier: 'silver', updated_at: '2020-01-01 00:00:00' }, null)), // snapshot
    decode(cdc('+I', { id: 2, tier: 'gold', updated_at: '2020-01-01 00:00:00' }, null)), // snapshot
    decode(cdc('-U', { id: 1, tier: null, updated_at: null }, ts('2024-01-01 10:30:00') + 0.25)),
    decode(cdc('+U', { id: 1, tier: 'gold', updated_at: '2020-01-01 00:00:00' }, ts('2024-01-01 10:30:00') + 0.25)),
    decode(cdc('-D', { id: 2, tier: null, updated_at: null }, ts('2024-01-01 11:15:00'))),
    decode(cdc('-U', { id: 1, tier: null, updated_at: null }, ts('2024-01-01 12:00:00'))),
    decode(cdc('+U', { id: 1, tier: 'platinum', updated_at: '2020-01-01 00:00:00' }, ts('2024-01-01 12:00:00'))),
  ];
  assert.equal(rows[2]!.at(-1), ts('2024-01-01 10:30:00'), 'commit time in whole milliseconds');
  assert.equal(rows[0]!.at(-1), Number.MIN_SAFE_INTEGER, 'snapshot rows: since ever');
  const got = await run(p, { src_customers: { rows }, src_orders: { lines: orders } });
  // o1 10:00 → silver (snapshot); o2 11:00 → gold (10:30); o3 11:30 → customer 2 deleted at
  // 11:15 → NULL; o4 12:30 → platinum (12:00); o5 → never existed → NULL.
  assert.deepEqual(got, [
    { order_id: 'o1', tier: 'silver' },
    { order_id: 'o2', tier: 'gold' },
    { order_id: 'o3', tier: null },
    { order_id: 'o4', tier: 'platinum' },
    { order_id: 'o5', tier: null },
  ]);
  const cust = customersDef;
  assert.equal(cust.timeIndex, cust.columns.length - 1, 'the commit time is the versioned source watermark column');
  assert.equal(cust.idleTimeoutMs, 5000, 'idle (caught up) after 5 s without changes by default');
});

test('CDC with a WATERMARK: versions by its event-time column (Flink versioned table), inner join', async () => {
  const p = plan({ watermarkOnCustomers: true, joinType: 'inner' });
  const row = (kind: RowKind, id: number, tier: string | null, at: string): Row => setRowKind([id, tier, ts(at)], kind);
  const rows = [
    row('+I', 1, 'silver', '2024-01-01 09:00:00'),
    row('+I', 2, 'gold', '2024-01-01 09:00:00'),
    row('+U', 1, 'gold', '2024-01-01 10:30:00'),
    row('-D', 2, 'gold', '2024-01-01 11:15:00'),
    row('+U', 1, 'platinum', '2024-01-01 12:00:00'),
  ];
  const got = await run(p, { src_customers: { rows }, src_orders: { lines: orders } });
  // As above, but an inner join drops o3 (deleted) and o5 (unknown).
  assert.deepEqual(got, [
    { order_id: 'o1', tier: 'silver' },
    { order_id: 'o2', tier: 'gold' },
    { order_id: 'o4', tier: 'platinum' },
  ]);
});

test('a right side without event time that is not the changelog source itself is reported, naming the fix', () => {
  const b = new PlanBuilder('temporal_view');
  b.source({ name: 'customers', connector: 'postgres-cdc', columns: [column('id', T.bigint(false)), column('tier', T.string())], primaryKey: ['id'], options: { table: 'customers' } });
  b.source({
    name: 'orders',
    connector: 'file',
    format: 'ndjson',
    columns: [column('customer_id', T.bigint(false)), column('order_ts', T.timestamp(3, false))],
    watermark: { column: 'order_ts', delayMs: 0, idleTimeoutMs: null },
    options: { path: 'orders.ndjson' },
  });
  const view = b.project(b.scan('customers'), (c) => [['id', c('id')], ['tier', c('tier')]]);
  const j = b.temporalJoin(b.scan('orders'), view, { joinType: 'inner', leftKeys: ['customer_id'], rightKeys: ['id'], asOf: 'order_ts', output: [['customer_id', 0, 'customer_id'], ['tier', 1, 'tier']] });
  b.sink({ name: 'out', connector: 'stdout', input: j });
  const gen = generateBody(b.build());
  assert.equal(gen.unsupported.length, 1);
  assert.match(gen.unsupported[0]!.what, /declare a WATERMARK on the changelog source/);
});
