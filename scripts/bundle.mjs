// Bundles the CLI into one ESM file (dist/pipec.mjs) so `pipec` starts without loading
// TypeScript or hundreds of modules: cold start is one file read.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/pipec.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  // Packages with native parts or heavy optional loaders stay external; they resolve from node_modules.
  packages: 'external',
  banner: { js: "import { createRequire as __pipecCreateRequire } from 'node:module'; const require = __pipecCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
