// `pipec.yaml` profiles reach every command, `pipec run` included (issue 12 item 7: `check`
// passed while `run` said the variable was not set). The file sink's path comes from the
// profile, so the file the run writes says which value the runtime got.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipec } from './run-cli.ts';

const SPEC = `CREATE SOURCE ticks (id BIGINT NOT NULL) WITH (connector = 'datagen', total_rows = 5, fields.id.kind = 'sequence');
CREATE SINK out FROM ticks WITH (connector = 'file', path = '\${PIPEC_TEST_PROFILE_OUT}', format = 'ndjson');
`;

const CONFIG = `default_profile: dev
profiles:
  dev:
    PIPEC_TEST_PROFILE_OUT: out/dev.ndjson
  ci:
    PIPEC_TEST_PROFILE_OUT: out/ci.ndjson
`;

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-profiles-'));
  writeFileSync(join(dir, 'pipec.yaml'), CONFIG);
  writeFileSync(join(dir, 'ticks.pipe.sql'), SPEC);
  return dir;
}

const rows = (file: string): number => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;

test('pipec run takes ${VAR} from default_profile, as check does', (t) => {
  const dir = project();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(pipec(['check', 'ticks.pipe.sql'], { cwd: dir }).status, 0);
  const r = pipec(['run', 'ticks.pipe.sql'], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(rows(join(dir, 'out/dev.ndjson')), 5);
});

test('pipec run --profile picks another profile', (t) => {
  const dir = project();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = pipec(['run', 'ticks.pipe.sql', '--profile', 'ci'], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(rows(join(dir, 'out/ci.ndjson')), 5);
  assert.ok(!existsSync(join(dir, 'out/dev.ndjson')), 'the default profile was not used');
});

test('the environment overrides the profile under pipec run', (t) => {
  const dir = project();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = pipec(['run', 'ticks.pipe.sql', '--profile', 'ci'], { cwd: dir, env: { PIPEC_TEST_PROFILE_OUT: 'out/env.ndjson' } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(rows(join(dir, 'out/env.ndjson')), 5);
  assert.ok(!existsSync(join(dir, 'out/ci.ndjson')), 'the profile value lost to the environment');
});

test('an unknown --profile is a clear error for run as for check', (t) => {
  const dir = project();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const cmd of ['check', 'run']) {
    const r = pipec([cmd, 'ticks.pipe.sql', '--profile', 'prod'], { cwd: dir });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /profile 'prod' is not defined in pipec\.yaml \(profiles: dev, ci\)/);
  }
});
