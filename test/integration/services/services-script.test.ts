// Tests of test/services/services itself: usage errors, and that a service which cannot start fails loudly with
// its log tail (what ensureServices relays to the failing test) without touching the running services' settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../support/venv.ts';
import { ensureServices, servicesEnvFile } from '../../support/services.ts';

const script = path.join(repoRoot, 'test', 'services', 'services');

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [script, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as NodeJS.ErrnoException & { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test('an unknown action or service name is a usage error (exit 2)', async () => {
  const bad = await run(['restart', 'kafka']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /usage: .*up\|down\|status/);
  const badName = await run(['up', 'redis']);
  assert.equal(badName.code, 2);
});

test('a broker that cannot start makes `up` fail with the log tail, leaving the env file alone', async (t) => {
  // Kafka's jars must be cached already (first `up` installs them); the fake JVM then fails at storage format.
  await ensureServices(['kafka']);
  const before = await readFile(servicesEnvFile, 'utf8');
  const dir = await mkdtemp(path.join(tmpdir(), 'pipec-services-fail-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const fakeJava = path.join(dir, 'java');
  await writeFile(fakeJava, '#!/bin/sh\necho "boom: simulated JVM failure ($*)" >&2\nexit 3\n');
  await chmod(fakeJava, 0o755);

  const res = await run(['up', 'kafka'], { PIPEC_SERVICES_RUN_DIR: path.join(dir, 'run'), PIPEC_KAFKA_JAVA: fakeJava });
  assert.equal(res.code, 1);
  assert.match(res.stderr, /\[kafka\] failed to start; logs follow/);
  assert.match(res.stderr, /boom: simulated JVM failure/);
  assert.equal(await readFile(servicesEnvFile, 'utf8'), before);
});
