// The pipeline option `dead_letter_path` reaches the running pipeline through the physical plan
// (PhysicalPlan.pipeline.deadLetterPath, shown by `pipec plan --physical`): `pipec run` writes the
// undecodable record there, relative to the spec's folder, and not to the default file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pipec } from './run-cli.ts';

const SPEC = `PIPELINE dl WITH (dead_letter_path = 'rejects/bad.ndjson');
CREATE SOURCE s (id BIGINT NOT NULL, name STRING) WITH (connector = 'file', path = 'in.ndjson', format = 'ndjson');
CREATE SINK out FROM s WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

test('dead_letter_path: the plan shows it and pipec run writes the bad record there', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-dead-letter-path-'));
  writeFileSync(path.join(dir, 'dl.pipe.sql'), SPEC);
  writeFileSync(path.join(dir, 'in.ndjson'), '{"id": 1, "name": "a"}\n{"id": "not a number", "name": "b"}\n{"id": 3, "name": "c"}\n');
  const plan = pipec(['plan', 'dl.pipe.sql', '--physical'], { cwd: dir });
  assert.equal(plan.status, 0, plan.stderr);
  assert.match(plan.stdout, /^physical plan v4 of pipeline dl, checkpoint every [^\n]*, dead letters to rejects\/bad\.ndjson$/m);
  const run = pipec(['run', 'dl.pipe.sql'], { cwd: dir });
  assert.equal(run.status, 0, run.stderr);
  const bad = readFileSync(path.join(dir, 'rejects', 'bad.ndjson'), 'utf8').trim().split('\n');
  assert.equal(bad.length, 1);
  assert.match(bad[0]!, /not a number/);
  assert.ok(!existsSync(path.join(dir, 'dl.dead-letters.ndjson')), 'not the default file');
  assert.deepEqual(readFileSync(path.join(dir, 'out.ndjson'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id), [1, 3]);
});
