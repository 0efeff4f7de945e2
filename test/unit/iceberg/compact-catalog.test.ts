// `pipec compact` opens the catalog the physical plan names, with its `${VAR}` options substituted
// from the run's variables (profile overlaid by the environment), never from values held in the
// plan; a variable the run lacks is a sentence naming it, not a trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runCompaction } from '../../../targets/iceberg/compact.ts';

const SPEC = `
CREATE SOURCE s (id BIGINT) WITH (connector = 'datagen', total_rows = '10');
CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '\${LAKE_DIR}/wh');
CREATE SINK l FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'a.t');
CREATE COMPACTION POLICY keep ON l (EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY);
`;

async function planWith(lakeDir: string) {
  const r = await compileFile('p.pipe.sql', { cwd: '/', readText: () => SPEC, env: { get: (n) => (n === 'LAKE_DIR' ? lakeDir : undefined) } });
  assert.ok(r.plan && !r.diagnostics.hasErrors, r.diagnostics.sorted().map((d) => d.message).join('\n'));
  return r.plan;
}

test('the catalog warehouse comes from the run variables; a missing one is named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-compact-vars-'));
  const empty = mkdtempSync(join(tmpdir(), 'pipec-compact-other-'));
  // Compiled with another value than the run's: the run's variables decide where compact looks.
  const plan = await planWith(empty);
  const lines: string[] = [];
  assert.deepEqual((await runCompaction(plan, dir, (l) => lines.push(l), { LAKE_DIR: empty })).errors, ['policy keep: table lake.a.t does not exist yet (the pipeline creates it on its first commit)']);
  // A table whose metadata cannot be read, under the substituted warehouse only: compact reaches it there.
  mkdirSync(join(dir, 'wh', 'a', 't', 'metadata'), { recursive: true });
  writeFileSync(join(dir, 'wh', 'a', 't', 'metadata', 'v1.metadata.json'), 'not json');
  const found = await runCompaction(plan, dir, (l) => lines.push(l), { LAKE_DIR: dir });
  assert.equal(found.errors.length, 1);
  assert.match(found.errors[0]!, /^policy keep on lake\.a\.t: /);
  const missing = await runCompaction(plan, dir, (l) => lines.push(l), {});
  assert.deepEqual(missing.errors, ['policy keep on lake.a.t: variable LAKE_DIR is not set (environment or profile)']);
  assert.deepEqual(lines, []);
});
