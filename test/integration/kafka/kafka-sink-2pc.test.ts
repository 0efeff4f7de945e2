// The exactly-once Kafka sink's two-phase commit against the real broker, driven the way the
// runner drives it: commit() before the checkpoint (nothing leaves), afterCheckpoint() once
// it is durable (one transaction with the rows, the source offsets and the interval marker),
// and open(progress) after a crash at each point in between. Also the upsert-kafka encoding
// of changelog rows (kinds set by hand: the changelog model may not produce them yet).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import { rowKind, setRowKind, type Row } from '../../../targets/runtime/lib/ops/types.ts';
import { KafkaSink, type IntervalProgress, type KafkaSinkConfig } from '../../../targets/runtime/lib/kafka/kafka-sink.ts';
import { createTopic, kafkaEnv, readTopic, unique } from './helpers.ts';
import { sinkConfigOf } from '../../support/resolved-config.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

/** Rows are [id, amount]; the encoder stands in for the generated one. */
function sinkDef(topic: string, brokers: string, options: Record<string, string>, changelog?: { changelog: 'upsert' | 'retract'; upsertKey: string[] | null }): SinkDef {
  return {
    id: 'out',
    name: 'out',
    connector: 'kafka',
    options: { topic, brokers, ...options },
    config: sinkConfigOf('kafka', 'out', { topic, brokers, ...options }),
    columns: [
      { name: 'id', kind: 'string', nullable: false },
      { name: 'amount', kind: 'int', nullable: true },
    ],
    // A changelog sink's encoder puts the row kind first, as the generated one does.
    json: (r) => JSON.stringify(changelog ? { op: rowKind(r), id: r[0], amount: r[1] } : { id: r[0], amount: r[1] }),
    cells: (r) => r.map(String),
    ...changelog,
  };
}

async function eosSink(topic: string, tid: string, ckDir: string, extra: Partial<KafkaSinkConfig> = {}): Promise<KafkaSink> {
  const { brokers } = await kafkaEnv();
  return new KafkaSink(sinkDef(topic, brokers, { delivery: 'exactly-once', key: 'id', transactional_id: tid }), { env: {}, checkpointDir: ckDir, ...extra });
}

/** What the checkpoint file would give back: the progress through JSON. */
const viaCheckpoint = (p: unknown): IntervalProgress => JSON.parse(JSON.stringify(p)) as IntervalProgress;

/**
 * The marker group's committed offset. With `expect`, waits up to 10 s for it: the broker makes
 * a transaction's offset commit visible to OffsetFetch only once the commit markers are written,
 * a moment after the producer's commit returns.
 */
async function marker(tid: string, topic: string, expect?: string): Promise<string | undefined> {
  const { admin } = await kafkaEnv();
  const t0 = Date.now();
  for (;;) {
    const got = await admin.fetchOffsets({ groupId: `${tid}-commits`, topics: [topic] });
    const v = got[0]?.partitions.find((p) => p.partition === 0)?.offset;
    if (expect === undefined || v === expect || Date.now() - t0 > 10_000) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const values = (ms: { value: string | null }[]): string[] => ms.map((m) => m.value ?? 'TOMBSTONE').sort();
const row = (id: string, amount: number): string => JSON.stringify({ id, amount });

test('two-phase: nothing leaves before the checkpoint is durable; afterCheckpoint publishes the interval once and records its number', async () => {
  const topic = await createTopic(2, 'eos2pc');
  const tid = unique('tx');
  const ck = mkdtempSync(path.join(tmpdir(), 'pipec-ck-'));
  const sink = await eosSink(topic, tid, ck);
  try {
    sink.open(null);
    sink.write(['a', 1]);
    sink.write(['b', 2]);
    sink.write(['c', 3]);
    sink.flush();
    const p1 = (await sink.commit()) as IntervalProgress;
    assert.deepEqual({ ...p1, file: p1.file !== null }, { seq: 1, file: true, messages: 3, offsets: [] });
    assert.ok(existsSync(path.join(ck, p1.file!)), 'the interval is on disk before the checkpoint refers to it');
    // Between commit() and afterCheckpoint() not even an uncommitted record exists.
    assert.deepEqual(await readTopic(topic, 'read_uncommitted'), []);
    await sink.afterCheckpoint();
    assert.deepEqual(values(await readTopic(topic, 'read_committed', { expect: 3 })), [row('a', 1), row('b', 2), row('c', 3)]);
    assert.equal(await marker(tid, topic, '1'), '1');
    assert.deepEqual(readdirSync(path.dirname(path.join(ck, p1.file!))), [], 'a published interval file is deleted');
    // An interval with neither rows nor new offsets: the checkpoint keeps the last interval.
    assert.deepEqual(await sink.commit(), p1);
    await sink.afterCheckpoint();
    sink.write(['d', 4]);
    const p2 = (await sink.commit()) as IntervalProgress;
    assert.equal(p2.seq, 2);
    await sink.afterCheckpoint();
    assert.equal(await marker(tid, topic, '2'), '2');
    assert.deepEqual(values(await readTopic(topic, 'read_committed', { expect: 4 })), [row('a', 1), row('b', 2), row('c', 3), row('d', 4)]);
  } finally {
    await sink.close();
  }
});

test('restart after a crash inside the transaction: the open transaction is fenced and aborted, the recorded interval is published once with its source offsets', async () => {
  const { kafka, admin } = await kafkaEnv();
  const topic = await createTopic(2, 'eos2pc');
  const input = await createTopic(1, 'eos2pc-in');
  const group = unique('in-group');
  const tid = unique('tx');
  const ck = mkdtempSync(path.join(tmpdir(), 'pipec-ck-'));
  const offsets = { consumerGroupId: group, topics: [{ topic: input, partitions: [{ partition: 0, offset: '7' }] }] };
  const first = await eosSink(topic, tid, ck, { offsets: () => offsets });
  first.open(null);
  for (let i = 0; i < 5; i++) first.write([`r${i}`, i]);
  const progress = viaCheckpoint(await first.commit());
  await first.close(); // the checkpoint is durable; the process dies before afterCheckpoint()...
  // ...or while its transaction was under way: an incarnation with the same transactional id
  // sent part of the rows and the marker, and never committed.
  const zombie = kafka.producer({ transactionalId: tid, idempotent: true, maxInFlightRequests: 1 });
  await zombie.connect();
  const tx = await zombie.transaction();
  await tx.send({ topic, messages: [{ key: 'r0', value: row('r0', 0) }, { key: 'zombie', value: row('zombie', -1) }] });
  await tx.sendOffsets({ consumerGroupId: `${tid}-commits`, topics: [{ topic, partitions: [{ partition: 0, offset: '1' }] }] });
  await zombie.disconnect();

  const second = await eosSink(topic, tid, ck);
  try {
    second.open(progress);
    assert.deepEqual(await second.commit(), progress, 'nothing new: the checkpoint keeps pointing at the same interval');
    const expected = [0, 1, 2, 3, 4].map((i) => row(`r${i}`, i));
    assert.deepEqual(values(await readTopic(topic, 'read_committed', { expect: 5 })), expected);
    const raw = await readTopic(topic, 'read_uncommitted', { expect: 7 });
    assert.ok(raw.some((m) => m.key === 'zombie'), 'the aborted transaction did reach the log');
    assert.equal(await marker(tid, topic, '1'), '1');
    const got = await admin.fetchOffsets({ groupId: group, topics: [input] });
    assert.equal(got[0]!.partitions[0]!.offset, '7', 'the source offsets recorded with the interval were committed with it');
    assert.deepEqual(readdirSync(path.join(ck, path.dirname(progress.file!))), []);
    // Numbering continues after the recovered interval.
    second.write(['r5', 5]);
    assert.equal(((await second.commit()) as IntervalProgress).seq, 2);
    await second.afterCheckpoint();
    assert.equal(await marker(tid, topic, '2'), '2');
  } finally {
    await second.close();
  }
});

test('restart after the transaction committed: the recorded interval is not published again; files of intervals no checkpoint recorded are removed', async () => {
  const topic = await createTopic(1, 'eos2pc');
  const tid = unique('tx');
  const ck = mkdtempSync(path.join(tmpdir(), 'pipec-ck-'));
  const first = await eosSink(topic, tid, ck);
  first.open(null);
  first.write(['a', 1]);
  first.write(['b', 2]);
  const p1 = viaCheckpoint(await first.commit());
  await first.afterCheckpoint();
  // The next interval reached commit(), but the process died before its checkpoint was written.
  first.write(['c', 3]);
  const lost = viaCheckpoint(await first.commit());
  assert.ok(existsSync(path.join(ck, lost.file!)));
  await first.close();

  const second = await eosSink(topic, tid, ck);
  try {
    second.open(p1);
    // The resumed run recomputes what followed the checkpoint.
    second.write(['c', 3]);
    const p2 = viaCheckpoint(await second.commit());
    assert.equal(p2.seq, 2);
    await second.afterCheckpoint();
    assert.deepEqual(values(await readTopic(topic, 'read_committed', { expect: 3 })), [row('a', 1), row('b', 2), row('c', 3)]);
    assert.deepEqual(readdirSync(path.join(ck, path.dirname(p1.file!))), []);
  } finally {
    await second.close();
  }
});

test('a recorded interval whose marker group has no offset (expired) is published again, with a warning that says so', async () => {
  const topic = await createTopic(1, 'eos2pc');
  const tid = unique('tx');
  const ck = mkdtempSync(path.join(tmpdir(), 'pipec-ck-'));
  mkdirSync(path.join(ck, 'kafka-sink-out'));
  writeFileSync(path.join(ck, 'kafka-sink-out', 'interval-00000005.ndjson'), JSON.stringify(['x', row('x', 9)]) + '\n');
  const warnings: string[] = [];
  const sink = await eosSink(topic, tid, ck, { warn: (m) => warnings.push(m) });
  try {
    sink.open({ seq: 5, file: path.join('kafka-sink-out', 'interval-00000005.ndjson'), messages: 1, offsets: [] });
    await sink.commit();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`sink 'out': group '${tid}-commits' has no committed offset .*interval 5 .*may appear twice`));
    assert.deepEqual(values(await readTopic(topic, 'read_committed', { expect: 1 })), [row('x', 9)]);
    assert.equal(await marker(tid, topic, '5'), '5');
  } finally {
    await sink.close();
  }
});

test('without a marker, a recorded interval whose file is gone was published (files are deleted only after the commit): nothing is sent again', async () => {
  const topic = await createTopic(1, 'eos2pc');
  const tid = unique('tx');
  const ck = mkdtempSync(path.join(tmpdir(), 'pipec-ck-'));
  const warnings: string[] = [];
  const sink = await eosSink(topic, tid, ck, { warn: (m) => warnings.push(m) });
  try {
    sink.open({ seq: 3, file: path.join('kafka-sink-out', 'interval-00000003.ndjson'), messages: 2, offsets: [] });
    sink.write(['y', 1]);
    const p = (await sink.commit()) as IntervalProgress;
    assert.equal(p.seq, 4, 'numbering continues after the recorded interval');
    await sink.afterCheckpoint();
    assert.deepEqual(values(await readTopic(topic, 'read_committed', { expect: 1 })), [row('y', 1)]);
    assert.deepEqual(warnings, []);
  } finally {
    await sink.close();
  }
  // With a marker that says the interval was NOT published, a missing file is an error.
  const broken = await eosSink(topic, tid, ck);
  broken.open({ seq: 9, file: path.join('kafka-sink-out', 'interval-00000009.ndjson'), messages: 1, offsets: [] });
  await assert.rejects(broken.commit(), /sink 'out': the checkpoint refers to .*interval-00000009\.ndjson, which is missing: the checkpoint directory is incomplete/);
  await broken.close();
});

test('changelog input, upsert-kafka style: key = upsert key, +I/+U → the row, -D → a tombstone, -U → nothing', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(2, 'upsert');
  const kinds = (r: Row, k: '+I' | '-U' | '+U' | '-D'): Row => setRowKind(r, k);
  const sink = new KafkaSink(sinkDef(topic, brokers, {}, { changelog: 'upsert', upsertKey: ['id'] }), { env: {} });
  try {
    sink.open(null);
    sink.write(kinds(['a', 1], '+I'));
    sink.write(kinds(['b', 2], '+I'));
    sink.write(kinds(['a', 1], '-U'));
    sink.write(kinds(['a', 5], '+U'));
    sink.write(kinds(['b', 2], '-D'));
    await sink.commit();
    assert.equal(sink.rowsOut, 4, 'the -U row is not a message');
    const got = await readTopic(topic, 'read_committed', { expect: 4 });
    // Per key, in order (one key is one partition): what a compacting consumer would keep.
    const byKey = (k: string): (string | null)[] => got.filter((m) => m.key === k).map((m) => m.value);
    assert.deepEqual(byKey('a'), [row('a', 1), row('a', 5)]);
    assert.deepEqual(byKey('b'), [row('b', 2), null]);
  } finally {
    await sink.close();
  }
});

test('changelog input without a usable key is refused with a message naming the sink; a delete into a keyless sink fails clearly', async () => {
  const brokers = '127.0.0.1:1';
  // The changelog mode is set on the definition after construction, so open() finds the key
  // problem; the first row (or checkpoint) reports it, inside the runner's error handling.
  const noKey = new KafkaSink(sinkDef('t', brokers, {}, { changelog: 'retract', upsertKey: null }), { env: {} });
  noKey.open(null);
  assert.throws(() => noKey.write(['a', 1]), /sink 'out': its input is a changelog .* set 'key'/);
  await assert.rejects(noKey.commit(), /sink 'out': its input is a changelog .* set 'key'/);
  await noKey.close();
  const otherKey = new KafkaSink(sinkDef('t', brokers, { key: 'amount' }, { changelog: 'upsert', upsertKey: ['id'] }), { env: {} });
  otherKey.open(null);
  assert.throws(() => otherKey.write(['a', 1]), /sink 'out': 'key' \(amount\) must be the input's upsert key \(id\)/);
  await assert.rejects(otherKey.commit());
  await otherKey.close();
  assert.throws(() => new KafkaSink(sinkDef('t', brokers, { key: 'nope' }), { env: {} }), /sink 'out': key column 'nope' is not a column of the sink/);
  const keyless = new KafkaSink(sinkDef('t', brokers, {}), { env: {} });
  assert.throws(() => keyless.write(setRowKind(['a', 1], '-D')), /sink 'out': a delete arrived, but a tombstone needs a key and the sink has no 'key' columns/);
});
