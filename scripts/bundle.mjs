// Bundles the CLI (dist/pipec.mjs plus lazily loaded chunks, one per command's needs) so `pipec`
// starts without loading TypeScript or hundreds of package modules, and the library API
// (dist/api.mjs, `import('pipec')`; it shares the chunks). Runs as `npm run build` and
// as npm's `prepare` (so `npm ci` and `npm pack` build it). Chunks of earlier builds are removed:
// the package ships dist/chunks/*.mjs, and a stale chunk would ship with it. First it rewrites
// grammar/lookahead-table.gen.json when the grammar changed (scripts/lookahead-table.mjs) and
// src/syntax/yaml/schema-validator.gen.ts when the YAML schema changed (scripts/yaml-validator.mjs).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeLookaheadTable } from './lookahead-table.mjs';
import { writeYamlValidator } from './yaml-validator.mjs';

/** The CLI bundle's esbuild options (also used by test/unit/build/cold-start-modules.test.ts). */
export function cliBuildOptions(outdir) {
  return {
    entryPoints: { pipec: 'src/cli/main.ts', api: 'src/api.ts', 'build-worker': 'src/build/build-worker.ts' },
    absWorkingDir: resolve(import.meta.dirname, '..'),
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    legalComments: 'none',
    // Pure-JS dependencies are bundled (one file to read at start-up: chevrotain alone costs
    // ~0.7 s to import as a package tree). Packages with native parts stay external.
    external: ['esbuild', 'better-sqlite3', '@duckdb/node-api', 'pg-native', 'parquet-wasm'],
    banner: { js: "import { createRequire as __pipecCreateRequire } from 'node:module'; const require = __pipecCreateRequire(import.meta.url);" },
    logLevel: 'warning',
    write: false,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await bundleCli();

async function bundleCli() {
  // The parser's lookahead table first: the CLI bundle embeds it (grammar/lookahead-table.ts).
  await writeLookaheadTable();
  // The `.pipe.yaml` validator, compiled ahead of time (no ajv at run time).
  writeYamlValidator();
  const outdir = resolve(import.meta.dirname, '..', 'dist');
  const result = await build(cliBuildOptions(outdir));
  const written = new Set();
  for (const f of result.outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.contents);
    written.add(f.path);
  }
  const chunks = join(outdir, 'chunks');
  for (const name of readdirSync(chunks)) if (!written.has(join(chunks, name))) rmSync(join(chunks, name));
}
