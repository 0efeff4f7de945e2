// Runs one test case on the real runtime: the spec's generated module code (the same text
// `pipec run` and the bundle evaluate) with its sources and sinks swapped for the `pipec-test`
// connectors (targets/runtime/lib/testing/scripted.ts), processing time from the script, and a
// checkpoint directory of its own. A `crash_and_restart` step fails the engine mid-poll; the
// engine is then built again from scratch and resumes from the checkpoint the runtime wrote,
// as a restarted process would.
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PipelineDef } from '../../targets/runtime/lib/pipeline-types.ts';
import { runPipelineDef } from '../../targets/runtime/lib/runner.ts';
import { instantiateBody } from '../../targets/runtime/instantiate-body.ts';
import { RUN_OPTION, runs, Script, TEST_CONNECTOR } from '../../targets/runtime/lib/testing/scripted.ts';
import { DEAD_LETTERS, type TestCase } from './test-file.ts';

export interface CaseRun {
  /** Per sink name (and `dead_letters`): the rows as the sink's JSON has them, in output order. */
  observed: Map<string, Record<string, unknown>[]>;
  /** Set when the engine failed other than by a scripted crash: its messages. */
  error: string | null;
  restarts: number;
}

/** `${NAME}` options need a value to instantiate; the test connectors read none of them. */
function placeholderEnv(body: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of body.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) env[m[1]!] = `pipec-test-${m[1]}`;
  return env;
}

let runSeq = 0;

/**
 * Where a test's checkpoint and dead-letter files go: memory-backed /dev/shm where there is
 * one (the runtime fsyncs every checkpoint; on a disk that is most of a small test's time).
 */
function scratchRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** Instantiates the generated body and points every source and sink at the test connectors of run `id`. */
function testDef(body: string, id: string): PipelineDef {
  const def = instantiateBody(body, placeholderEnv(body));
  for (const s of def.sources) {
    s.connector = TEST_CONNECTOR;
    s.options = { ...s.options, [RUN_OPTION]: id };
  }
  for (const s of def.sinks) {
    s.connector = TEST_CONNECTOR;
    s.options = { ...s.options, [RUN_OPTION]: id };
  }
  return def;
}

export async function runCase(body: string, c: TestCase): Promise<CaseRun> {
  const id = `run-${process.pid}-${++runSeq}`;
  const script = new Script(c.steps, c.start, c.partitions);
  runs.set(id, script);
  const dir = mkdtempSync(join(scratchRoot(), 'pipec-test-'));
  let restarts = 0;
  let error: string | null = null;
  let deadPath = '';
  try {
    for (;;) {
      script.reset();
      const def = testDef(body, id);
      deadPath = resolve(dir, def.options.dead_letter_path ?? `${def.name}.dead-letters.ndjson`);
      const stop = new AbortController();
      script.onExhausted = () => stop.abort();
      let messages = '';
      const r = await runPipelineDef(def, {
        baseDir: dir,
        checkpointDir: join(dir, 'checkpoint'),
        env: {},
        status: 'none',
        handleSignals: false,
        signal: stop.signal,
        clock: () => script.now,
        stdout: () => {},
        stderr: (t) => (messages += t),
      });
      if (script.crashed) {
        restarts++;
        continue;
      }
      if (r.exitCode !== 0) error = messages.trim() || `the engine ended with exit code ${r.exitCode}`;
      break;
    }
  } finally {
    runs.delete(id);
  }
  const observed = new Map<string, Record<string, unknown>[]>();
  for (const [name, rows] of script.captured) observed.set(name, rows.map((r) => JSON.parse(r.json) as Record<string, unknown>));
  observed.set(DEAD_LETTERS, readDeadLetters(deadPath));
  rmSync(dir, { recursive: true, force: true });
  return { observed, error, restarts };
}

function readDeadLetters(path: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
