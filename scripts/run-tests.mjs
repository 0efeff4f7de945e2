// Runs the test files under the given folders (default: test/) with node's test runner.
// Node 20 does not expand globs in `node --test`, so this finds the files itself. It prints
// the spec reporter's output and ends with one plain `N passed, N failed` line read from a
// TAP copy of the results, so a run that executed no test is visible.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';

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

const files = roots.flatMap((r) => find(join(root, r))).map((f) => relative(root, f)).sort();
if (files.length === 0) {
  console.error(`run-tests: no *.test.ts files under ${roots.join(', ')}`);
  process.exit(1);
}
const tap = join(tmpdir(), `pipec-tests-${process.pid}.tap`);
const concurrency = process.env.PIPEC_TEST_CONCURRENCY ?? '1';
const r = spawnSync(
  process.execPath,
  // --test-force-exit: a test file whose client left a socket or timer open must not hang the run.
  ['--import', 'tsx', '--test', '--test-force-exit', '--test-timeout=900000', `--test-concurrency=${concurrency}`, '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
  { cwd: root, stdio: 'inherit' },
);
let passed = 0;
let failed = 0;
try {
  const text = readFileSync(tap, 'utf8');
  passed = Number(/^# pass (\d+)/m.exec(text)?.[1] ?? 0);
  failed = Number(/^# fail (\d+)/m.exec(text)?.[1] ?? 0) + Number(/^# cancelled (\d+)/m.exec(text)?.[1] ?? 0);
} catch {
  failed = failed || 1;
}
rmSync(tap, { force: true });
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(r.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
