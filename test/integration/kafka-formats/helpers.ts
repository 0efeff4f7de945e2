// Shared helpers of the Kafka format tests: compile a .pipe.sql spec (schemas from files or
// the registry fixture), run it in-process against the real broker until its output is
// complete, and read the file sink and the dead letters.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson, tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { kafkaEnv } from '../kafka/helpers.ts';

export { createTopic, kafkaEnv, unique } from '../kafka/helpers.ts';

/** Produces raw values (Buffers, or null for tombstones) to one partition, in order. */
export async function produceRaw(topic: string, partition: number, values: (Buffer | string | null)[]): Promise<void> {
  const { kafka } = await kafkaEnv();
  const p = kafka.producer();
  await p.connect();
  await p.send({ topic, acks: -1, messages: values.map((value) => ({ partition, value })) });
  await p.disconnect();
}

export interface SpecRun {
  exitCode: number;
  stderr: string;
  dir: string;
  out: Record<string, unknown>[];
  dead: Record<string, unknown>[];
}

/**
 * Compiles `spec` (written as pipeline.pipe.sql next to `files`) with `env` and runs it until
 * the sink has `rows` rows and `dead` dead letters (then one more second, to catch extras),
 * or it exits, or 60 s pass.
 */
export async function runSpec(spec: string, env: Record<string, string>, want: { rows: number; dead?: number }, files: Record<string, string> = {}): Promise<SpecRun> {
  const dir = tempDir('pipec-fmt-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  writeFileSync(path.join(dir, 'pipeline.pipe.sql'), spec);
  const r = await compileFile('pipeline.pipe.sql', { cwd: dir, env: { get: (n) => env[n] } });
  const errors = r.diagnostics.items.filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => d.message), []);
  assert.ok(r.plan);
  const ac = new AbortController();
  let stderr = '';
  let exited = false;
  const run = runPipeline(r.plan, { baseDir: dir, env, signal: ac.signal, handleSignals: false, stdout: () => {}, stderr: (t) => (stderr += t) }).finally(() => (exited = true));
  const outFile = path.join(dir, 'out.ndjson');
  const deadFile = path.join(dir, `${r.plan.pipeline.name}.dead-letters.ndjson`);
  const t0 = Date.now();
  const complete = (): boolean => readNdjson(outFile).length >= want.rows && readNdjson(deadFile).length >= (want.dead ?? 0);
  while (!exited && !complete() && Date.now() - t0 < 60_000) await new Promise((res) => setTimeout(res, 200));
  if (!exited) await new Promise((res) => setTimeout(res, 1000));
  ac.abort();
  const { exitCode } = await run;
  return { exitCode, stderr, dir, out: readNdjson(outFile), dead: readNdjson(deadFile) };
}
