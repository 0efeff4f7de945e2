// `targets:` in pipec.yaml: the project's own default for --target of check and build. A project
// that opts into flink gets flink/ files from a plain `pipec build`, and its flink warnings fail
// `check --deny-warnings`; a project that does not never sees them; --target still overrides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipec } from './run-cli.ts';

// A datagen source with a random column: the Flink target reports flink-datagen-values.
const SPEC = `CREATE SOURCE s (id BIGINT, n INT) WITH (connector = 'datagen', total_rows = 10, fields.id.kind = 'sequence', fields.n.kind = 'random');
CREATE SINK o FROM s WITH (connector = 'file', path = 'out/o.ndjson', format = 'ndjson');
`;

function project(yaml: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-targets-'));
  mkdirSync(join(dir, 'specs'));
  writeFileSync(join(dir, 'specs', 'p.pipe.sql'), SPEC);
  if (yaml !== null) writeFileSync(join(dir, 'pipec.yaml'), yaml);
  return dir;
}

test('without targets: in pipec.yaml, build and check leave flink out', () => {
  const dir = project('specs: [specs]\n');
  assert.equal(pipec(['check', '--deny-warnings'], { cwd: dir }).status, 0);
  assert.equal(pipec(['build'], { cwd: dir }).status, 0);
  assert.ok(existsSync(join(dir, 'generated', 'p', 'plan.txt')));
  assert.ok(!existsSync(join(dir, 'generated', 'p', 'flink')), 'no flink files');
});

test('targets: [all, flink] builds the flink files and gates check --deny-warnings on its warnings', () => {
  const dir = project('specs: [specs]\ntargets: [all, flink]\n');
  const check = pipec(['check', '--deny-warnings'], { cwd: dir });
  assert.equal(check.status, 1, 'the flink warning fails --deny-warnings of a project that opted in');
  assert.match(check.stderr, /flink-datagen-values/);
  assert.equal(pipec(['check'], { cwd: dir }).status, 0, 'a warning alone does not fail check');
  assert.equal(pipec(['check', '--target', 'all', '--deny-warnings'], { cwd: dir }).status, 0, '--target overrides pipec.yaml');
  const build = pipec(['build'], { cwd: dir });
  assert.equal(build.status, 0, build.stderr);
  assert.ok(existsSync(join(dir, 'generated', 'p', 'flink', 'pipeline.sql')));
  assert.ok(existsSync(join(dir, 'generated', 'p', 'plan.txt')), 'and the default targets');
  assert.equal(pipec(['build', '--check'], { cwd: dir }).status, 0, '--check compares the same targets');
  const only = pipec(['build', '--check', '--target', 'all'], { cwd: dir });
  assert.equal(only.status, 1, 'built without flink, the flink files are extra');
  assert.match(only.stderr, /extra\s+generated\/p\/flink\/pipeline\.sql/);
});

test('a bad targets: value is an error naming pipec.yaml or the unknown target', () => {
  const bad = pipec(['build'], { cwd: project('targets: {flink: true}\n') });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /pipec\.yaml: 'targets' must be a target name or a list of them/);
  const unknown = pipec(['check'], { cwd: project('targets: [spark]\n') });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown target 'spark'/);
});
