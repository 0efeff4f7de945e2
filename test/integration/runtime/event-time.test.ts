// Event time: late events with and without allowed lateness (ON LATE TO with late_by_ms,
// ON LATE DROP counted), EMIT CHANGES upserts, per-partition watermarks over several files,
// idle partitions and the all-idle rule, and the bounded end closing every window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { bidPlan, MIN } from '../../fixtures/runtime/bid-plans.ts';
import { readNdjson, runPlan, sortRows, tempDir, writeNdjson } from '../../fixtures/runtime/run-helpers.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';

const bid = (t: string, price: string, item: string) => ({ bidtime: `2020-04-15 ${t}:00`, price, item });
const TUMBLE = { kind: 'tumble' as const, sizeMs: 10 * MIN, offsetMs: 0 };

test('a late event (no allowed lateness) goes ON LATE TO with late_by_ms and is left out of its window', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [bid('08:05', '1.00', 'A'), bid('08:12', '2.00', 'B'), bid('08:07', '4.00', 'C'), bid('08:21', '8.00', 'D')]);
  const r = await runPlan(bidPlan({ path: 'in.ndjson', window: TUMBLE, delayMs: 0, late: 'to' }), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(sortRows(r.out, ['window_start']), [
    { window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', price: '1.00' },
    { window_start: '2020-04-15 08:10:00.000', window_end: '2020-04-15 08:20:00.000', price: '2.00' },
    { window_start: '2020-04-15 08:20:00.000', window_end: '2020-04-15 08:30:00.000', price: '8.00' },
  ]);
  // Watermark 08:12 when C (08:07) arrives: 5 minutes late; the row is unchanged plus late_by_ms.
  assert.deepEqual(r.late, [{ bidtime: '2020-04-15 08:07:00.000', price: '4.00', item: 'C', late_by_ms: 5 * 60_000 }]);
});

test('allowed lateness keeps a window open: a late-but-allowed event is counted, a later one is routed', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [
    bid('08:05', '1.00', 'A'),
    bid('08:12', '2.00', 'B'), // wm 08:12: [08:00, 08:10) not closed (needs 08:15)
    bid('08:07', '4.00', 'C'), // within the allowed lateness: joins the first window
    bid('08:16', '8.00', 'D'), // wm 08:16 ≥ 08:10 + 5 min: first window fires with A + C
    bid('08:03', '16.00', 'E'), // too late: 13 minutes behind the watermark
  ]);
  const r = await runPlan(bidPlan({ path: 'in.ndjson', window: TUMBLE, delayMs: 0, allowedLatenessMs: 5 * MIN, late: 'to' }), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.out, [
    { window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', price: '5.00' },
    { window_start: '2020-04-15 08:10:00.000', window_end: '2020-04-15 08:20:00.000', price: '10.00' },
  ]);
  assert.deepEqual(r.late, [{ bidtime: '2020-04-15 08:03:00.000', price: '16.00', item: 'E', late_by_ms: 13 * 60_000 }]);
});

test('ON LATE DROP drops late events and counts them in /metrics', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [bid('08:05', '1.00', 'A'), bid('08:12', '2.00', 'B'), bid('08:07', '4.00', 'C'), bid('08:01', '4.00', 'D')]);
  const port = 19000 + Math.floor(Math.random() * 2000);
  writeFileSync(path.join(dir, 'follow.ndjson'), '');
  const ac = new AbortController();
  // A follow source keeps the pipeline running while we scrape the metrics.
  const plan = bidPlan({ path: 'in.ndjson', window: TUMBLE, delayMs: 0, late: 'drop', follow: true });
  const running = runPlan(plan, { dir, signal: ac.signal, metricsPort: port });
  let text = '';
  for (let i = 0; i < 100; i++) {
    await new Promise((res) => setTimeout(res, 50));
    try {
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      if (/pipec_late_events_total\{[^}]*operator="win"\} 2/.test(text)) break;
    } catch {
      // not listening yet
    }
  }
  const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
  ac.abort();
  const r = await running;
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(text, /pipec_late_events_total\{pipeline="bids",operator="win"\} 2\n/);
  assert.match(text, /pipec_records_in_total\{pipeline="bids",source="bid"\} 4\n/);
  assert.match(text, /pipec_records_out_total\{pipeline="bids",sink="out"\} 1\n/);
  assert.match(text, /pipec_state_entries\{pipeline="bids",operator="win"\} 1\n/);
  assert.match(text, /pipec_watermark_ms\{pipeline="bids",source="bid"\} 1586938320000\n/);
  assert.equal((health as { status: string }).status, 'ok');
  assert.deepEqual(r.late, []);
});

test('EMIT CHANGES emits an upsert per change, keyed by window_start', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [bid('08:05', '1.00', 'A'), bid('08:07', '2.00', 'B'), bid('08:12', '4.00', 'C')]);
  const r = await runPlan(bidPlan({ path: 'in.ndjson', window: TUMBLE, delayMs: 0, emit: 'changes' }), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(
    r.out.map((x) => [x.window_start, x.price]),
    [
      ['2020-04-15 08:00:00.000', '1.00'],
      ['2020-04-15 08:00:00.000', '3.00'],
      ['2020-04-15 08:10:00.000', '4.00'],
    ],
  );
});

test('each file is a partition: the watermark is the minimum, so a slower file is not late', async () => {
  const dir = tempDir();
  // parts/a.ndjson runs far ahead; parts/b.ndjson has earlier events. As one stream, b's rows
  // would be late; as two partitions they are on time.
  const rowsA = [bid('08:01', '1.00', 'A'), bid('08:31', '2.00', 'B')];
  const rowsB = [bid('08:02', '4.00', 'C'), bid('08:09', '8.00', 'D')];
  writeNdjson(path.join(dir, 'parts-a.ndjson'), rowsA);
  writeNdjson(path.join(dir, 'parts-b.ndjson'), rowsB);
  const r = await runPlan(bidPlan({ path: 'parts-*.ndjson', window: TUMBLE, delayMs: 0, late: 'to' }), { dir });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.late, []);
  assert.deepEqual(sortRows(r.out, ['window_start']), [
    { window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', price: '13.00' },
    { window_start: '2020-04-15 08:30:00.000', window_end: '2020-04-15 08:40:00.000', price: '2.00' },
  ]);

  // The same rows as one file (one partition): C and D arrive after the watermark passed 08:31.
  const dir2 = tempDir();
  writeNdjson(path.join(dir2, 'single.ndjson'), [...rowsA, ...rowsB]);
  const one = await runPlan(bidPlan({ path: 'single.ndjson', window: TUMBLE, delayMs: 0, late: 'to' }), { dir: dir2 });
  assert.equal(one.late.length, 2);
});

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return cond();
}

test('an idle partition stops holding the watermark back after idle_timeout', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'p-a.ndjson'), [bid('08:01', '1.00', 'A')]);
  writeNdjson(path.join(dir, 'p-b.ndjson'), [bid('08:02', '2.00', 'B')]);
  const ac = new AbortController();
  const plan = bidPlan({ path: 'p-*.ndjson', window: TUMBLE, delayMs: 0, follow: true, idleTimeoutMs: 400, late: 'drop' });
  const running = runPlan(plan, { dir, signal: ac.signal });
  // Keep partition a busy (it never goes idle); b stays silent.
  let minute = 3;
  const timer = setInterval(() => {
    appendFileSync(path.join(dir, 'p-a.ndjson'), JSON.stringify(bid(`08:${String(minute).padStart(2, '0')}`, '1.00', 'A')) + '\n');
    if (minute < 14) minute++;
  }, 60);
  const early = readNdjson(path.join(dir, 'out.ndjson')).length;
  const fired = await waitFor(() => readNdjson(path.join(dir, 'out.ndjson')).length > 0, 5000);
  clearInterval(timer);
  ac.abort();
  const r = await running;
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(early, 0);
  assert.ok(fired, 'the first window fired once partition b was idle');
  // B (08:02) was read before b went idle, so it is in the window.
  assert.equal(r.out[0]!.window_start, '2020-04-15 08:00:00.000');
  assert.ok(Number((r.out[0]!.price as string)) >= 2 + 1);
});

test('without idle_timeout a silent partition holds the watermark (nothing fires)', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'p-a.ndjson'), [bid('08:01', '1.00', 'A'), bid('08:40', '1.00', 'A')]);
  writeNdjson(path.join(dir, 'p-b.ndjson'), [bid('08:02', '2.00', 'B')]);
  const ac = new AbortController();
  const running = runPlan(bidPlan({ path: 'p-*.ndjson', window: TUMBLE, delayMs: 0, follow: true, late: 'drop' }), { dir, signal: ac.signal });
  await new Promise((r) => setTimeout(r, 800));
  ac.abort();
  const r = await running;
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.out, []);
});

test('when every partition is idle the watermark follows processing time minus the delay', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [bid('08:01', '1.00', 'A'), bid('08:02', '2.00', 'B')]);
  const ac = new AbortController();
  const running = runPlan(bidPlan({ path: 'in.ndjson', window: TUMBLE, delayMs: 1000, follow: true, idleTimeoutMs: 200, late: 'drop' }), { dir, signal: ac.signal });
  const fired = await waitFor(() => readNdjson(path.join(dir, 'out.ndjson')).length > 0, 5000);
  ac.abort();
  const r = await running;
  assert.ok(fired);
  assert.deepEqual(r.out, [{ window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', price: '3.00' }]);
});

test('a bounded input closes every window at its end, even ones the watermark never passed', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [bid('08:01', '1.00', 'A'), bid('08:02', '2.00', 'B')]);
  const r = await runPlan(bidPlan({ path: 'in.ndjson', window: { kind: 'hop', slideMs: 5 * MIN, sizeMs: 10 * MIN }, delayMs: 60 * MIN }), { dir });
  assert.equal(r.exitCode, 0);
  assert.deepEqual(
    r.out.map((x) => [x.window_start, x.price]),
    [
      ['2020-04-15 07:55:00.000', '3.00'],
      ['2020-04-15 08:00:00.000', '3.00'],
    ],
  );
});

test('--metrics-port 0 says which port it bound, and /metrics answers there', async () => {
  const dir = tempDir();
  writeNdjson(path.join(dir, 'in.ndjson'), [bid('08:05', '1.00', 'A')]);
  writeFileSync(path.join(dir, 'follow.ndjson'), '');
  const ac = new AbortController();
  let stderr = '';
  const running = runPipeline(bidPlan({ path: 'in.ndjson', window: TUMBLE, delayMs: 0, late: 'drop', follow: true }), {
    baseDir: dir,
    env: {},
    handleSignals: false,
    metricsPort: 0,
    signal: ac.signal,
    stdout: () => {},
    stderr: (t) => void (stderr += t),
  });
  let port = 0;
  for (let i = 0; i < 100 && port === 0; i++) {
    await new Promise((res) => setTimeout(res, 50));
    port = Number(/metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(stderr)?.[1] ?? 0);
  }
  assert.ok(port > 0, `no bound port in: ${stderr}`);
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  ac.abort();
  assert.match(text, /pipec_records_in_total\{pipeline="bids",source="bid"\}/);
  assert.equal((await running).exitCode, 0);
});
