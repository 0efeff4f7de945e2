// The Kafka source across a broker stop/start (test/services/services down|up kafka): the
// consumer keeps retrying, rejoins, and resumes where it was, without loss or duplicates; and
// `pipec run` stopped (SIGTERM) while the broker is away stops within seconds, not after its
// 30 s deadline, reading from it (with a checkpoint its restart resumes from) or writing to it
// (at-least-once: no checkpoint, the restart sends the rows again; exactly-once: the restart
// publishes what the last checkpoint recorded).
// This restarts the shared test broker: other Kafka tests running at that moment see a
// short outage, which is what their clients must survive too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../support/venv.ts';
import { readServicesEnv } from '../../support/services.ts';
import { createTopic, kafkaEnv, newSource, pollUntil, produce, readTopic, unique } from './helpers.ts';

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

/** Lines of `file` (none while it does not exist). */
const linesOf = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** `pipec run spec` in `dir` with a checkpoint folder; `stop()` sends SIGTERM and resolves with the exit and how long it took. */
function runPipec(dir: string, spec: string = 'k.pipe.sql'): { stderr: () => string; stop: () => Promise<{ code: number | null; ms: number }> } {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'pipec.mjs'), 'run', spec, '--checkpoint-dir', 'ck'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    stderr: () => stderr,
    stop: async () => {
      const t0 = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      return { code, ms: Date.now() - t0 };
    },
  };
}

async function until(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('SIGTERM while the broker is away stops within seconds with a checkpoint; the restart resumes from it without loss or duplicates', { timeout: 300_000 }, async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'stop-away');
  const ids = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => JSON.stringify({ id: from + i }));
  await produce(topic, 0, ids(0, 50));
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-stop-away-'));
  writeFileSync(
    path.join(dir, 'k.pipe.sql'),
    `PIPELINE stop_away;
CREATE SOURCE s (id BIGINT NOT NULL)
  WITH (connector = 'kafka', topic = '${topic}', brokers = '${brokers}', group_id = '${unique('g')}', startup = 'earliest', format = 'json');
CREATE VIEW v AS SELECT id FROM s;
CREATE SINK out FROM v WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`,
  );
  const out = path.join(dir, 'out.ndjson');
  const first = runPipec(dir, 'k.pipe.sql');
  let brokerDown = false;
  try {
    await until('the first 50 rows', () => linesOf(out).length >= 50, 120_000);
    execFileSync('bash', [services, 'down', 'kafka'], { stdio: 'pipe' });
    brokerDown = true;
    await new Promise((r) => setTimeout(r, 2000));
    // The final checkpoint's offset commit to the group cannot be answered: the stop gives up on
    // it (the checkpoint holds the positions) and on the client's close, instead of waiting out
    // the 30 s deadline.
    const stopped = await first.stop();
    assert.equal(stopped.code, 143, first.stderr());
    assert.ok(stopped.ms < 20_000, `stopped ${stopped.ms} ms after SIGTERM:\n${first.stderr()}`);
    assert.doesNotMatch(first.stderr(), /did not stop within/, first.stderr());
    assert.match(first.stderr(), /source 's': stopping without acknowledging checkpoint \d+ upstream/);
    assert.ok(existsSync(path.join(dir, 'ck', 'checkpoint.json')), 'the stop wrote its checkpoint');
  } finally {
    if (brokerDown) execFileSync('bash', [services, 'up', 'kafka'], { stdio: 'pipe' });
    else await first.stop();
  }
  await produce(topic, 0, ids(50, 80));
  const second = runPipec(dir, 'k.pipe.sql');
  try {
    // Rejoining may wait out the session of the member that never left the group (~30 s).
    await until('the 30 rows produced after the restart', () => linesOf(out).length >= 80, 180_000);
    await new Promise((r) => setTimeout(r, 1000));
  } finally {
    await second.stop();
  }
  const seen = linesOf(out).map((l) => (JSON.parse(l) as { id: number }).id);
  assert.deepEqual(seen, Array.from({ length: 80 }, (_, i) => i), 'every record once, in order');
});

/** The sequence number of the checkpoint in `dir`/ck (0: none yet). */
const checkpointSeq = (dir: string): number => {
  const f = path.join(dir, 'ck', 'checkpoint.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as { seq: number }).seq : 0;
};

for (const delivery of ['at-least-once', 'exactly-once'] as const) {
  test(`SIGTERM while the broker of a ${delivery} Kafka sink is away stops within seconds; after the restart no row is missing${delivery === 'exactly-once' ? ' or twice' : ''}`, { timeout: 300_000 }, async () => {
    const { brokers } = await kafkaEnv();
    const topic = await createTopic(1, `sink-away-${delivery}`);
    const dir = mkdtempSync(path.join(tmpdir(), 'pipec-sink-away-'));
    writeFileSync(
      path.join(dir, 'k.pipe.sql'),
      `PIPELINE sink_away WITH (checkpoint_interval = '2 s');
CREATE SOURCE g (id BIGINT NOT NULL) WITH (connector = 'datagen', rows_per_second = 200, fields.id.kind = 'sequence');
CREATE VIEW v AS SELECT id FROM g;
CREATE SINK out FROM v WITH (connector = 'kafka', topic = '${topic}', brokers = '${brokers}', format = 'json', delivery = '${delivery}');
`,
    );
    const first = runPipec(dir);
    let brokerDown = false;
    try {
      await until('a first checkpoint', () => checkpointSeq(dir) >= 1, 120_000);
      execFileSync('bash', [services, 'down', 'kafka'], { stdio: 'pipe' });
      brokerDown = true;
      await new Promise((r) => setTimeout(r, 2000));
      const stopped = await first.stop();
      assert.ok(stopped.ms < 25_000, `stopped ${stopped.ms} ms after SIGTERM:\n${first.stderr()}`);
      assert.doesNotMatch(first.stderr(), /did not stop within/, first.stderr());
      if (delivery === 'at-least-once') {
        // The rows in flight were never confirmed: the stop takes no checkpoint and says so.
        assert.equal(stopped.code, 1, first.stderr());
        assert.match(first.stderr(), /sink 'out': its target did not confirm the rows within 10 s of the stop; no checkpoint was taken/);
      } else {
        // The checkpoint was taken (its interval file is the sink's progress); publishing it is what could not finish.
        assert.equal(stopped.code, 143, first.stderr());
        assert.match(first.stderr(), /sink 'out': stopping before the output of checkpoint \d+ was published .* the restart publishes it/);
      }
    } finally {
      if (brokerDown) execFileSync('bash', [services, 'up', 'kafka'], { stdio: 'pipe' });
      else await first.stop();
    }
    const resumedFrom = checkpointSeq(dir);
    const second = runPipec(dir);
    try {
      await until('two more checkpoints after the restart', () => checkpointSeq(dir) >= resumedFrom + 2, 120_000);
    } finally {
      assert.equal((await second.stop()).code, 143, second.stderr());
    }
    const ids = (await readTopic(topic, 'read_committed', { settleMs: 3000 })).map((m) => (JSON.parse(m.value!) as { id: number }).id);
    const distinct = [...new Set(ids)].sort((a, b) => a - b);
    assert.ok(distinct.length > 0);
    assert.deepEqual(distinct, Array.from({ length: distinct.length }, (_, i) => i), 'no id is missing from 0 to the last');
    if (delivery === 'exactly-once') assert.equal(ids.length, distinct.length, 'no id twice');
  });
}
