// One timed run of the real runtime over the benchmark topic: a `.pipe.sql` text compiled by
// pipec's compiler, run in-process by `runPipeline` with discarding sinks, stopped (abort
// signal) as soon as the Kafka source has read every record. The Kafka source is unbounded, so
// the run is watched through the source instance itself (its positions), captured by wrapping
// the registered `kafka` factory; no per-record hook is added to the measured path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { registerSource } from '../../../targets/runtime/lib/connectors.ts';
import { kafkaModule } from '../../../targets/runtime/lib/modules/kafka.ts';
import type { RunningSource } from '../../../targets/runtime/lib/io/source-types.ts';

const kafkaFactory = kafkaModule.sources!.kafka;
if (!kafkaFactory) throw new Error('the kafka source is not registered in this runtime build');
let live: RunningSource | null = null;
registerSource('kafka', (def, out, ctx) => (live = kafkaFactory(def, out, ctx)));

export interface PipelineResult {
  ms: number;
  /** Process CPU time (user + system, all threads) over the same interval. */
  cpuMs: number;
  /** Share of the interval the event loop was busy (not waiting for I/O or timers). */
  busy: number;
  /** From the pipeline's own /metrics at the moment every record had been read. */
  recordsIn: number;
  recordsOut: number;
  deadLetters: number;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

function metric(text: string, name: string): number {
  const m = new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`metric ${name} missing from /metrics`);
  return Number(m[1]);
}

/** Compiles `specText` (a whole `.pipe.sql`) to a plan; any error diagnostic fails the benchmark. */
export async function compileSpec(specText: string, env: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-e2e-bench-'));
  try {
    writeFileSync(path.join(dir, 'bench.pipe.sql'), specText);
    const r = await compileFile('bench.pipe.sql', { cwd: dir, env: { get: (k) => env[k] } });
    if (!r.plan || r.diagnostics.hasErrors) {
      throw new Error(`the benchmark spec does not compile:\n${r.diagnostics.sorted().map((d) => `${d.code}: ${d.message}`).join('\n')}`);
    }
    return r.plan;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the plan until its source has read `n` records (sum of next offsets, all from 0). */
export async function runUntilRead(plan: Awaited<ReturnType<typeof compileSpec>>, n: number, env: Record<string, string>, timeoutMs = 240_000): Promise<PipelineResult> {
  const baseDir = mkdtempSync(path.join(tmpdir(), 'pipec-e2e-run-'));
  const port = await freePort();
  const ac = new AbortController();
  let stderr = '';
  live = null;
  const read = (): number => {
    if (live === null) return 0;
    let sum = 0;
    for (const next of Object.values(live.position() as Record<string, number>)) sum += next;
    return sum;
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const run = runPipeline(plan, { baseDir, env, signal: ac.signal, discardSinks: true, handleSignals: false, status: 'none', metricsPort: port, stdout: () => {}, stderr: (t) => void (stderr += t) });
  // A timer only runs when the runner yields to the event loop, which it must do to fetch more
  // records; by then every record it polled has gone through the operators.
  let cpuMs = 0;
  let busy = 0;
  const ms = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      if (read() >= n) {
        clearInterval(timer);
        const cpu = process.cpuUsage(cpu0);
        cpuMs = (cpu.user + cpu.system) / 1000;
        busy = performance.eventLoopUtilization(elu0).utilization;
        resolve(performance.now() - t0);
      } else if (performance.now() - t0 > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`pipeline read ${read()} of ${n} records in ${timeoutMs / 1000} s\n${stderr}`));
      }
    }, 5);
    const early = (why: unknown): void => {
      clearInterval(timer);
      reject(new Error(`pipeline stopped early (${String(why)}) after ${read()} records\n${stderr}`));
    };
    run.then((r) => early(`exit ${r.exitCode}`), early);
  }).catch(async (e) => {
    ac.abort();
    await run;
    throw e;
  });
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  ac.abort();
  const r = await run;
  rmSync(baseDir, { recursive: true, force: true });
  if (r.exitCode !== 0) throw new Error(`pipeline exited ${r.exitCode}\n${stderr}`);
  return {
    ms,
    cpuMs,
    busy,
    recordsIn: metric(text, 'pipec_records_in_total'),
    recordsOut: metric(text, 'pipec_records_out_total'),
    deadLetters: metric(text, 'pipec_dead_letters_total'),
  };
}
