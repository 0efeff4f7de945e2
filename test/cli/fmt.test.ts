// `pipec fmt` as a user runs it (issue 13 item 8): it prints by default and changes a file only
// with --write; --check is the CI gate; --diff is a patch that `patch` applies to give exactly
// what --write writes; the user's notation (`30 PERCENT`) survives; the shipped specs are formatted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipec, repoRoot } from './run-cli.ts';

const UNFORMATTED = `-- a comment that must stay
PIPELINE p WITH (checkpoint_interval = '30 s');
CREATE SOURCE s (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (connector = 'datagen', total_rows = '10');
CREATE SINK lake FROM s WITH (connector = 'iceberg', catalog = 'c', table = 'db.t');
CREATE CATALOG c WITH (type = 'filesystem', warehouse = '\${PIPEC_WAREHOUSE}');
CREATE COMPACTION POLICY m ON lake (REWRITE DELETE FILES WHERE delete_ratio > 30 PERCENT) SCHEDULE EVERY INTERVAL '1' HOUR;
`;

function project(): { dir: string; file: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-fmt-'));
  const file = join(dir, 'p.pipe.sql');
  writeFileSync(file, UNFORMATTED);
  return { dir, file, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('fmt prints the formatted spec and leaves the file alone; --write writes exactly that', () => {
  const p = project();
  try {
    const shown = pipec(['fmt', 'p.pipe.sql'], { cwd: p.dir });
    assert.equal(shown.status, 0, shown.stderr);
    assert.equal(readFileSync(p.file, 'utf8'), UNFORMATTED);
    assert.notEqual(shown.stdout, UNFORMATTED);
    assert.match(shown.stdout, /^-- a comment that must stay$/m);
    assert.match(shown.stdout, /delete_ratio > 30 PERCENT/);
    assert.equal(pipec(['fmt', '--check', 'p.pipe.sql'], { cwd: p.dir }).status, 1);
    const w = pipec(['fmt', '--write', 'p.pipe.sql'], { cwd: p.dir });
    assert.equal(w.status, 0, w.stderr);
    assert.equal(readFileSync(p.file, 'utf8'), shown.stdout);
    assert.equal(pipec(['fmt', '--check', 'p.pipe.sql'], { cwd: p.dir }).status, 0);
    // Formatting is a fixpoint: a formatted file prints unchanged.
    assert.equal(pipec(['fmt', 'p.pipe.sql'], { cwd: p.dir }).stdout, shown.stdout);
  } finally {
    p.done();
  }
});

test('fmt --diff is a unified diff that patch(1) applies to give what --write writes', () => {
  const p = project();
  try {
    const want = pipec(['fmt', 'p.pipe.sql'], { cwd: p.dir }).stdout;
    const d = pipec(['fmt', '--diff', 'p.pipe.sql'], { cwd: p.dir });
    assert.equal(d.status, 0, d.stderr);
    assert.match(d.stdout, /^--- a\/p\.pipe\.sql/m);
    assert.equal(readFileSync(p.file, 'utf8'), UNFORMATTED, '--diff changed the file');
    const applied = spawnSync('patch', ['-p1', '-s'], { cwd: p.dir, input: d.stdout, encoding: 'utf8' });
    assert.equal(applied.status, 0, applied.stderr + applied.stdout);
    assert.equal(readFileSync(p.file, 'utf8'), want);
    assert.equal(pipec(['fmt', '--diff', 'p.pipe.sql'], { cwd: p.dir }).stdout, '', 'no diff once formatted');
    assert.equal(pipec(['fmt', '--diff', '--check', 'p.pipe.sql'], { cwd: p.dir }).status, 0);
  } finally {
    p.done();
  }
});

test('the shipped specs are formatted (fmt --check passes on specs/)', () => {
  const r = pipec(['fmt', '--check', 'specs'], { cwd: repoRoot });
  assert.equal(r.status, 0, r.stderr);
});
