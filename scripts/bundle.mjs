// Bundles the CLI and the library API. Runs as `npm run build` and as npm's `prepare` (so
// `npm ci` and `npm pack` build it). First it rewrites grammar/lookahead-table.gen.json when the
// grammar changed (scripts/lookahead-table.mjs) and src/syntax/yaml/schema-validator.gen.ts when
// the YAML schema changed (scripts/yaml-validator.mjs).
//
// - The CLI: one CommonJS script, dist/cli/pipec-<hash>.cjs (<hash>: of its bytes), that
//   bin/pipec.mjs compiles with V8's code cache (Node 20 has no code cache for ES modules; parsing
//   and compiling the bundle was a third of a cold `pipec check`). Each command's modules still
//   run only when the command is given: esbuild wraps what `main.ts` imports dynamically in lazy
//   initialisers, so `pipec check` runs neither the targets' runtime library nor the schema
//   libraries. The cache, dist/cli/pipec-<hash>.<v8 version>-<arch>.cache, is made here by one
//   `pipec check` of specs/quickstart.pipe.sql (it then holds the functions a check compiles), and
//   by bin/pipec.mjs when it is missing or V8 rejects it (another Node, other V8 flags).
// - The library API: dist/api.mjs (`import('pipec')`) and its lazily loaded chunks, dist/chunks,
//   built with the worker threads' entries: dist/run-worker.mjs (`pipec run --workers N`) and
//   dist/build-worker.mjs and dist/write-worker.mjs (a `pipec build` of many specs: compiling, writing).
// Files of earlier builds are removed: the package ships dist/cli and dist/chunks, and a stale
// file would ship with it.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeLookaheadTable } from './lookahead-table.mjs';
import { writeYamlValidator } from './yaml-validator.mjs';

const root = resolve(import.meta.dirname, '..');

/** Options both bundles share. */
function common(outdir) {
  return {
    absWorkingDir: root,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    legalComments: 'none',
    // Pure-JS dependencies are bundled (one file to read at start-up: chevrotain alone costs
    // ~0.7 s to import as a package tree). Packages with native parts stay external.
    external: ['esbuild', 'better-sqlite3', '@duckdb/node-api', 'pg-native', 'parquet-wasm'],
    logLevel: 'warning',
    write: false,
  };
}

/** Direct dependencies the CLI script leaves in node_modules (see cliBuildOptions). */
export const LAZY_PACKAGES = ['ajv', 'avsc', 'protobufjs', 'pg', 'pg-logical-replication', 'kafkajs', '@clickhouse/client', 'csv-parse', 'csv-stringify', 'tinyglobby'];

/**
 * The CLI bundle's esbuild options: one CommonJS file (`[name]` is `pipec`; bundleCli adds the
 * hash). Also used by test/unit/build/cold-start-modules.test.ts.
 */
export function cliBuildOptions(outdir) {
  return {
    ...common(outdir),
    entryPoints: { pipec: 'src/cli/main.ts' },
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    // Dependencies a check never runs (the schema libraries; the runtime's clients and file
    // formats, for `run`/`test`/`query`) are required from node_modules when first used: every top-level
    // function of the script costs its share of the code cache at each start. (Only packages
    // with a CommonJS build: require() of an ES module needs Node 20.19; hyparquet stays in.)
    external: [...common(outdir).external, ...LAZY_PACKAGES],
    // `import()` of an external package (DuckDB, better-sqlite3, esbuild: all CommonJS) becomes
    // `require`: a vm.Script's own `import()` needs Node's experimental vm loader option.
    supported: { 'dynamic-import': false },
    // An ASCII file without comments: V8 keeps it as a one-byte string (a single non-ASCII
    // character in a comment made the read a two-byte decode, ~25 ms) and has less to read.
    charset: 'ascii',
    minifyWhitespace: true,
    // The sources' `import.meta.url` (finding the package root, createRequire) is the script's URL.
    // `import.meta.resolve` is only called when a worker is started from the TypeScript sources
    // (src/build/start-worker.ts), never from this bundle: left undefined, not warned about.
    define: { 'import.meta.url': '__pipecScriptUrl', 'import.meta.resolve': 'undefined' },
    banner: { js: "const __pipecScriptUrl = require('node:url').pathToFileURL(__filename).href;" },
  };
}

/** The library API's and the worker threads' esbuild options: ES modules with lazily loaded chunks. */
export function apiBuildOptions(outdir) {
  return {
    ...common(outdir),
    entryPoints: { api: 'src/api.ts', 'run-worker': 'targets/runtime/run-worker.ts', 'build-worker': 'src/build/build-worker.ts', 'write-worker': 'src/build/write-worker.ts' },
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: "import { createRequire as __pipecCreateRequire } from 'node:module'; const require = __pipecCreateRequire(import.meta.url);" },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await bundleAll();

function writeOutputs(files) {
  for (const f of files) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.contents);
  }
}

/** Removes the files of `dir` not in `keep` (paths). */
function removeStale(dir, keep) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) if (!keep.has(join(dir, name))) rmSync(join(dir, name), { recursive: true, force: true });
}

async function bundleAll() {
  // The parser's lookahead table first: the bundles embed it (grammar/lookahead-table.ts).
  await writeLookaheadTable();
  // The `.pipe.yaml` validator, compiled ahead of time (no ajv at run time).
  writeYamlValidator();
  const dist = join(root, 'dist');

  const api = await build(apiBuildOptions(dist));
  writeOutputs(api.outputFiles);
  removeStale(join(dist, 'chunks'), new Set(api.outputFiles.map((f) => f.path)));

  const cliDir = join(dist, 'cli');
  const cli = await build(cliBuildOptions(cliDir));
  const script = cli.outputFiles.find((f) => f.path.endsWith('.cjs'));
  const map = cli.outputFiles.find((f) => f.path.endsWith('.cjs.map'));
  // bin/pipec.mjs reads the script as latin1 (a one-byte string, no UTF-8 decoding): that is
  // its text only when every byte is ASCII.
  const nonAscii = script.contents.findIndex((b) => b > 0x7f);
  if (nonAscii >= 0) throw new Error(`pipec: the CLI bundle must be ASCII; found a non-ASCII byte near ${JSON.stringify(script.text.slice(Math.max(0, nonAscii - 60), nonAscii + 20))} (write it as an escape)`);
  const name = `pipec-${createHash('sha256').update(script.contents).digest('hex').slice(0, 16)}.cjs`;
  const text = script.text.replace(/\/\/# sourceMappingURL=pipec\.cjs\.map\n?$/, `//# sourceMappingURL=${name}.map\n`);
  writeOutputs([
    { path: join(cliDir, name), contents: text },
    { path: join(cliDir, `${name}.map`), contents: map.contents },
  ]);
  // Everything else in dist/cli is an earlier build's (its script, its code caches).
  removeStale(cliDir, new Set([join(cliDir, name), join(cliDir, `${name}.map`)]));
  // Before dist/cli, the CLI was dist/pipec.mjs and shared dist/chunks with the API.
  for (const old of ['pipec.mjs', 'pipec.mjs.map']) rmSync(join(dist, old), { force: true });

  // The code cache: one check as a user runs it (bin/pipec.mjs writes the cache when it has none).
  const spec = join('specs', 'quickstart.pipe.sql');
  if (existsSync(join(root, spec))) {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'pipec.mjs'), 'check', spec], { cwd: root, encoding: 'utf8', env: { ...process.env, PIPEC_NO_CODE_CACHE: '' } });
    if (r.status !== 0) throw new Error(`pipec: the freshly built CLI failed on ${spec}:\n${r.stderr}`);
    if (!readdirSync(cliDir).some((f) => f.startsWith(basename(name, '.cjs')) && f.endsWith('.cache'))) process.stderr.write('pipec: note: no code cache was written (dist/cli not writable?)\n');
  }
}
