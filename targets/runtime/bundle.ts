// Bundles a generated pipeline for plain `node` (no pipec, no node_modules): a folder with the
// pipeline's own small module `pipeline.mjs` and `runtime.mjs`, one esbuild bundle of the runtime
// library core plus the runtime modules (connectors, formats) the pipeline uses. The library
// bundle depends only on that set of modules, so a build makes it once per set and every pipeline
// using the set shares the same bytes (a build of 1,000 specs runs esbuild a handful of times,
// not 1,000). Deterministic: paths are relative to the package root and esbuild's output depends
// only on its inputs.
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ALL_RUNTIME_MODULES } from '../../src/connectors/runtime-modules.ts';

// Looked up once per process: every pipeline of a build asks (its bundle lock names the root).
let knownRoot: string | undefined;

/** The package root: the nearest ancestor holding targets/runtime/lib (works from src and from dist/). */
export function packageRoot(): string {
  if (knownRoot === undefined) knownRoot = findPackageRoot();
  return knownRoot;
}

function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'targets', 'runtime', 'lib', 'index.ts'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('pipec: cannot locate targets/runtime/lib (is the package installed completely?)');
    dir = up;
  }
}

/** The library bundle, next to `pipeline.mjs` in the bundle folder. */
export const RUNTIME_FILE = 'runtime.mjs';
/** The library bundle's entry, given to esbuild as stdin (not a file). */
const ENTRY_NAME = 'runtime-entry.mjs';

export interface LibraryBundle {
  text: string;
  sha256: string;
  bytes: number;
  /** The runtime modules in it (sorted names). */
  modules: string[];
  /** The files esbuild read, relative to the package root (forward slashes, sorted). */
  inputs: string[];
}

export interface PipelineBundle {
  /** `pipeline.mjs`: the generated module importing from `./runtime.mjs`, then `main`. */
  text: string;
  library: LibraryBundle;
  /** The library's inputs (what the lock's digest covers). */
  inputs: string[];
}

// One library bundle per set of modules and process: every pipeline of a build that uses the
// same connectors gets the same bytes without another esbuild run.
const libraries = new Map<string, Promise<LibraryBundle>>();

export function bundleLibrary(modules: readonly string[]): Promise<LibraryBundle> {
  const names = [...new Set(modules)].sort();
  const key = names.join(',');
  let p = libraries.get(key);
  if (!p) {
    p = buildLibrary(names);
    libraries.set(key, p);
    p.catch(() => libraries.delete(key));
  }
  return p;
}

async function buildLibrary(names: string[]): Promise<LibraryBundle> {
  const root = packageRoot();
  const refs = names.map((n) => {
    const r = ALL_RUNTIME_MODULES.find((m) => m.module === n);
    if (!r) throw new Error(`pipec: no runtime module '${n}'`);
    return r;
  });
  const lines = ["export * from './targets/runtime/lib/index.ts';", ...refs.map((r) => `export { ${r.binding} } from './targets/runtime/lib/modules/${r.module}.ts';`)];
  const result = await build({
    stdin: { contents: lines.join('\n') + '\n', resolveDir: root, sourcefile: ENTRY_NAME, loader: 'js' },
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    // Fixed here, not read from tsconfig.json files on disk: installed under a user's
    // node_modules, esbuild would otherwise pick up the user's tsconfig and the bundle would
    // depend on it.
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
    // Module paths (they appear in the bundle) as seen from the package root, not resolved
    // through symlinks: a checkout whose node_modules is a link builds the same bytes.
    preserveSymlinks: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    // Native addons cannot be bundled: the SQLite Iceberg catalog loads better-sqlite3 lazily
    // from wherever the pipeline runs (a clear error says so when it is not installed).
    external: ['better-sqlite3'],
    banner: { js: "import { createRequire as __pipecCreateRequire } from 'node:module'; const require = __pipecCreateRequire(import.meta.url);" },
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile!.inputs)
    .filter((f) => f !== ENTRY_NAME)
    .map((f) => f.split(path.sep).join('/'))
    .sort();
  const text = result.outputFiles[0]!.text;
  return { text, sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text), modules: names, inputs };
}

/**
 * The bundle of one pipeline: `entry` is its generated module importing from `./runtime.mjs`
 * and calling `main` (plain JS already: nothing to compile), `modules` the runtime modules it uses.
 */
export async function bundlePipeline(entry: string, modules: readonly string[]): Promise<PipelineBundle> {
  const library = await bundleLibrary(modules);
  return { text: entry, library, inputs: library.inputs };
}
