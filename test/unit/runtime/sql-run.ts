// Test helper: compiles a .pipe.sql text with the real front end and checker and runs it in
// process over NDJSON input files in a fresh temporary folder; returns the named NDJSON outputs.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson, tempDir, writeNdjson } from '../../fixtures/runtime/run-helpers.ts';

export async function runSql(sql: string, inputs: Record<string, unknown[]>, outputs: string[]): Promise<Record<string, Record<string, unknown>[]>> {
  const dir = tempDir('pipec-sql-');
  writeFileSync(path.join(dir, 'p.pipe.sql'), sql);
  for (const [file, rows] of Object.entries(inputs)) writeNdjson(path.join(dir, file), rows);
  const r = await compileFile('p.pipe.sql', { cwd: dir, env: { get: () => undefined } });
  assert.deepEqual(r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message), []);
  assert.ok(r.plan);
  let err = '';
  const x = await runPipeline(r.plan, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: (t) => (err += t) });
  assert.equal(x.exitCode, 0, err);
  return Object.fromEntries(outputs.map((o) => [o, readNdjson(path.join(dir, o))]));
}

/** An NDJSON integer (a number within 2^53, a string beyond) as a BigInt. */
export const big = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(String(v)));
