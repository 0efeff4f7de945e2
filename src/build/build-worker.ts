// A worker thread of a parallel build (build-parallel.ts): takes spec indexes from the shared
// counter, compiles and emits each exactly as the main thread does (spec-work.ts), and posts
// back plain data. Earlier outputs (the Iceberg field-id locks) are read through its own guard
// over the same --out folder; nothing is written here (the main thread writes, after the build).
import { parentPort, workerData } from 'node:worker_threads';
import { resolverOf } from './profile.ts';
import { TARGETS } from './targets.ts';
import { OutputRoot } from './write-outputs.ts';
import { compileSpec } from './spec-work.ts';
import type { FromWorker, WorkerInput } from './build-worker-protocol.ts';
import { eventLoopTurn, handled } from './build-parallel.ts';

/** Texts at least this long are sent once and then named by number (the runtime library bundle). */
const SHARED_TEXT_MIN = 16 * 1024;

const input = workerData as WorkerInput;
const port = parentPort!;
const root = new OutputRoot(input.cwd, input.outDir);
const work = {
  cwd: input.cwd,
  env: resolverOf(input.env),
  targets: input.targets.map((n) => TARGETS[n]!),
  diagnosticsOnly: input.diagnosticsOnly,
  readPrevious: (name: string, p: string) => root.read(`${name}/${p}`)?.toString('utf8') ?? null,
};
const sentTexts = new Map<string, number>();

/** Compiles spec `i` and posts it once its targets are done (in any order: messages carry the index). */
async function compileAndPost(i: number, spec: Awaited<ReturnType<typeof compileSpec>>): Promise<void> {
  const shared: [number, string][] = [];
  const share = (c: string | Uint8Array) => {
    if (typeof c !== 'string' || c.length < SHARED_TEXT_MIN) return c;
    let id = sentTexts.get(c);
    if (id === undefined) {
      sentTexts.set(c, (id = sentTexts.size));
      shared.push([id, c]);
    }
    return { shared: id };
  };
  const planText = spec.pipeline ? spec.planText() : '';
  const emissions = (await spec.emit()).map((e) => ({ diagnostics: e.diagnostics, files: e.files.map((f) => ({ ...f, contents: share(f.contents) })) }));
  const message: FromWorker = { kind: 'spec', index: i, path: spec.result.path, diagnostics: spec.result.diagnostics.toData(), pipeline: spec.pipeline, planText, emissions, shared };
  port.postMessage(message);
}

try {
  // A spec's targets are not awaited before the next spec is compiled: the first waits for
  // esbuild (the runtime library bundle), and this thread keeps compiling meanwhile.
  const posting: Promise<void>[] = [];
  for (let i = Atomics.add(input.next, 0, 1); i < input.files.length; i = Atomics.add(input.next, 0, 1)) {
    posting.push(handled(compileAndPost(i, await compileSpec(input.files[i]!, work))));
    await eventLoopTurn();
  }
  await Promise.all(posting);
  port.postMessage({ kind: 'done' } satisfies FromWorker);
} catch (e) {
  const err = e instanceof Error ? e : new Error(String(e));
  port.postMessage({ kind: 'failed', message: err.message, stack: err.stack } satisfies FromWorker);
}
