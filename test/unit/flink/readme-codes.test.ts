// Every difference the Flink target can report is listed in the README's Flink target table (the
// issue's "every difference code is in the README's target table"): a new flink-* code without a
// row there fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { flinkCodes } from '../../../src/diagnostics/codes/flink.ts';
import { repoRoot } from '../../support/venv.ts';

test("every flink-* diagnostic code has a row in the README's Flink table", () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const rows = new Set([...readme.matchAll(/^\| `(flink-[a-z-]+)` \|/gm)].map((m) => m[1]));
  const missing = Object.keys(flinkCodes).filter((c) => !rows.has(c));
  assert.deepEqual(missing, []);
  assert.ok(Object.keys(flinkCodes).length >= 16);
});
