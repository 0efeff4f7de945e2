// The Kafka source against the real broker: per-partition positions and metadata, startup
// modes, commit only on request, rebalance hooks, and dead letters with coordinates.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTopic, kafkaEnv, newSource, pollUntil, produce, unique } from './helpers.ts';
import type { KafkaPartitionInfo } from '../../../targets/runtime/lib/kafka/kafka-source.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const json = (id: string): string => JSON.stringify({ id });

test('earliest: a 3-partition topic is read in offset order per partition, with positions and metadata', async () => {
  const topic = await createTopic(3);
  for (let p = 0; p < 3; p++) await produce(topic, p, [0, 1, 2, 3].map((i) => json(`p${p}-${i}`)), `key${p}`);
  const { src, rec } = await newSource('orders', topic, { startup: 'earliest', group_id: unique('g') });
  try {
    await pollUntil([src], () => rec.rows.length >= 12, 30_000, 500);
    assert.equal(rec.rows.length, 12);
    assert.deepEqual(rec.byPartition(), {
      [`${topic}-0`]: ['p0-0', 'p0-1', 'p0-2', 'p0-3'],
      [`${topic}-1`]: ['p1-0', 'p1-1', 'p1-2', 'p1-3'],
      [`${topic}-2`]: ['p2-0', 'p2-1', 'p2-2', 'p2-3'],
    });
    // Next offset to read per partition: 4 records each at offsets 0..3.
    assert.deepEqual(src.position(), { [`${topic}-0`]: 4, [`${topic}-1`]: 4, [`${topic}-2`]: 4 });
    const r = rec.rows.find((x) => x.row[0] === 'p2-3')!.row;
    assert.equal(r[1], 3, 'offset');
    assert.equal(r[2], 2, 'partition');
    assert.ok(Math.abs((r[3] as number) - Date.now()) < 120_000, 'timestamp is the produce time in epoch ms');
    assert.equal(r[4], 'key2');
    assert.equal(r[5], topic);
    assert.equal(src.lag().records, 0);
    assert.deepEqual(src.lastCoordinates(rec.rows.find((x) => x.row[0] === 'p1-3')!.p), { topic, partition: '1', offset: 3 });
  } finally {
    await src.close();
  }
});

test('offsets are committed only by commit(): a restarted member re-reads uncommitted records; committed resumes after the commit', async () => {
  const topic = await createTopic(2);
  const group = unique('g');
  await produce(topic, 0, ['a', 'b', 'c'].map(json));
  await produce(topic, 1, ['d', 'e'].map(json));

  const first = await newSource('s', topic, { startup: 'committed', group_id: group });
  await pollUntil([first.src], () => first.rec.rows.length >= 5);
  await first.src.close(); // no commit

  const second = await newSource('s', topic, { startup: 'committed', group_id: group });
  await pollUntil([second.src], () => second.rec.rows.length >= 5, 30_000, 300);
  assert.deepEqual(second.rec.rows.map((x) => x.row[0]).sort(), ['a', 'b', 'c', 'd', 'e'], 'nothing was committed, so everything comes again');
  const pos = second.src.position();
  await second.src.commit(pos);
  const { admin } = await kafkaEnv();
  const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  assert.deepEqual(
    committed[0]!.partitions.map((p) => [p.partition, p.offset]).sort(),
    [
      [0, '3'],
      [1, '2'],
    ],
  );
  await second.src.close();

  await produce(topic, 0, ['f'].map(json));
  await produce(topic, 1, ['g'].map(json));
  const third = await newSource('s', topic, { startup: 'committed', group_id: group });
  try {
    await pollUntil([third.src], () => third.rec.rows.length >= 2, 30_000, 500);
    assert.deepEqual(third.rec.rows.map((x) => x.row[0]).sort(), ['f', 'g']);
  } finally {
    await third.src.close();
  }
});

test('latest: only records produced after the member joined are read', async () => {
  const topic = await createTopic(1);
  await produce(topic, 0, ['old1', 'old2'].map(json));
  const assigned: KafkaPartitionInfo[] = [];
  const { src, rec } = await newSource('s', topic, { startup: 'latest', group_id: unique('g') }, { onAssigned: (p) => assigned.push(...p) });
  try {
    await pollUntil([src], () => assigned.length > 0);
    await produce(topic, 0, ['new1'].map(json));
    await pollUntil([src], () => rec.rows.length >= 1, 30_000, 500);
    assert.deepEqual(rec.rows.map((x) => x.row[0]), ['new1']);
    assert.deepEqual(src.position(), { [`${topic}-0`]: 3 });
  } finally {
    await src.close();
  }
});

test('a second member joining the group revokes partitions from the first, with their positions', async () => {
  const topic = await createTopic(4);
  const group = unique('g');
  for (let p = 0; p < 4; p++) await produce(topic, p, [json(`x${p}`)]);
  const revoked: KafkaPartitionInfo[] = [];
  let rebalancing = 0;
  const a = await newSource('s', topic, { startup: 'earliest', group_id: group }, { onRevoked: (p) => revoked.push(...p), onRebalancing: () => rebalancing++ });
  const bAssigned: KafkaPartitionInfo[] = [];
  const b = await newSource('s', topic, { startup: 'earliest', group_id: group }, { onAssigned: (p) => bAssigned.push(...p) });
  try {
    await pollUntil([a.src], () => a.rec.rows.length >= 4);
    assert.equal(a.src.assignment().length, 4);
    await pollUntil([a.src, b.src], () => revoked.length > 0 && bAssigned.length > 0, 60_000);
    assert.ok(rebalancing >= 1, 'onRebalancing fired before the hand-over');
    const aNow = a.src.assignment().map((p) => p.partition);
    const bNow = b.src.assignment().map((p) => p.partition);
    assert.deepEqual([...aNow, ...bNow].sort(), [0, 1, 2, 3], 'every partition has exactly one owner');
    assert.deepEqual(revoked.map((p) => p.partition).sort(), [...bNow].sort(), 'what A lost is what B got');
    // A had read the one record of each partition: the revoked positions say so.
    for (const p of revoked) assert.equal(p.next, 1);
    // A's position (what its next checkpoint records) no longer claims the revoked partitions.
    assert.deepEqual(Object.keys(a.src.position()).sort(), aNow.map((n) => `${topic}-${n}`).sort());
  } finally {
    await b.src.close();
    await a.src.close();
  }
});

test('records that cannot be decoded come back as dead letters with topic, partition and offset', async () => {
  const topic = await createTopic(2);
  await produce(topic, 1, ['not json {', '[1,2]', JSON.stringify({ id: 7 }), null, json('good')]);
  const { src, rec } = await newSource('s', topic, { startup: 'earliest', group_id: unique('g') });
  try {
    await pollUntil([src], () => rec.rows.length + rec.deadLetters.length >= 5, 30_000, 300);
    assert.deepEqual(rec.rows.map((x) => x.row[0]), ['good']);
    const dl = rec.deadLetters.map((d) => ({ ...d.coords, raw: d.raw }));
    assert.deepEqual(dl, [
      { topic, partition: '1', offset: 0, raw: 'not json {' },
      { topic, partition: '1', offset: 1, raw: '[1,2]' },
      { topic, partition: '1', offset: 2, raw: '{"id":7}' },
      { topic, partition: '1', offset: 3, raw: '' },
    ]);
    assert.match(rec.deadLetters[0]!.reason, /not valid JSON/);
    assert.match(rec.deadLetters[1]!.reason, /not a JSON object/);
    assert.match(rec.deadLetters[2]!.reason, /^column id: expected a string/);
    assert.match(rec.deadLetters[3]!.reason, /tombstone/);
    // Dead letters advance the position too (the checkpoint covers them); the empty
    // partition 0 starts at its earliest offset, 0.
    assert.deepEqual(src.position(), { [`${topic}-0`]: 0, [`${topic}-1`]: 5 });
  } finally {
    await src.close();
  }
});

test('a checkpoint position wins over committed offsets and startup', async () => {
  const topic = await createTopic(2);
  await produce(topic, 0, ['a0', 'a1', 'a2'].map(json));
  await produce(topic, 1, ['b0', 'b1'].map(json));
  const { src, rec } = await newSource('s', topic, { startup: 'latest', group_id: unique('g') });
  src.seek({ [`${topic}-0`]: 2, [`${topic}-1`]: 0 });
  try {
    await pollUntil([src], () => rec.rows.length >= 3, 30_000, 500);
    assert.deepEqual(rec.byPartition(), { [`${topic}-0`]: ['a2'], [`${topic}-1`]: ['b0', 'b1'] });
  } finally {
    await src.close();
  }
});

test('lag: records behind the log end and seconds behind the oldest unread record', async () => {
  const topic = await createTopic(1);
  const before = Date.now();
  await produce(topic, 0, Array.from({ length: 10 }, (_, i) => json(`l${i}`)));
  await new Promise((r) => setTimeout(r, 1200));
  const { src, rec } = await newSource('s', topic, { startup: 'earliest', group_id: unique('g') });
  try {
    const t0 = Date.now();
    // A budget of 3 records per poll: the first productive poll reads offsets 0..2.
    while (rec.rows.length === 0 && Date.now() - t0 < 30_000) {
      if ((await src.poll(3)) === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(rec.rows.length, 3);
    const lag = src.lag();
    assert.equal(lag.records, 7);
    assert.deepEqual(lag.partitions, [{ id: `${topic}-0`, records: 7 }]);
    // Record 3 was produced after `before` and looked at no earlier than 1.2 s after producing.
    assert.ok(lag.seconds >= 1.2 && lag.seconds <= (Date.now() - before) / 1000, `lag seconds ${lag.seconds}`);
    await pollUntil([src], () => rec.rows.length >= 10);
    assert.deepEqual({ records: src.lag().records, seconds: src.lag().seconds }, { records: 0, seconds: 0 });
  } finally {
    await src.close();
  }
});

test('hand-over: offsets committed when the rebalance starts let the new owner continue without re-reading', async () => {
  const topic = await createTopic(4);
  const group = unique('g');
  for (let p = 0; p < 4; p++) await produce(topic, p, [json(`old${p}`)]);
  const commits: Promise<void>[] = [];
  // What the runner does on onRebalancing: checkpoint, then commit the checkpoint's positions.
  const a = await newSource('s', topic, { startup: 'committed', group_id: group }, { onRebalancing: () => commits.push(a.src.commit(a.src.position())) });
  const b = await newSource('s', topic, { startup: 'committed', group_id: group });
  try {
    await pollUntil([a.src], () => a.rec.rows.length >= 4);
    await pollUntil([a.src, b.src], () => b.src.assignment().length > 0 && a.src.assignment().length + b.src.assignment().length === 4, 60_000, 1500);
    await Promise.all(commits);
    assert.ok(commits.length >= 1);
    assert.deepEqual(b.rec.rows, [], 'the new owner starts after what the old one committed');
    for (let p = 0; p < 4; p++) await produce(topic, p, [json(`new${p}`)]);
    await pollUntil([a.src, b.src], () => a.rec.rows.length + b.rec.rows.length >= 8, 30_000, 1000);
    const newOnes = [...a.rec.rows, ...b.rec.rows].map((r) => r.row[0] as string).filter((id) => id.startsWith('new'));
    assert.deepEqual(newOnes.sort(), ['new0', 'new1', 'new2', 'new3']);
  } finally {
    await b.src.close();
    await a.src.close();
  }
});
