// Failures the user must be able to act on (issue 12 item 10): a full disk (ENOSPC, from
// /dev/full), a checkpoint that cannot be written and a file that is no Parquet each fail the
// run with a message naming the file and what it is (output, checkpoint, source), never a bare
// `ENOSPC: no space left on device, write`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';

async function run(spec: string, files: Record<string, string>, checkpointDir?: string): Promise<{ exitCode: number; stderr: string; dir: string }> {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'p.pipe.sql'), spec);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const r = await compileFile(path.join(dir, 'p.pipe.sql'), { cwd: dir, env: { get: () => undefined } });
  assert.deepEqual(r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message), []);
  let stderr = '';
  const x = await runPipeline(r.plan!, {
    baseDir: dir,
    env: {},
    handleSignals: false,
    checkpointDir: checkpointDir?.replace('$DIR', dir),
    stdout: () => {},
    stderr: (t) => void (stderr += t),
  });
  return { exitCode: x.exitCode, stderr, dir };
}

const source = (format: string, file: string): string =>
  `CREATE SOURCE ev (id INT NOT NULL) WITH (connector = 'file', path = '${file}', format = '${format}');\n`;

test('a full disk under an output file fails the run naming the file and ENOSPC', async () => {
  // /dev/full stands in for a full disk (every Linux has it): without it the test fails, never skips.
  assert.ok(existsSync('/dev/full'), '/dev/full is missing');
  const r = await run(source('ndjson', 'ev.ndjson') + `CREATE SINK out FROM ev WITH (connector = 'file', path = '/dev/full', format = 'ndjson');`, { 'ev.ndjson': '{"id":1}\n' });
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /cannot write the output file \/dev\/full: no space left on the device \(ENOSPC\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /); // no stack trace
});

test('a checkpoint that cannot be written fails the run saying it was the checkpoint, and where', async () => {
  // The checkpoint directory lies under a regular file: creating it fails (ENOTDIR).
  const r = await run(source('ndjson', 'ev.ndjson') + `CREATE SINK out FROM ev WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');`, { 'ev.ndjson': '{"id":1}\n', blocker: '' }, '$DIR/blocker/ck');
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /cannot write the checkpoint in \S*\/blocker\/ck: ENOTDIR/);
});

test('a file that is no Parquet fails the run naming the source and the file', async () => {
  const r = await run(source('parquet', '*.parquet') + `CREATE SINK out FROM ev WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');`, { 'bad.parquet': 'this is not a parquet file at all' });
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /source 'ev': cannot read Parquet file bad\.parquet: /);
});
