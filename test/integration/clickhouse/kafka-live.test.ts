// The production (Kafka engine) DDL of specs/orders_revenue.pipe.sql applied, again and again, to a ClickHouse that
// really consumes (a long-lived chdb session) against a real topic that already holds every record. The Kafka engine
// starts consuming as soon as one materialized view reads its table, so a view created after that would miss the
// rows already consumed (issue #13.3: 1 empty state table in 4 applications). Each application here uses a fresh
// ClickHouse and a fresh consumer group; every table a view fills must end up with every record it is owed,
// checked against a reference computed here from the produced records, never from ClickHouse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { clickhouseDdlTable } from '../../../src/plan/clickhouse-ddl-table.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { ChdbLiveSession } from '../../support/chdb-live.ts';
import { prng } from '../../support/prng.ts';
import { repoRoot } from '../../support/venv.ts';
import { opt } from '../../fixtures/clickhouse/plan-builder.ts';
import { createTopic, kafkaEnv, unique } from '../kafka/helpers.ts';

const SEED = 1313;
const APPLICATIONS = 20;
const PARTITIONS = 2;
/** chdb validates a Kafka table, creates it, then reports this from the consumer pool set-up (the table works). */
const CHDB_KAFKA_CREATE = /Shutdown was called/;

interface Order {
  partition: number;
  key: string;
  value: string;
  /** null: the record must land in the dead-letter table. */
  good: { customer: number; amountCents: number; tsMs: number } | null;
}

/** Seeded orders: mostly valid, some with amount <= 0 (filtered by the view), some undecodable or with a bad time. */
function makeOrders(seed: number, n: number): Order[] {
  const rnd = prng(seed);
  const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
  const out: Order[] = [];
  for (let i = 0; i < n; i++) {
    const customer = 1 + Math.floor(rnd() * 7);
    const partition = customer % PARTITIONS;
    const r = rnd();
    if (r < 0.04) {
      out.push({ partition, key: String(customer), value: `{"order_id": "o${i}", "customer_id": ${customer}, broken`, good: null });
      continue;
    }
    const tsMs = t0 + Math.floor(rnd() * 10 * 60_000);
    const amountCents = r < 0.1 ? -Math.floor(rnd() * 500) : 1 + Math.floor(rnd() * 100_000);
    const ts = r < 0.13 ? 'not a time' : rnd() < 0.5 ? String(tsMs) : new Date(tsMs).toISOString();
    const value = JSON.stringify({ order_id: `o${i}`, customer_id: customer, amount: (amountCents / 100).toFixed(2), order_ts: ts });
    out.push({ partition, key: String(customer), value, good: ts === 'not a time' ? null : { customer, amountCents, tsMs } });
  }
  return out;
}

interface Expected {
  deadOffsets: string[];
  maxEventTime: Map<number, number>;
  windows: Map<string, { revenueCents: number; orders: number }>;
}

/** What each table must hold, from the records alone (offsets are the produce order within a partition). */
function expectations(orders: Order[]): Expected {
  const next = new Map<number, number>();
  const e: Expected = { deadOffsets: [], maxEventTime: new Map(), windows: new Map() };
  for (const o of orders) {
    const offset = next.get(o.partition) ?? 0;
    next.set(o.partition, offset + 1);
    if (!o.good) {
      e.deadOffsets.push(`${o.partition}:${offset}`);
      continue;
    }
    e.maxEventTime.set(o.partition, Math.max(e.maxEventTime.get(o.partition) ?? 0, o.good.tsMs));
    if (o.good.amountCents <= 0) continue;
    const ws = o.good.tsMs - (o.good.tsMs % 60_000);
    const k = `${o.good.customer}|${ws}`;
    const w = e.windows.get(k) ?? { revenueCents: 0, orders: 0 };
    w.revenueCents += o.good.amountCents;
    w.orders += 1;
    e.windows.set(k, w);
  }
  e.deadOffsets.sort();
  return e;
}

const cents = (v: unknown): number => Math.round(Number(v) * 100);
const epochMs = (v: unknown): number => Date.parse(`${String(v).replace(' ', 'T')}Z`);

/** The spec's DDL, reading `topic` with consumer group `group`; brokers come from the named collection. */
async function ddl(topic: string, group: string): Promise<{ statements: { role: string; sql: string }[]; sinkTables: string[] }> {
  const env = { get: (n: string): string | undefined => `<${n}>` };
  const r = await compileFile('orders_revenue.pipe.sql', { cwd: path.join(repoRoot, 'specs'), env });
  assert.ok(r.plan, 'specs/orders_revenue.pipe.sql did not compile');
  const plan: PlanDoc = structuredClone(r.plan);
  const src = plan.sources.find((s) => s.name === 'orders')!;
  src.options = { ...src.options, topic: opt(topic), group_id: opt(group) };
  const out = emitClickHouse(plan);
  const sinkTables = plan.sinks.filter((s) => s.connector === 'clickhouse').map((s) => clickhouseDdlTable(plan.pipeline.name, s)).map((t) => `\`${t.db}\`.\`${t.table}\``);
  return { statements: out.statements, sinkTables };
}

/** Applies the statements in the emitted order; a Kafka table's creation must fail only with chdb's known message. */
async function apply(s: ChdbLiveSession, statements: { role: string; sql: string }[]): Promise<void> {
  for (const st of statements) {
    const r = await s.exec(st.sql);
    if (r.ok) continue;
    assert.ok(st.role === 'source' && CHDB_KAFKA_CREATE.test(r.message), `statement failed: ${r.message}\n${st.sql.slice(0, 300)}`);
    const name = /^CREATE TABLE IF NOT EXISTS `([^`]+)`\.`([^`]+)`/.exec(st.sql)!;
    const rows = await s.query(`SELECT engine FROM system.tables WHERE database = '${name[1]}' AND name = '${name[2]}'`);
    assert.deepEqual(rows, [{ engine: 'Kafka' }], `${name[1]}.${name[2]} was not created`);
  }
}

/** What the tables filled by views hold now. */
async function snapshot(s: ChdbLiveSession, sinkTable: string) {
  const windows = async (table: string) =>
    (await s.query(`SELECT customer_id, toString(window_start) AS ws, toString(sumMerge(revenue)) AS revenue, countMerge(orders) AS orders FROM ${table} GROUP BY customer_id, window_start`)).map(
      (r) => [`${String(r['customer_id'])}|${epochMs(r['ws'])}`, { revenueCents: cents(r['revenue']), orders: Number(r['orders']) }] as const,
    );
  return {
    dead: (await s.query('SELECT concat(toString(partition), \':\', toString(offset)) AS o FROM `orders_revenue`.`orders__dead_letters` ORDER BY o')).map((r) => String(r['o'])),
    watermark: new Map((await s.query('SELECT partition, toString(max(max_event_time)) AS m FROM `orders_revenue`.`orders__watermark` GROUP BY partition')).map((r) => [Number(r['partition']), epochMs(r['m'])])),
    state: new Map(await windows('`orders_revenue`.`revenue_1m__state`')),
    sink: new Map(await windows(sinkTable)),
  };
}

const sortedEntries = <V>(m: Map<string | number, V>) => [...m.entries()].sort(([a], [b]) => String(a).localeCompare(String(b)));

/** Polls until every table holds what it is owed or `timeoutMs` passes; returns the last snapshot. */
async function settle(s: ChdbLiveSession, sinkTable: string, want: Expected, timeoutMs: number) {
  const t0 = Date.now();
  for (;;) {
    const got = await snapshot(s, sinkTable);
    const done =
      got.dead.length === want.deadOffsets.length &&
      sortedEntries(got.watermark).join() === sortedEntries(want.maxEventTime).join() &&
      [...got.state.values()].reduce((a, w) => a + w.orders, 0) >= [...want.windows.values()].reduce((a, w) => a + w.orders, 0) &&
      [...got.sink.values()].reduce((a, w) => a + w.orders, 0) >= [...want.windows.values()].reduce((a, w) => a + w.orders, 0);
    if (done || Date.now() - t0 > timeoutMs) return got;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const ORDERS = makeOrders(SEED, 600);
const WANT = expectations(ORDERS);

async function seededTopic(): Promise<string> {
  const { kafka } = await kafkaEnv();
  const topic = await createTopic(PARTITIONS, 'ch-live');
  const p = kafka.producer();
  await p.connect();
  await p.send({ topic, acks: -1, messages: ORDERS.map((o) => ({ partition: o.partition, key: o.key, value: o.value })) });
  await p.disconnect();
  return topic;
}

test(`the emitted DDL applied ${APPLICATIONS} times to a topic that already holds data: no view misses a record`, { timeout: 30 * 60_000 }, async () => {
  assert.ok(WANT.deadOffsets.length > 0 && WANT.windows.size > 10, 'the seed must exercise dead letters and many windows');
  const topic = await seededTopic();
  const { brokers } = await kafkaEnv();
  let empty = 0;
  for (let run = 0; run < APPLICATIONS; run++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pipec-ch-live-'));
    const s = await ChdbLiveSession.open(dir);
    try {
      const { statements, sinkTables } = await ddl(topic, unique('ch-live-group'));
      assert.equal(sinkTables.length, 1);
      await s.query(`CREATE NAMED COLLECTION pipec_kafka_brokers AS kafka_broker_list = '${brokers}'`);
      await apply(s, statements);
      const got = await settle(s, sinkTables[0]!, WANT, 90_000);
      if (!got.state.size || !got.sink.size || !got.dead.length || !got.watermark.size) empty++;
      const label = `application ${run + 1}/${APPLICATIONS}`;
      assert.deepEqual(got.dead, WANT.deadOffsets, `${label}: dead letters`);
      assert.deepEqual(sortedEntries(got.watermark), sortedEntries(WANT.maxEventTime), `${label}: watermark`);
      assert.deepEqual(sortedEntries(got.state), sortedEntries(WANT.windows), `${label}: revenue_1m__state`);
      assert.deepEqual(sortedEntries(got.sink), sortedEntries(WANT.windows), `${label}: sink table ${sinkTables[0]}`);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  assert.equal(empty, 0);
});

test('the check has teeth: a view created after consumption started stays empty', { timeout: 5 * 60_000 }, async () => {
  const topic = await seededTopic();
  const { brokers } = await kafkaEnv();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pipec-ch-live-'));
  const s = await ChdbLiveSession.open(dir);
  try {
    const { statements, sinkTables } = await ddl(topic, unique('ch-live-group'));
    // The order the issue saw: the state view comes after the Kafka table already feeds the other views.
    const late = statements.filter((st) => /MATERIALIZED VIEW IF NOT EXISTS `orders_revenue`\.`revenue_1m__state_mv`/.test(st.sql));
    assert.equal(late.length, 1);
    await s.query(`CREATE NAMED COLLECTION pipec_kafka_brokers AS kafka_broker_list = '${brokers}'`);
    await apply(s, statements.filter((st) => !late.includes(st)));
    const before = await settle(s, sinkTables[0]!, { ...WANT, windows: new Map() }, 90_000);
    assert.deepEqual(before.dead, WANT.deadOffsets, 'the other views got every record');
    await apply(s, late);
    await new Promise((r) => setTimeout(r, 3000));
    const after = await snapshot(s, sinkTables[0]!);
    assert.equal(after.state.size, 0, 'a view attached after the records were consumed sees none of them');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
