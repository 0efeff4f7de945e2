// Runs the given test files and the test files under the given folders (default: test/) with node's test runner.
// Node 20 does not expand globs in `node --test`, so this finds the files itself. It prints
// the spec reporter's output and ends with one plain `N passed, N failed` line read from its
// closing counts, so a run that executed no test is visible.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['test'];
const SKIP = new Set(['node_modules', '.cache', '.state', 'fixtures', 'bench']);

function find(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) out.push(...find(join(dir, e.name)));
    } else if (e.name.endsWith('.test.ts')) {
      out.push(join(dir, e.name));
    }
  }
  return out;
}

const files = roots.flatMap((r) => (statSync(join(root, r)).isFile() ? [join(root, r)] : find(join(root, r)))).map((f) => relative(root, f)).sort();
if (files.length === 0) {
  console.error(`run-tests: no *.test.ts files under ${roots.join(', ')}`);
  process.exit(1);
}
const concurrency = process.env.PIPEC_TEST_CONCURRENCY ?? '1';
// The spec reporter's output is passed through and read for its closing counts (a reporter
// writing to a file would not be flushed when --test-force-exit ends the run).
const child = spawn(
  process.execPath,
  // --test-force-exit: a test file whose client left a socket or timer open must not hang the run.
  ['--import', 'tsx', '--test', '--test-force-exit', '--test-timeout=900000', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] },
);
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  // Long enough to hold the closing counts even when a long list of failures follows them.
  tail = (tail + chunk.toString('utf8')).slice(-400_000);
});
const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
const count = (label) => Number(new RegExp(`ℹ ${label} (\\d+)\\s*$`, 'm').exec(tail)?.[1] ?? 0);
const passed = count('pass');
const failed = count('fail') + count('cancelled') || (status === 0 ? 0 : 1);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(status === 0 && failed === 0 && passed > 0 ? 0 : 1);
