// `pipec test --target runtime,clickhouse,flink`: one test file proves the runtime, the ClickHouse
// target (chdb) and the Flink target (its generated script on PyFlink 2.3's mini-cluster). The
// fixture's expected rows were worked out by hand (see its comments). All cases of the invocation
// run in ONE Flink job, so a second test file with a wrong expectation sits in the same project:
// it must fail on Flink with a table diff while the first passes; a case with a scripted
// watermark (which Flink's row-driven watermark cannot follow) is skipped on Flink by code; a
// missing PyFlink is a coded error, not a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { pipec, repoRoot } from '../../cli/run-cli.ts';
import { ensureVenv, venvPython, venvPythonOf } from '../../support/venv.ts';

const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'pipec-test-targets');
const PIPEC = path.join(repoRoot, 'bin', 'pipec.mjs');

interface JsonReport {
  passed: number;
  failed: number;
  skipped: number;
  files: { file: string; diagnostics: { code: string; line: number }[]; tests: { name: string; target: string; ok: boolean; skipped: string | null; error: string | null; failures: { output: string; diff: string }[] }[] }[];
}

function project(): string {
  const dir = tempDir('pipec-test-flink-');
  copyFileSync(path.join(FIXTURE, 'shop.pipe.sql'), path.join(dir, 'shop.pipe.sql'));
  const text = readFileSync(path.join(FIXTURE, 'shop.flink.test.yaml'), 'utf8');
  writeFileSync(path.join(dir, 'shop.pipe.test.yaml'), text);
  // The same first test with one wrong total (15.50 is right: 10.00 + 5.50).
  writeFileSync(path.join(dir, 'wrong.pipe.test.yaml'), text.replace('n: 2, total: 15.50', 'n: 2, total: 99').split('\n  - name: a scripted')[0] + '\n');
  return dir;
}

const outcome = (report: JsonReport): string[] => report.files.flatMap((f) => f.tests.map((t) => `${path.basename(f.file)} ${t.target}: ${t.skipped ? 'skip' : t.ok ? 'pass' : 'fail'}: ${t.name}`));

test('one test file passes on the runtime, ClickHouse and Flink (one Flink job); a wrong row fails on Flink with a diff; a scripted watermark skips Flink by code', async () => {
  await Promise.all([ensureVenv(), ensureVenv('flink')]);
  const dir = project();
  // Flink's start on a shared machine can take a minute: a longer timeout than pipec()'s.
  const r = spawnSync(process.execPath, [PIPEC, 'test', '.', '--target', 'runtime,clickhouse,flink', '--reporter', 'json'], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', PIPEC_CHDB_PYTHON: venvPython, PIPEC_FLINK_PYTHON: venvPythonOf('flink') },
    encoding: 'utf8',
    timeout: 600_000,
  });
  const report = JSON.parse(r.stdout || '{"files":[]}') as JsonReport;
  const first = 'rows in order, the end of input closes every minute; the changelog folds to final rows';
  const second = "a scripted watermark makes a row late that Flink's own watermark does not";
  assert.deepEqual(
    outcome(report),
    [
      `shop.pipe.test.yaml runtime: pass: ${first}`,
      `shop.pipe.test.yaml runtime: pass: ${second}`,
      `shop.pipe.test.yaml clickhouse: pass: ${first}`,
      `shop.pipe.test.yaml clickhouse: skip: ${second}`,
      `shop.pipe.test.yaml flink: skip: ${second}`,
      `shop.pipe.test.yaml flink: pass: ${first}`,
      `wrong.pipe.test.yaml runtime: fail: ${first}`,
      `wrong.pipe.test.yaml clickhouse: fail: ${first}`,
      `wrong.pipe.test.yaml flink: fail: ${first}`,
    ],
    r.stderr,
  );
  assert.equal(r.status, 1, 'the wrong expectation fails the run');
  // The Flink skip names the watermark step (line 34), which Flink's watermark cannot follow.
  const codes = report.files[0]!.diagnostics.map((d) => `${d.code}:${d.line}`);
  assert.ok(codes.includes('test-target-step-unsupported:34'), codes.join(', '));
  assert.match(r.stderr, /the flink target cannot play this `watermark` step: Flink's watermark comes only from the rows/);
  // The wrong total: the expected row is missing on Flink, the computed one is shown.
  const flinkFail = report.files[1]!.tests.find((t) => t.target === 'flink')!;
  assert.equal(flinkFail.error, null);
  assert.deepEqual(flinkFail.failures.map((f) => f.output), ['per_min_ch']);
  assert.match(flinkFail.failures[0]!.diff, /^- \| a .*\| 99 /m);
  assert.match(flinkFail.failures[0]!.diff, /^\+ \| a .*\| 15\.5 /m);
});

test('without PyFlink the Flink target is a coded error naming the interpreter', () => {
  const dir = project();
  const r = pipec(['test', 'shop.pipe.test.yaml', '--target', 'flink', '--flink-python', path.join(dir, 'no-such-python')], { cwd: dir });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /error\[test-target-engine-missing\]: cannot run tests on the flink target: cannot start .*no-such-python/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});
