#!/usr/bin/env node
// The `pipec` command: loads the bundled CLI (dist/cli/pipec-<hash>.cjs, built by `npm run build`
// and by npm's prepare/prepack scripts) and calls its entry. Works through any symlink (npx, npm
// link, node_modules/.bin, global installs): the CLI never guesses whether it is the main module.
//
// The bundle is compiled with V8's code cache (dist/cli/pipec-<hash>.<v8>-<arch>.cache): Node 20
// caches no compiled code itself, and parsing the bundle was a third of a cold `pipec check`. The
// cache belongs to one bundle (its name holds the bundle's hash: V8 itself checks only the
// source's length) and one V8 (version in the name; V8 rejects it under other flags). When it is
// missing or rejected, it is written after the command ran (then it holds what the command
// compiled), to a temporary file renamed into place; an unwritable folder only means no cache.
// PIPEC_NO_CODE_CACHE=1 neither reads nor writes it.
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const dir = fileURLToPath(new URL('../dist/cli/', import.meta.url));
let script;
try {
  script = readdirSync(dir).find((f) => /^pipec-[0-9a-f]+\.cjs$/.test(f));
} catch {
  // no dist/cli
}
if (script === undefined) {
  process.stderr.write('pipec: the CLI bundle is missing; run `npm run build` in the pipec checkout first\n');
  process.exit(2);
}
const file = join(dir, script);
const cacheFile = join(dir, `${script.slice(0, -'.cjs'.length)}.${process.versions.v8}-${process.arch}.cache`);
// Coverage instruments the compiled code: such a process neither reads nor writes the cache.
const useCache = !process.env.PIPEC_NO_CODE_CACHE && !process.env.NODE_V8_COVERAGE;
let cachedData;
if (useCache) {
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
}
// The CommonJS module wrapper (the bundle is a CommonJS module; `require` resolves from dist/cli).
// Read as latin1: the build keeps the file ASCII, and a one-byte string skips UTF-8 decoding.
const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'latin1')}\n})`;
// The bundle has no `import()` (scripts/bundle.mjs turns it into `require`).
const compiled = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
if (useCache && (cachedData === undefined || compiled.cachedDataRejected)) {
  process.once('exit', () => {
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, compiled.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // A read-only install: no cache, the same result.
      rmSync(tmp, { force: true });
    }
  });
}
const cjs = { exports: {} };
compiled.runInThisContext().call(cjs.exports, cjs.exports, createRequire(file), cjs, file, dirname(file));
await cjs.exports.runCli(process.argv.slice(2));
