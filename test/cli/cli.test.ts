// End-to-end tests of the CLI as users run it: exit codes, diagnostics on stderr, --format
// json, explain, build --check against a stale tree, fmt round trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { PIPEC, pipec, repoRoot } from './run-cli.ts';

test('pipec with no command prints usage and exits 2', () => {
  const r = pipec([]);
  assert.equal(r.status, 2);
  assert.match(r.stdout, /usage:/);
});

test('pipec --version prints package.json\'s version; every command has --help and help <cmd>', () => {
  const version = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version;
  const v = pipec(['--version']);
  assert.equal(v.status, 0);
  assert.equal(v.stdout, `pipec ${version}\n`);
  for (const cmd of ['check', 'build', 'plan', 'run', 'diff', 'explain', 'fmt', 'compact', 'help']) {
    const h = pipec([cmd, '--help']);
    assert.equal(h.status, 0, `${cmd} --help: ${h.stderr}`);
    assert.match(h.stdout, new RegExp(`^usage: pipec ${cmd}\\b`), cmd);
    if (cmd !== 'help') assert.equal(pipec(['help', cmd]).stdout, h.stdout, `help ${cmd}`);
  }
  const overview = pipec(['help']);
  assert.equal(overview.status, 0);
  assert.match(overview.stdout, /pipec build \[paths\]/);
  const unknown = pipec(['help', 'bulid']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command 'bulid'/);
});

test('the CLI runs through a symlink to bin/pipec.mjs (npx, node_modules/.bin, npm link)', () => {
  // It used to compare import.meta.url with argv[1]: through a link it did nothing and exited 0.
  const dir = mkdtempSync(join(tmpdir(), 'pipec-link-'));
  try {
    const link = join(dir, 'pipec');
    symlinkSync(PIPEC, link);
    const r = spawnSync(process.execPath, [link, 'check', 'no-such.pipe.sql'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /no-such\.pipe\.sql/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pipec build with no paths in a project without specs/ says what to give, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-nospecs-'));
  try {
    const r = pipec(['build'], { cwd: dir });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no paths given and no specs\/ folder/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pipec check passes on every spec in specs/', () => {
  const r = pipec(['check', 'specs']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /checked \d+ specs: ok/);
});

test('pipec check reports every mistake of a file with file:line:col and exits 1', () => {
  const r = pipec(['check', 'test/golden/cases/invalid-many-mistakes/input.pipe.sql']);
  assert.equal(r.status, 1);
  // The case has five independent mistakes (see its header comment); all must be reported.
  const errors = r.stderr.match(/^error\[[a-z0-9-]+\]/gm) ?? [];
  assert.ok(errors.length >= 5, `expected at least 5 errors, got ${errors.length}:\n${r.stderr}`);
  assert.match(r.stderr, /--> test\/golden\/cases\/invalid-many-mistakes\/input\.pipe\.sql:\d+:\d+/);
  assert.doesNotMatch(r.stderr, /at .*\.ts:\d+:\d+\)/, 'no stack trace for a user error');
});

test('pipec check --format json gives machine-readable diagnostics', () => {
  const r = pipec(['check', '--format', 'json', 'test/golden/cases/invalid-name-unknown-column/input.pipe.sql']);
  assert.equal(r.status, 1);
  const ds = JSON.parse(r.stdout) as { code: string; line: number; column: number; help: string | null }[];
  const unknown = ds.find((d) => /amout/.test(JSON.stringify(d)));
  assert.ok(unknown, r.stdout);
  // Position of `amout` worked out from the file itself: 1-based line and column.
  const lines = readFileSync(join(repoRoot, 'test/golden/cases/invalid-name-unknown-column/input.pipe.sql'), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes('SUM(amout)')) + 1;
  assert.equal(unknown.line, line);
  assert.equal(unknown.column, lines[line - 1]!.indexOf('amout') + 1);
  assert.match(JSON.stringify(unknown), /amount/, 'suggests the right column');
});

test('pipec explain prints the long explanation of a code, and suggests on a typo', () => {
  const ok = pipec(['explain', 'missing-env-var']);
  assert.equal(ok.status, 0);
  assert.match(ok.stdout, /environment variable/);
  const typo = pipec(['explain', 'missing-env-vra']);
  assert.equal(typo.status, 1);
  assert.match(typo.stderr, /did you mean 'missing-env-var'/);
});

test('pipec explain kafka / kafka.startup print the connector\'s option docs from its descriptor', () => {
  const all = pipec(['explain', 'kafka']);
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stdout, /^source options:\n/m);
  assert.match(all.stdout, /^ {2}delivery \('exactly-once' \/ 'at-least-once', default at-least-once\)/m);
  const one = pipec(['explain', 'kafka.startup']);
  assert.equal(one.stdout, "kafka source option startup ('earliest' / 'latest' / 'committed', default committed) — Where a group without committed offsets starts.\n");
});

test('pipec build --check fails on a stale generated/ and passes after a build', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-cli-'));
  try {
    cpSync(join(repoRoot, 'specs'), join(dir, 'specs'), { recursive: true });
    cpSync(join(repoRoot, 'pipec.yaml'), join(dir, 'pipec.yaml'));
    const stale = pipec(['build', 'specs', '--check'], { cwd: dir });
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /is stale/);
    const built = pipec(['build', 'specs'], { cwd: dir });
    assert.equal(built.status, 0, built.stderr);
    const fresh = pipec(['build', 'specs', '--check'], { cwd: dir });
    assert.equal(fresh.status, 0, fresh.stderr);
    // A hand edit of a generated file is caught.
    const plan = join(dir, 'generated', 'quickstart', 'plan.txt');
    assert.ok(existsSync(plan));
    writeFileSync(plan, readFileSync(plan, 'utf8') + '\n-- edited by hand\n');
    const edited = pipec(['build', 'specs', '--check'], { cwd: dir });
    assert.equal(edited.status, 1);
    assert.match(edited.stderr, /changed\s+generated\/quickstart\/plan\.txt/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('generated/ holds the reviewable files; bundles go to dist/bundles and are pinned by a lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-bundles-'));
  try {
    cpSync(join(repoRoot, 'specs'), join(dir, 'specs'), { recursive: true });
    cpSync(join(repoRoot, 'pipec.yaml'), join(dir, 'pipec.yaml'));
    const built = pipec(['build', 'specs'], { cwd: dir });
    assert.equal(built.status, 0, built.stderr);
    assert.deepEqual(readdirSync(join(dir, 'generated', 'quickstart', 'runtime')).sort(), ['bundle.lock.json', 'pipeline.gen.mjs']);
    const bundlePath = join(dir, 'dist', 'bundles', 'quickstart', 'pipeline.mjs');
    const bundle = readFileSync(bundlePath);
    const lock = JSON.parse(readFileSync(join(dir, 'generated', 'quickstart', 'runtime', 'bundle.lock.json'), 'utf8'));
    assert.equal(lock.bundle.sha256, createHash('sha256').update(bundle).digest('hex'));
    assert.equal(lock.runtime, JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
    // --check compares only generated/: the bundle folder may be absent (it is git-ignored).
    rmSync(join(dir, 'dist'), { recursive: true });
    const fresh = pipec(['build', 'specs', '--check'], { cwd: dir });
    assert.equal(fresh.status, 0, fresh.stderr);
    assert.ok(!existsSync(join(dir, 'dist')), 'build --check writes nothing');
    // A lock that no longer matches the bundle a fresh build makes is stale; so is a bundle
    // left in generated/ by an older pipec.
    const lockPath = join(dir, 'generated', 'quickstart', 'runtime', 'bundle.lock.json');
    writeFileSync(lockPath, JSON.stringify({ ...lock, bundle: { ...lock.bundle, sha256: '0'.repeat(64) } }, null, 2) + '\n');
    writeFileSync(join(dir, 'generated', 'quickstart', 'runtime', 'pipeline.mjs'), bundle);
    const stale = pipec(['build', 'specs', '--check'], { cwd: dir });
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /changed\s+generated\/quickstart\/runtime\/bundle\.lock\.json/);
    assert.match(stale.stderr, /extra\s+generated\/quickstart\/runtime\/pipeline\.mjs/);
    // --bundle DIR puts the bundles elsewhere.
    const elsewhere = pipec(['build', 'specs/quickstart.pipe.sql', '--bundle', 'out/b'], { cwd: dir });
    assert.equal(elsewhere.status, 0, elsewhere.stderr);
    assert.ok(readFileSync(join(dir, 'out', 'b', 'quickstart', 'pipeline.mjs')).equals(bundle));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two builds of the same specs are byte-identical', () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'pipec-det-a-')), mkdtempSync(join(tmpdir(), 'pipec-det-b-'))];
  try {
    for (const d of dirs) {
      cpSync(join(repoRoot, 'specs'), join(d, 'specs'), { recursive: true });
      cpSync(join(repoRoot, 'pipec.yaml'), join(d, 'pipec.yaml'));
      const r = pipec(['build', 'specs'], { cwd: d });
      assert.equal(r.status, 0, r.stderr);
    }
    const cmp = pipec(['build', 'specs', '--check'], { cwd: dirs[1]! });
    assert.equal(cmp.status, 0);
    const listing = (d: string): string => JSON.stringify(readTree(join(d, 'generated')));
    assert.equal(listing(dirs[0]!), listing(dirs[1]!));
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

test('fmt --to yaml then --to sql round-trips: converting twice gives the same text back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-fmt-'));
  try {
    cpSync(join(repoRoot, 'specs'), join(dir, 'specs'), { recursive: true });
    const yaml1 = pipec(['fmt', '--to', 'yaml', 'specs/orders_revenue.pipe.sql'], { cwd: dir });
    assert.equal(yaml1.status, 0, yaml1.stderr);
    writeFileSync(join(dir, 'rt.pipe.yaml'), yaml1.stdout);
    const sql1 = pipec(['fmt', '--to', 'sql', 'rt.pipe.yaml'], { cwd: dir });
    assert.equal(sql1.status, 0, sql1.stderr);
    writeFileSync(join(dir, 'rt.pipe.sql'), sql1.stdout);
    const yaml2 = pipec(['fmt', '--to', 'yaml', 'rt.pipe.sql'], { cwd: dir });
    assert.equal(yaml2.stdout, yaml1.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
      else out[`${prefix}${e.name}`] = readFileSync(join(d, e.name)).toString('base64');
    }
  };
  walk(dir, '');
  return out;
}
