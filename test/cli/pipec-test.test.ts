// `pipec test` as users run it (the built CLI): the shipped spec tests pass; a changed spec fails
// with a readable table diff naming the operator's spec line; --update writes the observed rows;
// JUnit XML parses (Python's xml.etree, a real parser) and JSON reports the same counts; a bad
// test file gets coded diagnostics at file:line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pipec, repoRoot } from './run-cli.ts';

/** A copy of one spec and its test file in a fresh folder (no pipec.yaml: tests need no profile). */
function copyOf(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-test-cmd-'));
  for (const f of [`${name}.pipe.sql`, `${name}.pipe.test.yaml`]) cpSync(join(repoRoot, 'specs', f), join(dir, f));
  return dir;
}

test('pipec test specs: every shipped spec has a test file, and all pass', () => {
  const r = pipec(['test', 'specs']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  for (const spec of ['quickstart', 'orders_revenue', 'iot_sensors', 'clickstream_sessions', 'customer_orders_cdc']) {
    assert.match(r.stdout, new RegExp(`PASS specs/${spec}\\.pipe\\.test\\.yaml › `), `${spec} has a passing test`);
  }
  assert.doesNotMatch(r.stdout, /FAIL/);
  // The crash step really restarts the engine (run-case.ts counts the restarts).
  assert.match(r.stdout, /clickstream_sessions\.pipe\.test\.yaml › .*1 restart\)/);
  assert.match(r.stdout, /\n10 passed, 0 failed in /);
});

test('a changed spec fails with a table diff that names the producing operator line; --update then writes what it produced', () => {
  const dir = copyOf('orders_revenue');
  const spec = join(dir, 'orders_revenue.pipe.sql');
  // Orders of 5.00 and less no longer count: customer 1's first minute is o1 (10.50) alone, and
  // o5 (1.00) is filtered before the window, so it is no longer a late row either.
  writeFileSync(spec, readFileSync(spec, 'utf8').replace('WHERE amount > 0', 'WHERE amount > 5'));
  const r = pipec(['test', '.'], { cwd: dir });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /FAIL orders_revenue\.pipe\.test\.yaml › revenue per customer per minute/);
  // The view starts on line 26 of the spec: the rows come from its projection.
  assert.match(r.stdout, /sink 'revenue_ch' \(rows from project at orders_revenue\.pipe\.sql:26\): 1 expected row\(s\) missing \(-\), 1 unexpected row\(s\) \(\+\); expected at orders_revenue\.pipe\.test\.yaml:21/);
  const lines = r.stdout.split('\n');
  assert.ok(lines.some((l) => /^\s+\| customer_id \| window_start\s+\| window_end\s+\| revenue \| orders \|$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^\s+- \| 1\s+\| 2026-01-01 00:00:00\.000 \| 2026-01-01 00:01:00\.000 \| 15\s+\| 2\s+\|$/.test(l)), 'the expected row, marked -');
  assert.ok(lines.some((l) => /^\s+\+ \| 1\s+\| 2026-01-01 00:00:00\.000 \| 2026-01-01 00:01:00\.000 \| 10\.5\s+\| 1\s+\|$/.test(l)), 'the produced row, marked +');
  assert.ok(lines.some((l) => /^\s+  \| 2\s+\| 2026-01-01 00:00:00\.000/.test(l)), 'the unchanged row, unmarked');
  assert.match(r.stdout, /sink 'orders_late' \(late rows of window_agg at orders_revenue\.pipe\.sql:26\): 1 expected row\(s\) missing/);

  const before = readFileSync(join(dir, 'orders_revenue.pipe.test.yaml'), 'utf8');
  const u = pipec(['test', '.', '--update'], { cwd: dir });
  assert.equal(u.status, 0, u.stdout + u.stderr);
  assert.match(u.stderr, /updated the expected rows of orders_revenue\.pipe\.test\.yaml/);
  const after = readFileSync(join(dir, 'orders_revenue.pipe.test.yaml'), 'utf8');
  assert.match(after, /\{ customer_id: 1, window_start: 2026-01-01 00:00:00\.000, window_end: 2026-01-01 00:01:00\.000, revenue: "10\.50", orders: 1 \}/);
  // Passing expectations and the steps stay as written (comments, chosen columns).
  assert.ok(after.includes('          - { customer_id: 2, window_start: \'2026-01-01 00:00:00\', revenue: 20000.00 }'));
  assert.ok(after.includes('# Past the end of the first minute plus its 30 s allowed lateness.'));
  assert.notEqual(after, before);
  const again = pipec(['test', '.'], { cwd: dir });
  assert.equal(again.status, 0, again.stdout + again.stderr);
});

test('--reporter junit is XML a parser reads, with one testcase per test and the failure text; --reporter json agrees', () => {
  const dir = copyOf('orders_revenue');
  const spec = join(dir, 'orders_revenue.pipe.sql');
  writeFileSync(spec, readFileSync(spec, 'utf8').replace('WHERE amount > 0', 'WHERE amount > 5'));
  const j = pipec(['test', '.', '--reporter', 'junit'], { cwd: dir });
  assert.equal(j.status, 1);
  const py = spawnSync(
    'python3',
    ['-c', 'import sys, xml.etree.ElementTree as ET; r = ET.fromstring(sys.stdin.read()); cs = r.findall(".//testcase"); print(r.get("tests"), r.get("failures"), len(cs), sum(1 for c in cs if c.find("failure") is not None), "revenue_ch" in (cs[0].find("failure").text or ""))'],
    { input: j.stdout, encoding: 'utf8' },
  );
  assert.equal(py.status, 0, py.stderr);
  // WHERE amount > 5 drops an order each test counts (o2's 4.50, a1's 5.00, x3's 3.50): all three fail.
  assert.equal(py.stdout.trim(), '3 3 3 3 True');
  const js = pipec(['test', '.', '--reporter', 'json'], { cwd: dir });
  const doc = JSON.parse(js.stdout) as { passed: number; failed: number; files: { tests: { ok: boolean; failures: { output: string; diff: string }[] }[] }[] };
  assert.equal(doc.passed, 0);
  assert.equal(doc.failed, 3);
  assert.deepEqual(doc.files[0]!.tests[0]!.failures.map((f) => f.output), ['revenue_ch', 'orders_late']);
  assert.match(doc.files[0]!.tests[0]!.failures[0]!.diff, /^\+ \| 1 /m);
});

test('a bad test file: coded diagnostics at file:line for an unknown sink, column, source, kind and duration; nothing runs', () => {
  const dir = copyOf('orders_revenue');
  writeFileSync(
    join(dir, 'bad.pipe.test.yaml'),
    [
      'spec: orders_revenue.pipe.sql',
      'tests:',
      '  - name: bad',
      '    steps:',
      '      - rows: orders',
      '        data:',
      "          - { order_id: o1, custmer_id: 1, $op: '+X' }",
      '      - rows: ordrs',
      '        data: []',
      '      - advance_processing_time: soon',
      '    expect:',
      '      revenue_chh:',
      '        rows: []',
      '',
    ].join('\n'),
  );
  const r = pipec(['test', 'bad.pipe.test.yaml'], { cwd: dir });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /error\[test-unknown-column\]: 'custmer_id' is not a column of source 'orders'\n\s+--> bad\.pipe\.test\.yaml:7:/);
  assert.match(r.stderr, /error\[test-bad-kind\]: '\+X' is not a changelog kind\n\s+--> bad\.pipe\.test\.yaml:7:/);
  assert.match(r.stderr, /error\[test-unknown-source\]: 'ordrs' is not a source of the pipeline\n\s+--> bad\.pipe\.test\.yaml:8:/);
  assert.match(r.stderr, /error\[test-bad-value\]: advance_processing_time: cannot read 'soon' as a duration\n\s+--> bad\.pipe\.test\.yaml:10:/);
  assert.match(r.stderr, /error\[test-unknown-sink\]: 'revenue_chh' is not a sink of the pipeline\n\s+--> bad\.pipe\.test\.yaml:12:/);
  assert.match(r.stdout, /0 passed, 0 failed, 1 test file\(s\) with errors/);
  // The shape is checked by the JSON Schema first: an unknown step is named at its line.
  writeFileSync(join(dir, 'shape.pipe.test.yaml'), 'spec: orders_revenue.pipe.sql\ntests:\n  - name: x\n    steps:\n      - flush\n');
  const s = pipec(['test', 'shape.pipe.test.yaml'], { cwd: dir });
  assert.equal(s.status, 1);
  assert.match(s.stderr, /error\[test-file-shape\]: test file: 'tests\.0\.steps\.0' is not a step: .*\n\s+--> shape\.pipe\.test\.yaml:5:9/);
  assert.equal(pipec(['explain', 'test-unknown-sink']).status, 0);
});
