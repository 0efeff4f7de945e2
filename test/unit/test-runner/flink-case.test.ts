// What `pipec test --target flink` plays and what it skips by code, decided before Flink starts
// (no Flink here: test/integration/flink-target/pipec-test-flink.test.ts runs the job). Each
// skip below follows from the test's steps: a scripted watermark or a partition that makes a row
// late on one engine only, a crash, a clock-driven idle timeout, a dead-letter record, a test
// without end_of_input, a temporal join Flink cannot plan. A playable case gets its sources as files
// in the test's order and its sinks as filesystem tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../../cli/run-cli.ts';
import { runTestFile, type FlinkBatch } from '../../../src/test-runner/run-tests.ts';

const env = { get: (_k: string): string | undefined => undefined };

async function prepare(file: string): Promise<{ batch: FlinkBatch; skips: string[]; codes: string[] }> {
  const batch: FlinkBatch = { python: 'unused', dir: '/tmp/pipec-flink-case-test', pending: [] };
  const r = await runTestFile(file, repoRoot, env, { targets: ['flink'], chdbPython: 'unused', flink: batch });
  return { batch, skips: r.cases.map((c) => `${c.name}: ${c.skipped}`), codes: r.diagnostics.map((d) => `${d.code}:${d.span.start.line}:${d.message}`) };
}

test('orders_revenue: the watermark step and the slower partition skip Flink, each naming its step', async () => {
  const { batch, skips, codes } = await prepare('specs/orders_revenue.pipe.test.yaml');
  // The third test (in-order rows, end of input) is played.
  assert.deepEqual(batch.pending.map((p) => p.c.name), ['in-order orders, the end of input closes every minute (every target)']);
  assert.deepEqual(skips, [
    // o5 (00:00:20) is late after the scripted watermark (00:01:31); Flink's own watermark from the rows is 00:00:45.
    'revenue per customer per minute closes with the watermark; late orders go to orders_late: test-target-step-unsupported at specs/orders_revenue.pipe.test.yaml:14',
    // b1 (partition 1, 00:00:20) meets the runtime's watermark -inf (partition 1 unseen) but Flink's 00:01:55 (a2 on partition 0).
    'two partitions, keys and offsets; the slower partition holds the minute open: test-target-step-unsupported at specs/orders_revenue.pipe.test.yaml:42',
  ]);
  assert.ok(codes.some((c) => c.startsWith('test-target-output-unsupported:29:') && c.includes('flink-late-side-output')), codes.join('\n'));
});

test('quickstart, iot_sensors, clickstream: no end_of_input, a clocked idle timeout, a dead letter, a sink Flink leaves out', async () => {
  const q = await prepare('specs/quickstart.pipe.test.yaml');
  assert.deepEqual(
    q.skips.map((s) => s.split(': ').pop()),
    ['test-target-unsupported at specs/quickstart.pipe.test.yaml:5', 'test-target-unsupported at specs/quickstart.pipe.test.yaml:17', 'test-target-step-unsupported at specs/quickstart.pipe.test.yaml:46'],
  );
  assert.ok(q.codes.some((c) => c.startsWith('test-target-unsupported:5:') && c.includes('no end_of_input')));
  assert.deepEqual(q.batch.pending.map((p) => p.c.name), ['one partition, the end of input closes every minute (runtime and Flink)']);
  const iot = await prepare('specs/iot_sensors.pipe.test.yaml');
  assert.ok(iot.codes.some((c) => c.startsWith('test-target-step-unsupported:6:') && c.includes('column temperature: "hot" is not a number')), iot.codes.join('\n'));
  const cs = await prepare('specs/clickstream_sessions.pipe.test.yaml');
  assert.ok(cs.codes.some((c) => c.startsWith('test-target-unsupported:4:') && c.includes('none of the outputs')), cs.codes.join('\n'));
});

test('customer_orders_cdc is skipped on Flink by code: its temporal join reads a CDC source without WATERMARK', async () => {
  const { batch, skips, codes } = await prepare('specs/customer_orders_cdc.pipe.test.yaml');
  assert.equal(batch.pending.length, 0);
  assert.deepEqual(skips.map((s) => s.split(': ').pop()), ['test-target-unsupported at specs/customer_orders_cdc.pipe.test.yaml:4']);
  assert.ok(codes.some((c) => c.startsWith('test-target-output-unsupported:24:') && c.includes('leaves this sink out')), codes.join('\n'));
});
