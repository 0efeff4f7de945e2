// The default thread count of `pipec run` (no --workers): one per core only when the plan runs
// on workers, its input is large enough to gain and spread over several files, and nothing of
// the one-thread engine (the terminal's status line, a metrics endpoint) would be lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTO_MIN_BYTES, autoWorkerCount } from '../../../targets/runtime/lib/workers/auto.ts';

const half = AUTO_MIN_BYTES / 2;
const base = { cores: 2, files: [[half, half]], refused: [], oneThreadFeatures: false };

test('a supported plan over enough bytes in several files runs on one thread per core', () => {
  assert.equal(autoWorkerCount(base), 2);
  assert.equal(autoWorkerCount({ ...base, cores: 8, files: [[half, half, half]] }), 3, 'no more threads than files');
  assert.equal(autoWorkerCount({ ...base, files: [[half, half], [10]] }), 2, 'the source with most files counts');
});

test('anything else runs on one thread', () => {
  assert.equal(autoWorkerCount({ ...base, cores: 1 }), 1, 'one core');
  assert.equal(autoWorkerCount({ ...base, files: [[AUTO_MIN_BYTES * 4]] }), 1, 'one file');
  assert.equal(autoWorkerCount({ ...base, files: [[half, half - 1]] }), 1, 'under the size');
  assert.equal(autoWorkerCount({ ...base, refused: [{ id: 'j', why: 'a temporal join' }] }), 1, 'a plan the workers refuse');
  assert.equal(autoWorkerCount({ ...base, oneThreadFeatures: true }), 1, 'a status line or metrics endpoint');
  assert.equal(autoWorkerCount({ ...base, files: [] }), 1, 'no file source');
});
