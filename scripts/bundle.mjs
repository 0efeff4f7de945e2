// Bundles the CLI (dist/pipec.mjs plus lazily loaded chunks, one per command's needs) so `pipec`
// starts without loading TypeScript or hundreds of package modules.
import { build } from 'esbuild';

await build({
  entryPoints: { pipec: 'src/cli/main.ts' },
  outdir: 'dist',
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
});
