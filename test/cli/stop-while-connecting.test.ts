// A stop (SIGTERM) while a Kafka source or sink is still connecting to a broker that is down
// (with one thread, and a sink under `--workers 2`):
// kafkajs retries for minutes, and the run used to wait out the stop's whole 30 s deadline,
// printing "waiting for Kafka" notices after the stop. Now the source gives up at once (nothing
// was read: a clean stop, 143), and the sink fails the checkpoint it holds up, saying so (exit 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PIPEC } from './run-cli.ts';
import { tempDir } from '../fixtures/runtime/run-helpers.ts';

// Port 1 on loopback: nothing listens there, so every connect is refused and retried.
const DOWN = '127.0.0.1:1';

const FROM_KAFKA = `PIPELINE from_kafka;
CREATE SOURCE bids (auction BIGINT NOT NULL, price BIGINT NOT NULL)
  WITH (connector = 'kafka', topic = 'bids', brokers = '${DOWN}', group_id = 'g', format = 'json');
CREATE VIEW v AS SELECT auction, price FROM bids;
CREATE SINK out FROM v WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

const TO_KAFKA = `PIPELINE to_kafka;
CREATE SOURCE bids (auction BIGINT NOT NULL, price BIGINT NOT NULL)
  WITH (connector = 'file', path = 'in.ndjson', format = 'ndjson');
CREATE VIEW v AS SELECT auction, price FROM bids;
CREATE SINK out FROM v WITH (connector = 'kafka', topic = 'o', brokers = '${DOWN}', format = 'json');
`;

interface Stopped {
  code: number | null;
  stderr: string;
  /** From the SIGTERM to the process's exit. */
  ms: number;
}

/** Runs `pipec run spec`, sends SIGTERM once it says it is waiting for Kafka, and awaits its exit. */
function stopWhileWaiting(dir: string, spec: string, args: string[] = []): Promise<Stopped> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PIPEC, 'run', spec, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    let sentAt = 0;
    const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (sentAt === 0 && stderr.includes('waiting for Kafka')) {
        sentAt = Date.now();
        child.kill('SIGTERM');
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr, ms: sentAt === 0 ? Number.NaN : Date.now() - sentAt });
    });
  });
}

/** What the run printed after it took the SIGTERM. */
const afterStop = (stderr: string): string => stderr.slice(stderr.indexOf('SIGTERM: stopping'));

test('SIGTERM while a Kafka source connects to a broker that is down stops at once and cleanly', async () => {
  const dir = tempDir('stop-connecting-src');
  writeFileSync(path.join(dir, 'k.pipe.sql'), FROM_KAFKA);
  const r = await stopWhileWaiting(dir, 'k.pipe.sql');
  assert.ok(r.ms < 10_000, `stopped ${r.ms} ms after SIGTERM (the deadline is 30 s):\n${r.stderr}`);
  assert.equal(r.code, 143, r.stderr);
  assert.doesNotMatch(afterStop(r.stderr), /so far|did not stop/, r.stderr);
});

test('SIGTERM while a Kafka sink connects fails the checkpoint it holds up, naming the sink, instead of waiting out the deadline', async () => {
  const dir = tempDir('stop-connecting-sink');
  writeFileSync(path.join(dir, 'in.ndjson'), '{"auction":1,"price":2}\n');
  writeFileSync(path.join(dir, 's.pipe.sql'), TO_KAFKA);
  const r = await stopWhileWaiting(dir, 's.pipe.sql');
  assert.ok(r.ms < 10_000, `stopped ${r.ms} ms after SIGTERM (the deadline is 30 s):\n${r.stderr}`);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /sink 'out': stopped before Kafka at 127\.0\.0\.1:1 answered; no checkpoint was taken/);
  assert.doesNotMatch(afterStop(r.stderr), /so far|did not stop|could not check its target/, r.stderr);
});

test('the same under --workers 2: the coordinator interrupts the sink too', async () => {
  const dir = tempDir('stop-connecting-workers');
  for (const f of ['a', 'b']) writeFileSync(path.join(dir, `in-${f}.ndjson`), '{"auction":1,"price":2}\n');
  writeFileSync(path.join(dir, 's.pipe.sql'), TO_KAFKA.replace("path = 'in.ndjson'", "path = 'in-*.ndjson'"));
  const r = await stopWhileWaiting(dir, 's.pipe.sql', ['--workers', '2']);
  assert.ok(r.ms < 10_000, `stopped ${r.ms} ms after SIGTERM (the deadline is 30 s):\n${r.stderr}`);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /sink 'out': stopped before Kafka at 127\.0\.0\.1:1 answered; no checkpoint was taken/);
});
