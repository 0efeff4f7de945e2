// `pipec init` in a fresh folder: the project it writes passes `pipec check --deny-warnings`,
// `pipec test` and `pipec build --check` at once (what its CI workflow runs), runs with
// `pipec run`, and a second init refuses to overwrite it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pipec } from './run-cli.ts';

test('pipec init writes a project that passes check --deny-warnings, test and build --check, and runs', () => {
  const parent = mkdtempSync(join(tmpdir(), 'pipec-init-'));
  writeFileSync(join(parent, 'keep.txt'), 'x');
  const r = pipec(['init', 'proj'], { cwd: parent });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const dir = join(parent, 'proj');
  for (const f of ['specs/page_counts.pipe.sql', 'specs/page_counts.pipe.test.yaml', 'pipec.yaml', '.github/workflows/pipec.yml', '.gitignore', 'generated/page_counts/runtime/pipeline.gen.mjs']) {
    assert.ok(existsSync(join(dir, f)), `${f} written`);
  }
  const ci = readFileSync(join(dir, '.github/workflows/pipec.yml'), 'utf8');
  for (const cmd of ['pipec check --deny-warnings', 'pipec test', 'pipec build --check']) assert.ok(ci.includes(`run: ${cmd}`), cmd);
  assert.match(readFileSync(join(dir, '.gitignore'), 'utf8'), /^out\/$/m);
  assert.match(readFileSync(join(dir, 'pipec.yaml'), 'utf8'), /default_profile: local\nprofiles:\n  local:/);

  const check = pipec(['check', '--deny-warnings'], { cwd: dir });
  assert.equal(check.status, 0, check.stderr);
  const t = pipec(['test'], { cwd: dir });
  assert.equal(t.status, 0, t.stdout + t.stderr);
  assert.match(t.stdout, /2 passed, 0 failed/);
  const b = pipec(['build', '--check'], { cwd: dir });
  assert.equal(b.status, 0, b.stdout + b.stderr);

  // 1000 views at 100 ms: 100 s of event time, two minutes, three pages each.
  const run = pipec(['run', 'specs/page_counts.pipe.sql'], { cwd: dir });
  assert.equal(run.status, 0, run.stderr);
  const rows = readFileSync(join(dir, 'specs/out/page_counts_1m.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { views: number });
  assert.equal(rows.length, 6);
  assert.equal(rows.reduce((a, x) => a + x.views, 0), 1000);

  const again = pipec(['init', 'proj'], { cwd: parent });
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already exist.*nothing written/);
});
