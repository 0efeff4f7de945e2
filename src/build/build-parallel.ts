// Compiles a large build's specs on every core: the main thread and (cores − 1) worker threads
// (build-worker.ts) each take the next spec from one shared counter until none is left, so the
// threads balance themselves. Each spec is compiled and emitted exactly as on one thread
// (spec-work.ts); the driver (build.ts) then walks the outcomes in file order, so outputs,
// diagnostics and their order do not depend on which thread did what. Workers get plain data
// (paths, the env as values, target names) and send back plain data (diagnostics, files).
import { availableParallelism } from 'node:os';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import type { Target } from '../plan/physical/target-api.ts';
import { compileSpec, type SpecOutcome, type SpecWorkOptions } from './spec-work.ts';
import type { FromWorker, SharedText, WorkerInput } from './build-worker-protocol.ts';
import { startWorker } from './start-worker.ts';

export interface ParallelOptions {
  /** What `env` resolves, as values (a worker cannot call the main thread's resolver). */
  env: Record<string, string | undefined>;
  /** Threads to use, whatever the build's size (tests); default one per core for large builds. */
  threads?: number;
  /** Every spec to a worker, none on the main thread (tests: the worker path, whatever the timing). */
  workersOnly?: boolean;
}

/**
 * Below this many specs per thread a build stays on fewer threads: a worker's start-up (loading
 * the compiler, its first compilations, its own runtime library bundle) costs roughly as much
 * as compiling this many specs.
 */
export const MIN_SPECS_PER_THREAD = 50;

/** How many threads a build uses: 1 (no workers) unless it asked for parallelism and can use it. */
export function parallelThreads(opts: { files: string[]; parallel?: ParallelOptions; readText?: unknown; readPrevious?: unknown }): number {
  // In-memory sources and previous outputs are functions of the caller: they stay on its thread.
  if (!opts.parallel || opts.readText || opts.readPrevious) return 1;
  if (opts.parallel.threads !== undefined) return Math.max(1, Math.min(opts.parallel.threads, opts.files.length));
  return Math.max(1, Math.min(availableParallelism(), Math.floor(opts.files.length / MIN_SPECS_PER_THREAD)));
}

/**
 * Every spec's outcome, by index of `files`, compiled on `threads` threads; null when a target
 * is not one of the built-in ones (a worker can only name targets it can import itself).
 */
export async function compileInParallel(files: string[], work: SpecWorkOptions, opts: ParallelOptions & { threads: number; outDir: string }): Promise<SpecOutcome[] | null> {
  const { TARGETS } = await import('./targets.ts');
  if (!work.targets.every((t) => TARGETS[t.name] === t)) return null;
  const next = new Int32Array(new SharedArrayBuffer(4));
  const outcomes: SpecOutcome[] = new Array(files.length);
  const input: WorkerInput = { files, cwd: work.cwd, outDir: opts.outDir, env: opts.env, targets: work.targets.map((t: Target) => t.name), diagnosticsOnly: work.diagnosticsOnly, next };
  const workers: Promise<void>[] = [];
  const workerCount = opts.workersOnly ? opts.threads : opts.threads - 1;
  for (let k = 0; k < workerCount; k++) workers.push(runWorker(input, outcomes));
  // Settled here so a worker failing while this thread still compiles is not an unhandled rejection.
  const settled = Promise.allSettled(workers);
  // This thread's share, emitted right away like a worker's (the driver then only assembles).
  // A spec's emission is not awaited before the next spec is compiled: the first one waits for
  // esbuild (the runtime library bundle), and this thread keeps compiling meanwhile.
  const emitting: Promise<unknown>[] = [];
  for (let i = opts.workersOnly ? files.length : Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) {
    const spec = await compileSpec(files[i]!, work);
    outcomes[i] = spec;
    if (!spec.pipeline) continue;
    const text = spec.planText();
    spec.planText = () => text;
    emitting.push(handled(spec.emit()));
    await eventLoopTurn();
  }
  await Promise.all(emitting);
  for (const s of await settled) if (s.status === 'rejected') throw s.reason;
  return outcomes;
}

/**
 * Lets the thread's event loop run once. A compile loop otherwise only ever waits on promises
 * already settled, so nothing arriving from outside is taken until the last spec: not esbuild's
 * library bundle (every spec's emission waited for it, then ran in one tail of ~1 s per thread
 * at 1,000 specs) nor, on the main thread, the workers' finished specs.
 */
export function eventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `p`, marked as handled now (it is awaited later, with others): a failure is not reported as unhandled first. */
export function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

function runWorker(input: WorkerInput, outcomes: SpecOutcome[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = startWorker('build-worker', input);
    // Large texts (the shared runtime library bundle) cross once per worker, then by number.
    const shared = new Map<number, string>();
    let failed = false;
    worker.on('message', (m: FromWorker) => {
      if (m.kind === 'spec') {
        for (const [id, text] of m.shared) shared.set(id, text);
        const contents = (c: string | Uint8Array | SharedText): string | Uint8Array => (typeof c === 'object' && 'shared' in c ? shared.get(c.shared)! : c);
        const emissions = m.emissions.map((e) => ({ diagnostics: e.diagnostics, files: e.files.map((f) => ({ ...f, contents: contents(f.contents) })) }));
        outcomes[m.index] = {
          result: { path: m.path, text: null, ast: null, plan: null, diagnostics: DiagnosticBag.fromData(m.diagnostics) },
          pipeline: m.pipeline,
          planText: () => m.planText,
          emit: async () => emissions,
        };
      } else if (m.kind === 'failed') {
        failed = true;
        const e = new Error(m.message);
        if (m.stack) e.stack = m.stack;
        reject(e);
      } else {
        void worker.terminate();
        resolve();
      }
    });
    worker.on('error', (e) => {
      failed = true;
      reject(e);
    });
    worker.on('exit', (code) => {
      if (!failed) reject(new Error(`pipec: a build worker stopped (exit code ${code}) before finishing its specs`));
    });
  });
}
