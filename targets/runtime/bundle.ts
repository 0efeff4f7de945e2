// Bundles a generated pipeline module with the runtime library into one ESM file that runs
// with plain `node` (no pipec, no node_modules). Deterministic: paths are relative to the
// package root and esbuild's output depends only on its inputs.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** The package root: the nearest ancestor holding targets/runtime/lib (works from src and from dist/). */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'targets', 'runtime', 'lib', 'index.ts'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('pipec: cannot locate targets/runtime/lib (is the package installed completely?)');
    dir = up;
  }
}

export const GEN_MODULE_NAME = './pipeline.gen.mjs';
/** The bundle's entry, given to esbuild as stdin (not a file). */
const ENTRY_NAME = 'pipeline-entry.mjs';

export interface PipelineBundle {
  text: string;
  /** The files esbuild read, relative to the package root (forward slashes, sorted). */
  inputs: string[];
}

export async function bundlePipeline(genModule: string): Promise<PipelineBundle> {
  const root = packageRoot();
  const libEntry = path.join(root, 'targets', 'runtime', 'lib', 'index.ts');
  const plugin: Plugin = {
    name: 'pipec-runtime',
    setup(b) {
      b.onResolve({ filter: /^@pipec\/runtime$/ }, () => ({ path: libEntry }));
      b.onResolve({ filter: /^\.\/pipeline\.gen\.mjs$/ }, () => ({ path: 'pipeline.gen.mjs', namespace: 'pipec-gen' }));
      b.onLoad({ filter: /.*/, namespace: 'pipec-gen' }, () => ({ contents: genModule, loader: 'js', resolveDir: root }));
    },
  };
  const result = await build({
    stdin: {
      contents: `import { definePipeline } from ${JSON.stringify(GEN_MODULE_NAME)};\nimport { main } from '@pipec/runtime';\nawait main(definePipeline);\n`,
      resolveDir: root,
      sourcefile: ENTRY_NAME,
      loader: 'js',
    },
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
    plugins: [plugin],
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile!.inputs)
    .filter((f) => !f.startsWith('pipec-gen:') && f !== ENTRY_NAME)
    .map((f) => f.split(path.sep).join('/'))
    .sort();
  return { text: result.outputFiles[0]!.text, inputs };
}
