// Writes a finished build to disk: the reviewable outputs under --out and the runnable bundles
// under the bundle folder. A large build is split by pipeline into one share per core: this
// thread writes the first share while a write worker (write-worker.ts) writes each other one.
// Creating thousands of files is mostly the kernel's work, and it runs on several cores only
// when several threads ask for it. The 7,000 outputs of a 1,000-spec build, written by a plain
// script on this machine's disk: one thread 1.7–2.0 s, two threads 1.05–1.1 s; right after a
// large delete 4.1–9.4 s against 3.1–4.9 s, where Node's thread pool with 16 folders in flight
// (what the build did before) took 4.8–5.9 s (2026-12-03).
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorker } from './start-worker.ts';
import { inside, MANIFEST_NAME, OutputPathError, OutputRoot, type WriteReport } from './write-outputs.ts';
import { packShare, writeShare, type WriteOutcome, type WriteShare } from './write-share.ts';

type Contents = string | Uint8Array;

export interface BuildToWrite {
  outputs: Map<string, Contents>;
  bundles: Map<string, Contents>;
  pipelines: string[];
}

/** A share smaller than this many files is not worth a worker's start (~30–50 ms). */
export const SHARE_MIN_FILES = 1000;

export async function writeBuild(cwd: string, outDir: string, bundleDir: string, build: BuildToWrite, threads = availableParallelism()): Promise<WriteReport> {
  const fileCount = build.outputs.size + build.bundles.size + build.pipelines.length;
  // Nested folders (one inside the other) are written one after the other on this thread, so
  // neither folder's cleaning ever sees the other's half-written files.
  const count = disjoint(cwd, outDir, bundleDir) ? Math.max(1, Math.min(threads, Math.floor(fileCount / SHARE_MIN_FILES))) : 1;
  const whole: WriteShare = { cwd, outDir, bundleDir, ...build };
  if (count === 1) return writeShare(whole);
  // The write workers start first: their start-up (~90 ms) runs beside the check below, and
  // each waits for its share, which it gets only once every path has passed.
  const writers = Array.from({ length: count - 1 }, startWriteWorker);
  try {
    // Every path of every share is checked before any thread writes anything.
    checkPaths(whole);
  } catch (e) {
    await Promise.all(writers.map((w) => w.stop()));
    throw e;
  }
  const [mine, ...theirs] = splitShares(whole, count);
  const workers = theirs.map((share, k) => writers[k]!.write(share));
  let own: WriteReport | { failed: unknown };
  try {
    own = writeShare(mine!);
  } catch (e) {
    own = { failed: e };
  }
  // Every worker has ended before this returns or throws: nothing is still being written.
  const settled = await Promise.allSettled(workers);
  if ('failed' in own) throw own.failed;
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  const reports = [own, ...settled.map((s) => (s as PromiseFulfilledResult<WriteReport>).value)];
  return { removed: reports.flatMap((r) => r.removed), notes: reports.flatMap((r) => r.notes) };
}

function disjoint(cwd: string, a: string, b: string): boolean {
  const [x, y] = [resolve(cwd, a), resolve(cwd, b)];
  return !inside(y, x) && !inside(x, y);
}

function checkPaths(share: WriteShare): void {
  const out = new OutputRoot(share.cwd, share.outDir, true);
  for (const rel of share.outputs.keys()) out.path(rel);
  for (const name of share.pipelines) out.path(`${name}/${MANIFEST_NAME}`);
  const bundles = new OutputRoot(share.cwd, share.bundleDir, true);
  for (const rel of share.bundles.keys()) bundles.path(rel);
}

/**
 * `count` shares of whole pipelines (their outputs and bundles stay together, as writeOutputs'
 * cleaning needs), in sorted order, each with about the same number of files.
 */
export function splitShares(whole: WriteShare, count: number): WriteShare[] {
  const names = [...whole.pipelines].sort();
  const files = new Map<string, number>(names.map((n) => [n, 1]));
  for (const map of [whole.outputs, whole.bundles]) for (const rel of map.keys()) {
    const name = rel.slice(0, rel.indexOf('/'));
    files.set(name, (files.get(name) ?? 0) + 1);
  }
  const total = [...files.values()].reduce((a, b) => a + b, 0);
  const shareOf = new Map<string, number>();
  let seen = 0;
  for (const name of names) {
    shareOf.set(name, Math.min(count - 1, Math.floor((seen * count) / total)));
    seen += files.get(name)!;
  }
  const shares: WriteShare[] = Array.from({ length: count }, () => ({ cwd: whole.cwd, outDir: whole.outDir, bundleDir: whole.bundleDir, pipelines: [], outputs: new Map(), bundles: new Map() }));
  for (const name of whole.pipelines) shares[shareOf.get(name)!]!.pipelines.push(name);
  for (const key of ['outputs', 'bundles'] as const) for (const [rel, c] of whole[key]) {
    // Files of a pipeline the build does not list (none today) stay with the first share.
    shares[shareOf.get(rel.slice(0, rel.indexOf('/'))) ?? 0]![key].set(rel, c);
  }
  return shares;
}

interface WriteWorker {
  /** Hands the worker its share; settles once the worker has ended. */
  write(share: WriteShare): Promise<WriteReport>;
  /** Ends a worker that was never given a share. */
  stop(): Promise<unknown>;
}

/** A write worker, started before its share is known; its listeners are on from the start. */
function startWriteWorker(): WriteWorker {
  const worker: Worker = startWorker('write-worker', null);
  const done = new Promise<WriteReport>((resolvePromise, reject) => {
    let outcome: WriteOutcome | undefined;
    worker.once('message', (m: WriteOutcome) => (outcome = m));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (outcome?.kind === 'written') return resolvePromise(outcome.report);
      if (outcome?.kind === 'failed') return reject(rebuiltError(outcome));
      reject(new Error(`pipec: a write worker stopped (exit code ${code}) before finishing its files`));
    });
  });
  return {
    write(share) {
      worker.postMessage(packShare(share));
      return done;
    },
    stop: () => (done.catch(() => {}), worker.terminate()),
  };
}

/** The worker's failure as the error the CLI reports: an OutputPathError, or a file-system error with its code and path. */
function rebuiltError(f: Extract<WriteOutcome, { kind: 'failed' }>): Error {
  const e: Error & { code?: string; path?: string } = f.outputPath ? new OutputPathError(f.message) : new Error(f.message);
  if (f.code !== undefined) e.code = f.code;
  if (f.path !== undefined) e.path = f.path;
  if (f.stack !== undefined) e.stack = f.stack;
  return e;
}
