// A sink fed by a changelog (GROUP BY … EMIT CHANGES) is compared with its row kinds: the `op`
// column of the sink's own JSON. In `order: exact` a wrong kind or order fails the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runTestFile } from '../../../src/test-runner/run-tests.ts';

const SPEC = `PIPELINE counts;
CREATE SOURCE ev (
  k STRING NOT NULL,
  ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');
CREATE VIEW c AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k EMIT CHANGES;
CREATE SINK out FROM c WITH (connector = 'stdout', format = 'ndjson');
`;

async function outcome(expected: string): Promise<{ ok: boolean; observed: unknown[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-kinds-'));
  writeFileSync(join(dir, 'counts.pipe.sql'), SPEC);
  const file = join(dir, 'counts.pipe.test.yaml');
  writeFileSync(
    file,
    `spec: counts.pipe.sql
tests:
  - name: kinds
    steps:
      - rows: ev
        data:
          - { k: a, ts: '2026-01-01 00:00:01' }
          - { k: a, ts: '2026-01-01 00:00:02' }
      - end_of_input
    expect:
      out:
        order: exact
        rows:
${expected}
`,
  );
  const r = await runTestFile(file, dir, { get: () => undefined });
  assert.deepEqual(r.diagnostics, []);
  return { ok: r.cases[0]!.ok, observed: r.cases[0]!.observed.get('out')! };
}

test('the sink sees +I then +U for one key (upsert by k), and the test compares the kinds in order', async () => {
  const good = await outcome("          - { op: +I, k: a, n: 1 }\n          - { op: +U, k: a, n: 2 }");
  assert.deepEqual(good.observed, [{ op: '+I', k: 'a', n: 1 }, { op: '+U', k: 'a', n: 2 }]);
  assert.equal(good.ok, true);
  assert.equal((await outcome("          - { op: +U, k: a, n: 2 }\n          - { op: +I, k: a, n: 1 }")).ok, false, 'order matters in exact mode');
  assert.equal((await outcome("          - { op: +I, k: a, n: 1 }\n          - { op: +I, k: a, n: 2 }")).ok, false, 'the kind is compared');
});
