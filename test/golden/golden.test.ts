// Runs every golden case and compares each named output with its committed expectation.
// UPDATE_GOLDEN=1 rewrites the expectations instead (review the diff before committing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { caseOutputs, listCases, readExpected, writeExpected } from './golden-harness.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const update = process.env.UPDATE_GOLDEN === '1';

for (const name of listCases()) {
  test(`golden: ${name}`, async () => {
    const actual = await caseOutputs(name, repoRoot);
    if (update) {
      writeExpected(name, actual);
      return;
    }
    const expected = readExpected(name);
    assert.ok(expected.size > 0, `golden case ${name} has no expected/ outputs; run with UPDATE_GOLDEN=1 and review them`);
    assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort(), `the set of outputs of ${name} changed`);
    for (const [file, text] of expected) assert.equal(actual.get(file), text, `${name}/expected/${file} differs`);
  });
}
