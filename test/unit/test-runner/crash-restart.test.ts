// `crash_and_restart` tears the engine down mid-run and builds a new one from the checkpoint the
// runtime wrote: output the crashed engine had not committed is dropped by the resumed sink, the
// source replays from the checkpoint's position, and restored operator state does not fire a
// window twice. Each case would show a duplicate or a lost row if the resume path were skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runTestFile } from '../../../src/test-runner/run-tests.ts';
import { repoRoot } from '../../cli/run-cli.ts';

const env = { get: () => undefined };

async function run(steps: string[]): Promise<{ revenue: unknown[]; restarts: number; error: string | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-crash-'));
  cpSync(join(repoRoot, 'specs', 'orders_revenue.pipe.sql'), join(dir, 'orders_revenue.pipe.sql'));
  const rows = (ts: string, id: string) => `      - rows: orders\n        data:\n          - { order_id: ${id}, customer_id: 1, amount: 2.00, order_ts: '${ts}' }`;
  const named: Record<string, string> = {
    r1: rows('2026-01-01 00:00:10', 'o1'),
    r2: rows('2026-01-01 00:00:20', 'o2'),
    wm: "      - watermark: orders\n        at: '2026-01-01 00:01:31'",
  };
  const text = ['spec: orders_revenue.pipe.sql', 'tests:', '  - name: t', '    steps:', ...steps.map((s) => named[s] ?? `      - ${s}`), ''].join('\n');
  const file = join(dir, 't.pipe.test.yaml');
  writeFileSync(file, text);
  const r = await runTestFile(file, dir, env);
  assert.deepEqual(r.diagnostics, []);
  const c = r.cases[0]!;
  return { revenue: (c.observed.get('revenue_ch') ?? []).map((x) => `${x.revenue} ${x.orders}`), restarts: c.restarts, error: c.error };
}

test('a crash before any checkpoint replays everything: the window fires once, with every order', async () => {
  const r = await run(['r1', 'r2', 'wm', 'crash_and_restart', 'end_of_input']);
  assert.equal(r.error, null);
  assert.equal(r.restarts, 1);
  // The crashed engine had already emitted the window; it was never committed.
  assert.deepEqual(r.revenue, ['4.00 2']);
});

test('a crash after a checkpoint resumes operator state: rows before the checkpoint are not lost, after it not doubled', async () => {
  const r = await run(['r1', 'checkpoint', 'r2', 'crash_and_restart', 'wm', 'end_of_input']);
  assert.equal(r.restarts, 1);
  assert.deepEqual(r.revenue, ['4.00 2']);
});

test('a window committed by a checkpoint before the crash is not emitted again after the restart', async () => {
  const r = await run(['r1', 'r2', 'wm', 'checkpoint', 'crash_and_restart', 'end_of_input']);
  assert.equal(r.restarts, 1);
  assert.deepEqual(r.revenue, ['4.00 2']);
});

test('two crashes in one test each restart from the latest checkpoint', async () => {
  const r = await run(['r1', 'checkpoint', 'crash_and_restart', 'r2', 'checkpoint', 'crash_and_restart', 'wm', 'end_of_input']);
  assert.equal(r.restarts, 2);
  assert.deepEqual(r.revenue, ['4.00 2']);
});
