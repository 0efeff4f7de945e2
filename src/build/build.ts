// `pipec build`: compile every spec, run the chosen targets, and write (or, with --check,
// compare) `generated/<pipeline>/...` — the files a reviewer reads. Runnable bundles go to a
// separate, git-ignored folder (`<bundleDir>/<pipeline>/...`) and are never compared.
// Output is deterministic: sorted inputs, no clock times.
// Writing and comparing live in write-outputs.ts (paths confined to --out, manifest-based cleaning).
import type { Target } from '../plan/physical/target-api.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import type { CompileResult } from './compile.ts';
import { compileSpec, type SpecWorkOptions } from './spec-work.ts';
import { compileInParallel, parallelThreads, type ParallelOptions } from './build-parallel.ts';
import { inFolders, OutputRoot, sameBytesAsync } from './write-outputs.ts';
import { link, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface BuildOptions {
  cwd: string;
  env: EnvResolver;
  files: string[];
  targets: Target[];
  outDir: string;
  /** Run the targets for their diagnostics only (`pipec check`): they may skip costly output. */
  diagnosticsOnly?: boolean;
  /** Spec texts by path instead of the files on disk (the library API). */
  readText?: (path: string) => string | null;
  /**
   * A file generated earlier for a pipeline (the Iceberg field-id locks), relative to its
   * output folder. Default: read it from `<outDir>/<pipeline>/` on disk.
   */
  readPrevious?: (pipeline: string, path: string) => string | null;
  /**
   * Lets a build of many specs compile them in worker threads, one per core (build-parallel.ts):
   * the same outputs, diagnostics and diagnostics order as one thread. Workers cannot share
   * `env`, so it is given again as plain values. Used only without readText/readPrevious, and
   * for builds large enough to repay a worker's start-up. The `results` of specs compiled in a
   * worker hold their diagnostics only (`text`, `ast` and `plan` are null).
   */
  parallel?: ParallelOptions;
}

export interface BuildResult {
  results: CompileResult[];
  /** Relative to outDir → contents: the reviewable files. */
  outputs: Map<string, string | Uint8Array>;
  /** Relative to the bundle folder (`<pipeline>/pipeline.mjs`) → contents. */
  bundles: Map<string, string | Uint8Array>;
  /** Pipelines whose outputs were produced (their folders are owned by the build). */
  pipelines: string[];
  ok: boolean;
}

export async function buildSpecs(opts: BuildOptions): Promise<BuildResult> {
  const results: CompileResult[] = [];
  const outputs = new Map<string, string | Uint8Array>();
  const bundles = new Map<string, string | Uint8Array>();
  const pipelines: string[] = [];
  // Keyed case-insensitively: `"A"` and `"a"` share a folder on macOS and Windows file systems.
  const owner = new Map<string, string>();
  const root = new OutputRoot(opts.cwd, opts.outDir);
  const work: SpecWorkOptions = {
    cwd: opts.cwd,
    env: opts.env,
    targets: opts.targets,
    diagnosticsOnly: opts.diagnosticsOnly ?? false,
    ...(opts.readText ? { readText: opts.readText } : {}),
    // Through the output guard: a name that slipped past the checker reads nothing outside --out.
    readPrevious: (name, p) => (opts.readPrevious ? opts.readPrevious(name, p) : (root.read(`${name}/${p}`)?.toString('utf8') ?? null)),
  };
  // Many specs: compiled on every core up front (build-parallel.ts). Otherwise one at a time,
  // each spec's targets run only once it is known to be kept.
  const threads = parallelThreads(opts);
  const parallel = threads > 1 ? await compileInParallel(opts.files, work, { ...opts.parallel!, threads, outDir: opts.outDir }) : null;
  for (const [i, file] of opts.files.entries()) {
    const spec = parallel ? parallel[i]! : await compileSpec(file, work);
    const r = spec.result;
    results.push(r);
    if (!spec.pipeline) continue;
    const { name, at } = spec.pipeline;
    const prev = owner.get(name.toLowerCase());
    if (prev) {
      r.diagnostics.report('duplicate-pipeline-name', at, { name, other: prev });
      continue;
    }
    owner.set(name.toLowerCase(), file);
    // The plan text reports nothing: `pipec check` (diagnosticsOnly) does not print it.
    const mine = new Map<string, string | Uint8Array>([[`${name}/plan.txt`, opts.diagnosticsOnly ? '' : spec.planText()]]);
    const myBundles = new Map<string, string | Uint8Array>();
    const folded = new Map<string, string>([[`${name}/plan.txt`.toLowerCase(), 'plan.txt']]);
    for (const emission of await spec.emit()) {
      r.diagnostics.addAll(emission.diagnostics);
      for (const f of emission.files) {
        const rel = `${name}/${f.path}`;
        if (f.output === 'bundle') {
          myBundles.set(rel, f.contents);
          continue;
        }
        // Two outputs on one path (or on paths that differ only in case) would overwrite each other.
        const clash = folded.get(rel.toLowerCase());
        if (clash !== undefined) r.diagnostics.report('output-path-collision', at, { pipeline: name, path: f.path, other: clash });
        else {
          folded.set(rel.toLowerCase(), f.path);
          mine.set(rel, f.contents);
        }
      }
    }
    if (r.diagnostics.hasErrors) continue;
    pipelines.push(name);
    for (const [k, v] of mine) outputs.set(k, v);
    for (const [k, v] of myBundles) bundles.set(k, v);
  }
  const ok = results.every((r) => !r.diagnostics.hasErrors);
  return { results, outputs, bundles, pipelines, ok };
}

export { compareOutputs, writeOutputs, OutputPathError, type StaleReport, type WriteReport } from './write-outputs.ts';

/** Where `pipec build` puts runnable bundles unless `--bundle DIR` says otherwise. */
export const DEFAULT_BUNDLE_DIR = 'dist/bundles';

/**
 * Writes the runnable bundles under bundleDir (git-ignored, never compared). Through the same guard
 * as --out: a path outside bundleDir is refused. Pipelines with the same runtime modules share
 * one library bundle (the same contents object): it is written once and hard-linked into the
 * other folders (copied where links fail), so each folder stays self-contained and 1,000
 * pipelines do not write 1,000 copies. Folders are written concurrently, as --out's are.
 */
export async function writeBundles(cwd: string, bundleDir: string, build: BuildResult): Promise<void> {
  const root = new OutputRoot(cwd, bundleDir);
  // Contents object → the first file written with it (and that file's identity, for links),
  // once that file is there: the folders after it link to it.
  const written = new Map<string | Uint8Array, Promise<Identity | null>>();
  const made = new Set<string>(); // one mkdir per folder
  const targets = [...build.bundles.keys()].sort().map((rel) => [rel, root.path(rel)] as const);
  await inFolders(targets, async (rel, full) => {
    const contents = build.bundles.get(rel)!;
    const dir = dirname(full);
    if (!made.has(dir)) {
      made.add(dir);
      await mkdir(dir, { recursive: true });
    }
    const earlier = written.get(contents);
    let settle: ((id: Identity | null) => void) | undefined;
    if (earlier === undefined) written.set(contents, new Promise((r) => (settle = r)));
    try {
      const first = earlier === undefined ? undefined : await earlier;
      const st = await lstat(full).catch(() => undefined);
      if (st !== undefined) {
        // Unchanged since the last build (the same bytes; for a shared library, already the same
        // file as the first folder's): left alone.
        const same = first === undefined ? st.isFile() && (await sameBytesAsync(full, st.size, contents)) : first !== null && st.isFile() && st.ino === first.ino && st.dev === first.dev;
        if (same) {
          settle?.({ path: full, ino: st.ino, dev: st.dev });
          return;
        }
        // A previous build's file is replaced, never written through: it may be a hard link
        // shared with a folder this build does not touch.
        await rm(full, { force: true });
      }
      if (first && (await linkTo(first.path, full))) return;
      await writeFile(full, contents);
      settle?.(await identity(full));
    } finally {
      settle?.(null); // a failure: later folders copy instead of linking (a no-op once settled)
    }
  });
}

interface Identity {
  path: string;
  ino: number;
  dev: number;
}

async function identity(path: string): Promise<Identity | null> {
  const st = await lstat(path).catch(() => undefined);
  return st ? { path, ino: st.ino, dev: st.dev } : null;
}

async function linkTo(existing: string, full: string): Promise<boolean> {
  try {
    await link(existing, full);
    return true;
  } catch {
    return false;
  }
}
