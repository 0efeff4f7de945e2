// `pipec test --target runtime,clickhouse`: one test file proves the runtime and the ClickHouse
// target (its DDL on chdb). The fixture's expected rows were worked out by hand from the spec
// (docs/testing.md explains each step); both targets must produce them, a wrong expectation must
// fail on both, a case with late rows is skipped on ClickHouse by code (it merges late rows into
// their window), and a missing chdb is a coded error, not a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { pipec, repoRoot } from '../../cli/run-cli.ts';
import { ensureVenv, venvPython } from '../../support/venv.ts';

const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'pipec-test-targets');

interface JsonReport {
  passed: number;
  failed: number;
  skipped: number;
  files: { diagnostics: { code: string; line: number }[]; tests: { name: string; target: string; ok: boolean; skipped: string | null; failures: { output: string; diff: string }[] }[] }[];
}

function project(edit?: (text: string) => string): string {
  const dir = tempDir('pipec-test-ch-');
  copyFileSync(path.join(FIXTURE, 'shop.pipe.sql'), path.join(dir, 'shop.pipe.sql'));
  const text = readFileSync(path.join(FIXTURE, 'shop.clickhouse.test.yaml'), 'utf8');
  writeFileSync(path.join(dir, 'shop.pipe.test.yaml'), edit ? edit(text) : text);
  return dir;
}

function runBoth(dir: string, extra: string[] = []): { status: number; report: JsonReport; stderr: string } {
  const r = pipec(['test', 'shop.pipe.test.yaml', '--target', 'runtime,clickhouse', '--reporter', 'json', ...extra], { cwd: dir, env: { PIPEC_CHDB_PYTHON: venvPython } });
  return { status: r.status, report: JSON.parse(r.stdout || '{"files":[]}') as JsonReport, stderr: r.stderr };
}

const outcome = (report: JsonReport): string[] => report.files.flatMap((f) => f.tests.map((t) => `${t.target}: ${t.skipped ? 'skip' : t.ok ? 'pass' : 'fail'}: ${t.name}`));

test('the same test file passes on the runtime and on the ClickHouse target; late rows skip ClickHouse by code', async () => {
  await ensureVenv();
  const { status, report, stderr } = runBoth(project());
  assert.deepEqual(
    outcome(report),
    [
      'runtime: pass: the watermark step closes the minute; the changelog folds to the final rows',
      'runtime: pass: without a watermark past its end the minute stays open',
      'runtime: pass: a late row is dropped by the window',
      'clickhouse: pass: the watermark step closes the minute; the changelog folds to the final rows',
      'clickhouse: pass: without a watermark past its end the minute stays open',
      'clickhouse: skip: a late row is dropped by the window',
    ],
    stderr,
  );
  assert.equal(status, 0, stderr);
  const codes = report.files[0]!.diagnostics.map((d) => `${d.code}:${d.line}`);
  // The skip names the rows step with the late row; the dead letters are the runtime's output only.
  assert.ok(codes.includes('test-target-step-unsupported:51'), codes.join(', '));
  assert.ok(codes.includes('test-target-output-unsupported:28'), codes.join(', '));
  assert.equal(report.skipped, 1);
});

test('a wrong expectation fails on both targets, each with its table diff', async () => {
  await ensureVenv();
  const { status, report } = runBoth(project((t) => t.replace('n: 2, total: 15.50', 'n: 2, total: 99')));
  assert.equal(status, 1);
  const failed = report.files[0]!.tests.filter((t) => !t.ok);
  assert.deepEqual(failed.map((t) => t.target), ['runtime', 'clickhouse']);
  for (const t of failed) {
    assert.deepEqual(t.failures.map((f) => f.output), ['per_min_ch'], t.target);
    assert.match(t.failures[0]!.diff, /^- \| a .*\| 99 /m, `${t.target}: the expected row is missing`);
    assert.match(t.failures[0]!.diff, /^\+ \| a .*\| 15\.5 /m, `${t.target}: the computed row is shown`);
  }
});

test('without chdb the ClickHouse target is a coded error naming the interpreter', () => {
  const dir = project();
  const r = pipec(['test', 'shop.pipe.test.yaml', '--target', 'clickhouse', '--chdb-python', path.join(dir, 'no-such-python')], { cwd: dir });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /error\[test-target-engine-missing\]: cannot run tests on the clickhouse target: cannot start .*no-such-python/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

// CDC rows reach the ClickHouse DDL as the Debezium messages it reads (customers__debezium). The
// temporal join there reads the latest version at insert time; the test inserts each change
// before the orders it is valid for, so both targets must give the version valid at order time
// (o1 silver, o2 gold, o3 dropped: Bob is deleted). Inserting Ada's update before o1 (whose time
// precedes the update's commit) makes ClickHouse join the newer version: skipped by code.
const CDC_TEST = `spec: customer_orders_cdc.pipe.sql
tests:
  - name: changes inserted in commit order around the orders
    steps:
      - rows: customers
        data:
          - { $op: +I, $commit_ts: '2026-01-01 00:00:00', id: 1, name: Ada, email: null, country: DE, tier: silver, updated_at: '2026-01-01 00:00:00' }
          - { $op: +I, $commit_ts: '2026-01-01 00:00:00', id: 2, name: Bob, email: null, country: FR, tier: bronze, updated_at: '2026-01-01 00:00:00' }
      - rows: order_events
        data:
          - { order_id: o1, customer_id: 1, amount: 25.00, currency: EUR, order_ts: '2026-01-01 00:00:30' }
      - rows: customers
        data:
          - { $op: -U, $commit_ts: '2026-01-01 00:01:00', id: 1, name: Ada, email: null, country: DE, tier: silver, updated_at: '2026-01-01 00:00:00' }
          - { $op: +U, $commit_ts: '2026-01-01 00:01:00', id: 1, name: Ada, email: null, country: DE, tier: gold, updated_at: '2026-01-01 00:01:00' }
          - { $op: -D, $commit_ts: '2026-01-01 00:01:00', id: 2, name: Bob, email: null, country: FR, tier: bronze, updated_at: '2026-01-01 00:00:00' }
      - rows: order_events
        data:
          - { order_id: o2, customer_id: 1, amount: 40.00, currency: EUR, order_ts: '2026-01-01 00:01:30' }
          - { order_id: o3, customer_id: 2, amount: 9.99, currency: EUR, order_ts: '2026-01-01 00:01:40' }
      - end_of_input
    expect:
      enriched_orders_ch:
        rows:
          - { order_id: o1, tier: silver, amount: 25.00 }
          - { order_id: o2, tier: gold, amount: 40.00 }
  - name: an update inserted before an older order
    steps:
      - rows: customers
        data:
          - { $op: +I, $commit_ts: '2026-01-01 00:00:00', id: 1, name: Ada, email: null, country: DE, tier: silver, updated_at: '2026-01-01 00:00:00' }
          - { $op: -U, $commit_ts: '2026-01-01 00:01:00', id: 1, name: Ada, email: null, country: DE, tier: silver, updated_at: '2026-01-01 00:00:00' }
          - { $op: +U, $commit_ts: '2026-01-01 00:01:00', id: 1, name: Ada, email: null, country: DE, tier: gold, updated_at: '2026-01-01 00:01:00' }
      - rows: order_events
        data:
          - { order_id: o1, customer_id: 1, amount: 25.00, currency: EUR, order_ts: '2026-01-01 00:00:30' }
      - end_of_input
    expect:
      enriched_orders_ch:
        rows:
          - { order_id: o1, tier: silver }
`;

test('CDC changes as Debezium messages: the temporal join gives the runtime rows on ClickHouse; out-of-order changes skip by code', async () => {
  await ensureVenv();
  const dir = tempDir('pipec-test-ch-cdc-');
  copyFileSync(path.join(repoRoot, 'specs', 'customer_orders_cdc.pipe.sql'), path.join(dir, 'customer_orders_cdc.pipe.sql'));
  writeFileSync(path.join(dir, 'cdc.pipe.test.yaml'), CDC_TEST);
  const r = pipec(['test', 'cdc.pipe.test.yaml', '--target', 'runtime,clickhouse', '--reporter', 'json'], { cwd: dir, env: { PIPEC_CHDB_PYTHON: venvPython } });
  const report = JSON.parse(r.stdout || '{"files":[]}') as JsonReport;
  assert.deepEqual(
    outcome(report),
    [
      'runtime: pass: changes inserted in commit order around the orders',
      'runtime: pass: an update inserted before an older order',
      'clickhouse: pass: changes inserted in commit order around the orders',
      'clickhouse: skip: an update inserted before an older order',
    ],
    r.stderr,
  );
  assert.equal(r.status, 0, r.stderr);
  // The skip names the order's rows step (line 34) and the coded difference behind it.
  assert.match(r.stderr, /the clickhouse target cannot play this `rows` step: a change of 'customers' committed after a row's time is inserted before the row.*clickhouse-temporal-join-latest/);
  assert.ok(report.files[0]!.diagnostics.some((d) => d.code === 'test-target-step-unsupported' && d.line === 34));
});
