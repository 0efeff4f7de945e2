// A whole runtime pipeline over Kafka (plan → generated module → runner, with the Kafka
// connectors registered): metadata columns reach the rows, offsets are committed only after
// the checkpoint, and an exactly-once Kafka sink publishes each row once for read_committed.
import { test, after } from 'node:test';
import type { IrKafkaSink } from '../../../src/plan/ir.ts';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { existsSync } from 'node:fs';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { readNdjson, runPlan, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { createTopic, kafkaEnv, newSource, pollUntil, produce, unique } from './helpers.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

function plan(topic: string, group: string, sink: { connector: 'file'; options: Record<string, string> } | { connector: 'kafka'; options: Record<string, string>; kafka: IrKafkaSink }) {
  const b = new PlanBuilder('kafka_pipe');
  b.source({
    name: 'orders',
    connector: 'kafka',
    format: 'json',
    columns: [
      column('id', T.string(false)),
      column('amount', T.decimal(10, 2)),
      column('k_offset', T.bigint(), { metadataFrom: 'offset' }),
      column('k_partition', T.int(), { metadataFrom: 'partition' }),
      column('k_key', T.string(), { metadataFrom: 'key' }),
    ],
    options: { topic, startup: 'earliest', group_id: group },
  });
  const scan = b.scan('orders', 'scan');
  if (sink.connector === 'kafka') b.sink({ name: 'out', connector: 'kafka', input: scan, options: sink.options, kafka: sink.kafka });
  else b.sink({ name: 'out', connector: 'file', input: scan, options: sink.options, file: { path: 'out.ndjson', format: 'ndjson' } });
  return b.build();
}

async function runUntil(p: ReturnType<typeof plan>, dir: string, env: Record<string, string>, done: () => boolean | Promise<boolean>): Promise<Awaited<ReturnType<typeof runPlan>>> {
  const ac = new AbortController();
  const run = runPlan(p, { dir, checkpointDir: path.join(dir, 'ck'), env, signal: ac.signal });
  const t0 = Date.now();
  while (!(await done()) && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 200));
  ac.abort();
  return run;
}

test('kafka → file: rows carry offset, partition and key metadata; group offsets are committed at the checkpoint', async () => {
  const { brokers, admin } = await kafkaEnv();
  const topic = await createTopic(2, 'pipe');
  const group = unique('g');
  await produce(topic, 0, [JSON.stringify({ id: 'a', amount: 1.5 }), JSON.stringify({ id: 'b', amount: '2' })], 'k0');
  await produce(topic, 1, [JSON.stringify({ id: 'c', amount: 3 }), 'garbage'], 'k1');
  const dir = tempDir();
  const out = path.join(dir, 'out.ndjson');
  const r = await runUntil(plan(topic, group, { connector: 'file', options: { path: 'out.ndjson', format: 'ndjson' } }), dir, { PIPEC_KAFKA_BROKERS: brokers }, () => existsSync(out) && readNdjson(out).length >= 3);
  assert.equal(r.exitCode, 0, r.stderr);
  const rows = r.out.sort((x, y) => String(x.id).localeCompare(String(y.id)));
  assert.deepEqual(rows, [
    { id: 'a', amount: '1.50', k_offset: 0, k_partition: 0, k_key: 'k0' },
    { id: 'b', amount: '2.00', k_offset: 1, k_partition: 0, k_key: 'k0' },
    { id: 'c', amount: '3.00', k_offset: 0, k_partition: 1, k_key: 'k1' },
  ]);
  const dead = readNdjson(path.join(dir, 'kafka_pipe.dead-letters.ndjson'));
  assert.deepEqual(
    dead.map((d) => [d.source, d.topic, d.partition, d.offset, d.record]),
    [['orders', topic, '1', 1, 'garbage']],
  );
  const offs = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  assert.deepEqual(offs[0]!.partitions.map((p) => [p.partition, p.offset]).sort(), [
    [0, '2'],
    [1, '2'],
  ]);
});

test('kafka → kafka exactly-once: the output is seen once by a read_committed consumer and the input offsets moved with it', async () => {
  const { brokers, admin } = await kafkaEnv();
  const input = await createTopic(2, 'pipe-in');
  const output = await createTopic(1, 'pipe-out');
  const group = unique('g');
  await produce(input, 0, ['x1', 'x2'].map((id) => JSON.stringify({ id, amount: 1 })));
  await produce(input, 1, ['x3'].map((id) => JSON.stringify({ id, amount: 2 })));
  const dir = tempDir();
  const p = plan(input, group, {
    connector: 'kafka',
    options: { topic: output, format: 'json', key: 'id', delivery: 'exactly-once', transactional_id: unique('tx') },
    // The section the checker builds from those options (IrSink is a union on connector).
    kafka: { topic: output, format: 'json', key: ['id'], acks: 'all', idempotent: true, delivery: 'exactly-once' },
  });
  const groupOffsets = async (): Promise<[number, string][]> =>
    ((await admin.fetchOffsets({ groupId: group, topics: [input] }))[0]?.partitions ?? []).map((q) => [q.partition, q.offset] as [number, string]).sort();
  // Stop once a checkpoint moved the group past every input record.
  const r = await runUntil(p, dir, { PIPEC_KAFKA_BROKERS: brokers }, async () => JSON.stringify(await groupOffsets()) === JSON.stringify([[0, '2'], [1, '1']]));
  assert.equal(r.exitCode, 0, r.stderr);
  const reader = await newSource('reader', output, { startup: 'earliest', group_id: unique('reader') });
  try {
    await pollUntil([reader.src], () => reader.rec.rows.length >= 3, 30_000, 1500);
    assert.deepEqual(reader.rec.rows.map((x) => x.row[0]).sort(), ['x1', 'x2', 'x3']);
    assert.deepEqual(reader.rec.rows.map((x) => x.row[4]).sort(), ['x1', 'x2', 'x3'], 'the key is the id column');
  } finally {
    await reader.src.close();
  }
  assert.deepEqual(await groupOffsets(), [
    [0, '2'],
    [1, '1'],
  ]);
});

test('kafka → file resumed from its checkpoint: the second run reads only the new records, the file holds each row once', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(2, 'pipe-resume');
  // The plan says startup = earliest: had the second run ignored its checkpoint it would
  // re-read a and b and the file would hold them twice.
  const group = unique('g');
  await produce(topic, 0, [JSON.stringify({ id: 'a', amount: 1 })]);
  await produce(topic, 1, [JSON.stringify({ id: 'b', amount: 2 })]);
  const dir = tempDir();
  const out = path.join(dir, 'out.ndjson');
  const p = plan(topic, group, { connector: 'file', options: { path: 'out.ndjson', format: 'ndjson' } });
  const first = await runUntil(p, dir, { PIPEC_KAFKA_BROKERS: brokers }, () => existsSync(out) && readNdjson(out).length >= 2);
  assert.equal(first.exitCode, 0, first.stderr);
  await produce(topic, 0, [JSON.stringify({ id: 'c', amount: 3 })]);
  await produce(topic, 1, [JSON.stringify({ id: 'd', amount: 4 })]);
  const second = await runUntil(p, dir, { PIPEC_KAFKA_BROKERS: brokers }, () => readNdjson(out).length >= 4);
  assert.equal(second.exitCode, 0, second.stderr);
  assert.deepEqual(
    second.out.map((r) => [r.id, r.k_partition, r.k_offset]).sort(),
    [
      ['a', 0, 0],
      ['b', 1, 0],
      ['c', 0, 1],
      ['d', 1, 1],
    ],
  );
});
