// Helpers of the runtime CDC tests: compile a .pipe.sql text with the real front end, run it
// in-process until stopped, and wait for a condition on its output.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';

export interface Running {
  dir: string;
  stop(): Promise<number>;
  stderr(): string;
}

/**
 * Compiles `spec` (no errors, no runtime-unsupported) and runs it with a checkpoint directory
 * until stop(); give `dir` of an earlier run to resume from its checkpoint.
 */
export async function startPipeline(spec: string, env: Record<string, string>, dir = mkdtempSync(path.join(tmpdir(), 'pipec-cdc-rt-'))): Promise<Running> {
  writeFileSync(path.join(dir, 'p.pipe.sql'), spec);
  const r = await compileFile('p.pipe.sql', { cwd: dir, env: { get: (n) => env[n] } });
  const errors = r.diagnostics.items.filter((d) => d.severity === 'error' || d.code === 'runtime-unsupported');
  assert.deepEqual(errors.map((d) => d.message), []);
  assert.ok(r.plan);
  const ac = new AbortController();
  let err = '';
  const done = runPipeline(r.plan, { baseDir: dir, checkpointDir: path.join(dir, 'ck'), env, handleSignals: false, signal: ac.signal, stdout: () => {}, stderr: (t) => (err += t) });
  return {
    dir,
    stderr: () => err,
    async stop() {
      ac.abort();
      return (await done).exitCode;
    },
  };
}

export function ndjson(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
}

/** Waits until `cond()` holds; fails with `what()` (the last state seen) after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, what: () => unknown, ms = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) assert.fail(`condition not met within ${ms} ms; last state: ${JSON.stringify(what())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
