// The Kafka source across a broker stop/start (test/services/services down|up kafka): the
// consumer keeps retrying, rejoins, and resumes where it was, without loss or duplicates.
// This restarts the shared test broker: other Kafka tests running at that moment see a
// short outage, which is what their clients must survive too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../support/venv.ts';
import { readServicesEnv } from '../../support/services.ts';
import { createTopic, kafkaEnv, newSource, pollUntil, produce, unique } from './helpers.ts';

const services = path.join(repoRoot, 'test', 'services', 'services');

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

test('a consumer resumes without loss or duplicates after the broker stops and starts again', { timeout: 300_000 }, async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(2, 'restart');
  const ids = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => JSON.stringify({ id: `r${from + i}` }));
  await produce(topic, 0, ids(0, 25));
  await produce(topic, 1, ids(25, 50));
  const { src, rec } = await newSource('s', topic, { startup: 'earliest', group_id: unique('g') });
  try {
    await pollUntil([src], () => rec.rows.length >= 50);
    execFileSync('bash', [services, 'down', 'kafka'], { stdio: 'pipe' });
    // Polling while the broker is away neither throws nor invents records.
    for (let i = 0; i < 20; i++) {
      assert.equal(await src.poll(512), 0);
      await new Promise((r) => setTimeout(r, 100));
    }
    execFileSync('bash', [services, 'up', 'kafka'], { stdio: 'pipe' });
    assert.equal(readServicesEnv().PIPEC_KAFKA_BROKERS, brokers, 'the broker came back on the same address');
    await produce(topic, 0, ids(50, 75));
    await produce(topic, 1, ids(75, 100));
    await pollUntil([src], () => rec.rows.length >= 100, 180_000, 1000);
    const seen = rec.rows.map((r) => r.row[0] as string);
    assert.equal(seen.length, 100);
    assert.deepEqual([...new Set(seen)].sort(), ids(0, 100).map((j) => JSON.parse(j).id).sort());
    assert.deepEqual(src.position(), { [`${topic}-0`]: 50, [`${topic}-1`]: 50 });
  } finally {
    await src.close();
  }
});
