// bin/pipec.mjs's V8 code cache (dist/cli/pipec-<hash>.<v8>-<arch>.cache): a copy of the built CLI
// (bin/ and dist/cli/ as `npm run build` leaves them) run without a cache, with a cache of garbage
// and with the cache disabled gives the same output and exit code each time; a missing or
// rejected cache is written after the run, and a good one is left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './run-cli.ts';

test('the code cache is written when missing or rejected, kept when good, and never changes what pipec prints', () => {
  // Inside the checkout (tmp/ is git-ignored), as an install is: the script requires some packages from node_modules.
  mkdirSync(join(repoRoot, 'tmp'), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, 'tmp', 'code-cache-'));
  try {
    const builtCli = join(repoRoot, 'dist', 'cli');
    const script = readdirSync(builtCli).find((f) => /^pipec-[0-9a-f]+\.cjs$/.test(f));
    assert.ok(script, 'npm run build made dist/cli/pipec-<hash>.cjs');
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    copyFileSync(join(repoRoot, 'bin', 'pipec.mjs'), join(dir, 'bin', 'pipec.mjs'));
    copyFileSync(join(builtCli, script), join(dir, 'dist', 'cli', script));
    const cacheFile = join(dir, 'dist', 'cli', `${script.replace(/\.cjs$/, '')}.${process.versions.v8}-${process.arch}.cache`);
    const check = (env: Record<string, string> = {}) => {
      // A spec with an error and warnings: exit code 1 and diagnostics on stderr.
      const r = spawnSync(process.execPath, [join(dir, 'bin', 'pipec.mjs'), 'check', 'specs/quickstart.pipe.sql', 'test/fixtures/nope.pipe.sql'], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', PIPEC_NO_CODE_CACHE: '', NODE_V8_COVERAGE: '', ...env },
      });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const disabled = check({ PIPEC_NO_CODE_CACHE: '1' });
    assert.equal(disabled.status, 1);
    assert.match(disabled.stderr, /flink-datagen-values/);
    assert.ok(!existsSync(cacheFile), 'PIPEC_NO_CODE_CACHE=1 writes no cache');

    assert.deepEqual(check(), disabled, 'first run, no cache');
    assert.ok(existsSync(cacheFile), 'the missing cache was written');
    const made = statSync(cacheFile);
    assert.deepEqual(check(), disabled, 'run with the cache');
    assert.equal(statSync(cacheFile).ino, made.ino, 'an accepted cache is not rewritten');

    writeFileSync(cacheFile, Buffer.alloc(made.size, 7));
    assert.deepEqual(check(), disabled, 'a garbage cache is rejected, same output');
    assert.notDeepEqual(readFileSync(cacheFile), Buffer.alloc(made.size, 7), 'the rejected cache was replaced');
    assert.deepEqual(readdirSync(join(dir, 'dist', 'cli')).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
