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

export async function bundlePipeline(genModule: string): Promise<string> {
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
      sourcefile: 'pipeline-entry.mjs',
      loader: 'js',
    },
    absWorkingDir: root,
    bundle: true,
    write: false,
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
  return result.outputFiles[0]!.text;
}
